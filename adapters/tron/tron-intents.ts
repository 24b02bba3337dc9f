/**
 * Builds the unsigned transaction of each TransactionIntent with tronweb's TransactionBuilder, locally: the
 * caller supplies the reference block, so nothing here talks to a node and the txid is known before anything is
 * sent (write-ahead). Arguments are validated first so a bad intent is a VALIDATION-ERROR, not a driver error.
 */
import { TronWeb, type Types } from 'tronweb';
import type { TransactionIntent } from '../../core/ports/chain-gateway.port.js';
import { invalidArgument } from './tron-errors.js';

/** Reference block fields every built transaction carries (TaPoS and validity window). */
export interface BlockHeaderRef {
  readonly ref_block_bytes: string;
  readonly ref_block_hash: string;
  readonly expiration: number;
  readonly timestamp: number;
}

/** An unsigned transaction as tronweb builds it. */
export type UnsignedTransaction = Types.Transaction;

const MAX_UINT256 = (1n << 256n) - 1n;

/**
 * Valid addresses already converted, by the text given (tronweb checks a base58 address with two pure-JS SHA-256
 * rounds, twice: ~0.3 ms, several times a stage for the same few addresses). Bounded: cleared when full.
 */
const KNOWN_ADDRESSES = new Map<string, string>();
const KNOWN_ADDRESSES_MAX = 100_000;

/** 41-hex form of a TRON address, or a VALIDATION-ERROR naming `field`. */
export function hexAddress(address: string, field: string): string {
  const known = typeof address === 'string' ? KNOWN_ADDRESSES.get(address) : undefined;
  if (known !== undefined) return known;
  if (typeof address !== 'string' || !TronWeb.isAddress(address)) throw invalidArgument(field, 'not a TRON address');
  const hex = TronWeb.address.toHex(address).toLowerCase();
  if (KNOWN_ADDRESSES.size >= KNOWN_ADDRESSES_MAX) KNOWN_ADDRESSES.clear();
  KNOWN_ADDRESSES.set(address, hex);
  return hex;
}

/** A SUN amount as the safe integer tronweb and java-tron's int64 JSON accept. */
export function sunNumber(amount: bigint, field: string, min = 1n): number {
  if (typeof amount !== 'bigint' || amount < min || amount > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw invalidArgument(field, `must be an integer between ${min} and ${Number.MAX_SAFE_INTEGER}`);
  }
  return Number(amount);
}

/**
 * Builds the unsigned transaction for `intent` owned by `owner` (base58 or hex). `maxFeeLimitSun` caps the
 * fee limit a TRC20 transfer may carry: a bug must not be able to burn more than that.
 */
export async function buildIntent(
  tw: TronWeb,
  owner: string,
  intent: TransactionIntent,
  header: BlockHeaderRef,
  maxFeeLimitSun: bigint,
): Promise<UnsignedTransaction> {
  const from = hexAddress(owner, 'signer.address');
  const options = { blockHeader: { ...header } };
  const tb = tw.transactionBuilder;
  switch (intent.kind) {
    case 'transfer-trx': {
      const to = hexAddress(intent.to, 'to');
      if (to === from) throw invalidArgument('to', 'must differ from the sender');
      return tb.sendTrx(to, sunNumber(intent.amountSun, 'amountSun'), from, options);
    }
    case 'transfer-trc20': {
      const to = hexAddress(intent.to, 'to');
      const contract = hexAddress(intent.contract, 'contract');
      if (intent.amount <= 0n || intent.amount > MAX_UINT256) throw invalidArgument('amount', 'must be a positive uint256');
      if (intent.feeLimitSun > maxFeeLimitSun) throw invalidArgument('feeLimitSun', `must not exceed ${maxFeeLimitSun} SUN`);
      const feeLimit = sunNumber(intent.feeLimitSun, 'feeLimitSun');
      const wrapped = await tb.triggerSmartContract(
        contract,
        'transfer(address,uint256)',
        { ...options, feeLimit, txLocal: true } as Parameters<typeof tb.triggerSmartContract>[2],
        [
          { type: 'address', value: to },
          { type: 'uint256', value: intent.amount.toString() },
        ],
        from,
      );
      return wrapped.transaction;
    }
    case 'delegate': {
      const receiver = hexAddress(intent.receiver, 'receiver');
      if (receiver === from) throw invalidArgument('receiver', 'must differ from the owner');
      const lockBlocks = intent.lockBlocks ?? 0;
      if (!Number.isSafeInteger(lockBlocks) || lockBlocks < 0) throw invalidArgument('lockBlocks', 'must be a non-negative integer');
      const amount = sunNumber(intent.amountSun, 'amountSun');
      return lockBlocks > 0
        ? tb.delegateResource(amount, receiver, intent.resource, from, true, lockBlocks, options)
        : tb.delegateResource(amount, receiver, intent.resource, from, false, undefined, options);
    }
    case 'undelegate': {
      const receiver = hexAddress(intent.receiver, 'receiver');
      if (receiver === from) throw invalidArgument('receiver', 'must differ from the owner');
      return tb.undelegateResource(sunNumber(intent.amountSun, 'amountSun'), receiver, intent.resource, from, options);
    }
    case 'freeze':
      return tb.freezeBalanceV2(sunNumber(intent.amountSun, 'amountSun'), intent.resource, from, options);
    case 'unfreeze':
      return tb.unfreezeBalanceV2(sunNumber(intent.amountSun, 'amountSun'), intent.resource, from, options);
    case 'withdraw-unfrozen':
      return tb.withdrawExpireUnfreeze(from, options);
    case 'vote': {
      if (intent.votes.length === 0) throw invalidArgument('votes', 'must name at least one witness');
      const votes: Record<string, number> = {};
      for (const v of intent.votes) {
        const witness = hexAddress(v.witness, 'votes.witness');
        if (witness in votes) throw invalidArgument('votes.witness', 'each witness at most once');
        if (!Number.isSafeInteger(v.count) || v.count <= 0) throw invalidArgument('votes.count', 'must be a positive integer');
        votes[witness] = v.count;
      }
      return tb.vote(votes, from, options);
    }
    case 'withdraw-reward':
      return tb.withdrawBlockRewards(from, options);
    default: {
      const unknown: never = intent;
      throw invalidArgument('intent.kind', `unsupported intent ${(unknown as { kind: string }).kind}`);
    }
  }
}
