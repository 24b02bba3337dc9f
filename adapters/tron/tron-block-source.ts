/**
 * The BlockSource port on TRON nodes (one, or several with failover: the NodePool of tron-node-pool.ts). A block costs at most two
 * calls: `getblockbynum` (or the `getnowblock` reply already in hand when the head is the next block) and, when the
 * block has transactions, `gettransactioninfobyblocknum` for fees, `Transfer` logs and internal transactions, under
 * /wallet (head) or /walletsolidity (solidified). Final balances are `getaccount` and `balanceOf` through
 * `triggerconstantcontract` under /walletsolidity, between two reads of the solidified head that must agree.
 *
 * Balance changes are exact for: TransferContract, TriggerSmartContract (call value, internal transactions with
 * notes call/create/suicide, TRC20 Transfer events), CreateSmartContract, FreezeBalance(V2), the kinds in FEE_ONLY,
 * and every withdrawal the node reports in TransactionInfo (withdraw_amount, withdraw_expire_amount,
 * unfreeze_amount); every transaction's fee is charged to its owner. Any other kind's owner is listed as uncertain.
 * Internal transactions are in the node's replies only when it runs with
 * `vm.saveInternalTx = true` (TronGrid does; a self-hosted java-tron does not by default).
 */
import { createHash } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { ChainError } from '../../core/domain/errors.js';
import type {
  BalanceChange, BlockId, BlockReceipt, BlockSource, BlockTransfer, ChainBlock, ChainLevel, FinalBalances,
} from '../../core/ports/block-source.port.js';
import { toTransactionState, type TransactionInfoJson } from './tron-views.js';
import { NodePool, type NodeCaller, type NodePoolOptions, type NodeStatus, type TronNodeEndpoint } from './tron-node-pool.js';

/** Options of {@link TronBlockSource}: one node (`fullHost` …) or several (`nodes`, in order of preference). */
export interface TronBlockSourceOptions extends Omit<NodePoolOptions, 'nodes'> {
  /** FullNode base URL (a devnet's url, or a provider's). Ignored when `nodes` is given. */
  readonly fullHost?: string;
  /** Solidity node base URL when it is not the full host (java-tron serves /walletsolidity on port 8091). */
  readonly solidityHost?: string;
  /** Sent as TRON-PRO-API-KEY on every request (to every node). */
  readonly apiKey?: string;
  /** Several nodes, the first preferred; a failing or rate-limited node is skipped with backoff. */
  readonly nodes?: readonly TronNodeEndpoint[];
}

/** keccak256("Transfer(address,address,uint256)"). */
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** Notes of internal transactions that move TRX to `transferTo_address` (hex of "call", "create", "suicide"). */
const VALUE_NOTES = new Set(['call', 'create', 'suicide'].map((n) => Buffer.from(n).toString('hex')));
/**
 * Transaction kinds whose only TRX effects on the owner are the fee and the withdrawals TransactionInfo reports
 * (withdraw_amount, withdraw_expire_amount, unfreeze_amount); CancelAllUnfreezeV2 returns unexpired stake to stake.
 */
const FEE_ONLY = new Set([
  'UnfreezeBalanceV2Contract', 'UnfreezeBalanceContract', 'WithdrawExpireUnfreezeContract', 'CancelAllUnfreezeV2Contract',
  'DelegateResourceContract', 'UnDelegateResourceContract', 'VoteWitnessContract', 'WithdrawBalanceContract', 'TransferAssetContract',
  'AccountCreateContract', 'AccountUpdateContract', 'AccountPermissionUpdateContract', 'UpdateSettingContract', 'UpdateEnergyLimitContract',
  'ClearABIContract', 'UpdateBrokerageContract',
]);
/** Balance reads in flight at once on one node (a provider allows 15-30 a second). */
const READS_IN_FLIGHT = 4;
/** How often the solidified head may move during a balance read before the read gives up (transiently). */
const PIN_ATTEMPTS = 3;

type Json = Record<string, unknown>;
interface Header { number?: number; timestamp?: number; parentHash?: string }
interface BlockJson { blockID?: string; block_header?: { raw_data?: Header }; transactions?: TxJson[] }
interface TxJson { txID?: string; ret?: { contractRet?: string }[]; raw_data?: { contract?: { type?: string; parameter?: { value?: Json } }[] } }
interface LogJson { address?: string; topics?: string[]; data?: string }
interface InternalJson { caller_address?: string; transferTo_address?: string; callValueInfo?: { callValue?: number; tokenId?: string }[]; note?: string; rejected?: boolean }
interface InfoJson {
  id?: string; fee?: number; contract_address?: string; log?: LogJson[]; internal_transactions?: InternalJson[];
  withdraw_amount?: number; withdraw_expire_amount?: number; unfreeze_amount?: number;
}

/** Reads blocks and final balances. Construct freely: no request is made until a method is called. */
export class TronBlockSource implements BlockSource {
  private readonly pool: NodePool;
  /** The last getnowblock reply per level, reused when the scanner asks for that very block next. */
  private readonly lastHead = new Map<ChainLevel, BlockJson>();

  constructor(options: TronBlockSourceOptions) {
    const key = options.apiKey === undefined ? {} : { apiKey: options.apiKey };
    const nodes = options.nodes ?? [{ fullHost: required(options.fullHost), ...(options.solidityHost === undefined ? {} : { solidityHost: options.solidityHost }) }];
    this.pool = new NodePool({
      nodes: nodes.map((n) => ({ ...key, ...n })),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.budget === undefined ? {} : { budget: options.budget }),
      // The scanner can wait: a failing node is left alone longer than the gateway's minute.
      backoff: options.backoff ?? { baseMs: 1_000, maxMs: 300_000 },
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.onNodeFailure === undefined ? {} : { onNodeFailure: options.onNodeFailure }),
      ...(options.onCall === undefined ? {} : { onCall: options.onCall }),
    });
  }

  head(level: ChainLevel): Promise<BlockId> {
    return this.pool.run(`${level} head`, async (node) => {
      const block = await node.request<BlockJson>(endpointOf(level), `${prefixOf(level)}/getnowblock`, {});
      const id = blockId(block);
      if (id === null) throw new ChainError('CHAIN-NODE-UNAVAILABLE', `${node.name}: getnowblock returned no block`, { transient: true });
      this.lastHead.set(level, block);
      return id;
    });
  }

  genesis(): Promise<BlockId> {
    return this.pool.run('genesis block', async (node) => {
      // Only the id: block 0 may hold the network's allocation transactions, whose receipts no node keeps.
      const id = blockId(await node.request<BlockJson>('full', 'wallet/getblockbynum', { num: 0 }));
      if (id === null || id.number !== 0) throw new ChainError('CHAIN-NODE-UNAVAILABLE', `${node.name}: getblockbynum 0 returned no genesis block`, { transient: true });
      return id;
    });
  }

  block(number: number, level: ChainLevel): Promise<ChainBlock | null> {
    return this.pool.run(`block ${number}`, async (node) => {
      // A head reply serves its block once: after a reorg the same number must be read again.
      const cached = this.lastHead.get(level);
      this.lastHead.delete(level);
      let block = cached !== undefined && blockId(cached)?.number === number ? cached : await this.byNumber(node, level, number);
      if (block === null) return null;
      for (let attempt = 0; ; attempt += 1) {
        const infos = (block.transactions ?? []).length === 0 ? []
          : await node.request<InfoJson[]>(endpointOf(level), `${prefixOf(level)}/gettransactioninfobyblocknum`, { num: number });
        // Block and infos come from two calls: a reorg in between shows as a different set of transactions.
        if (sameTransactions(block, infos)) return toChainBlock(block, infos);
        if (attempt > 0) throw new ChainError('CHAIN-NODE-UNAVAILABLE', `${node.name}: block ${number} changed while it was read`, { transient: true });
        block = await this.byNumber(node, level, number);
        if (block === null) return null;
      }
    });
  }

  finalBalances(addresses: readonly string[], contracts: readonly (string | null)[]): Promise<FinalBalances> {
    return this.pool.run('final balances', async (node) => {
      for (let attempt = 1; ; attempt += 1) {
        const before = await this.solidifiedHead(node);
        const balances = new Map<string, Map<string | null, bigint>>(addresses.map((a) => [a, new Map()]));
        // A few reads in flight at once: the pair of head reads must enclose them within one solidified block (3 s).
        const reads = addresses.flatMap((address) => contracts.map((contract) => ({ address, contract })));
        for (let i = 0; i < reads.length; i += READS_IN_FLIGHT) {
          await Promise.all(reads.slice(i, i + READS_IN_FLIGHT).map(async ({ address, contract }) => {
            balances.get(address)!.set(contract, contract === null ? await trxBalance(node, address) : await tokenBalance(node, address, contract));
          }));
        }
        const after = await this.solidifiedHead(node);
        if (before.number === after.number && before.hash === after.hash) return { at: after, balances };
        if (attempt >= PIN_ATTEMPTS) {
          throw new ChainError('CHAIN-BALANCE-QUERY-FAILED', `${node.name}: the solidified head kept moving during the balance reads`, { transient: true });
        }
      }
    });
  }

  /** Per-node health and call counts (metrics). */
  nodes(): NodeStatus[] {
    return this.pool.status();
  }

  private async byNumber(node: NodeCaller, level: ChainLevel, number: number): Promise<BlockJson | null> {
    const block = await node.request<BlockJson>(endpointOf(level), `${prefixOf(level)}/getblockbynum`, { num: number });
    return blockId(block)?.number === number ? block : null;
  }

  private async solidifiedHead(node: NodeCaller): Promise<BlockId> {
    const id = blockId(await node.request<BlockJson>('solidity', 'walletsolidity/getnowblock', {}));
    if (id === null) throw new ChainError('CHAIN-BALANCE-QUERY-FAILED', `${node.name}: no solidified block yet`, { transient: true });
    return id;
  }
}

function required(fullHost: string | undefined): string {
  if (fullHost === undefined) throw new RangeError('TronBlockSource needs fullHost or nodes');
  return fullHost;
}

const endpointOf = (level: ChainLevel): 'full' | 'solidity' => (level === 'head' ? 'full' : 'solidity');
const prefixOf = (level: ChainLevel): string => (level === 'head' ? 'wallet' : 'walletsolidity');

function blockId(block: BlockJson): BlockId | null {
  if (typeof block.blockID !== 'string' || block.block_header === undefined) return null;
  // Block 0 prints no number (java-tron omits zero fields) but still has a header.
  return { number: block.block_header.raw_data?.number ?? 0, hash: block.blockID.toLowerCase() };
}

function sameTransactions(block: BlockJson, infos: readonly InfoJson[]): boolean {
  const txs = (block.transactions ?? []).map((t) => t.txID ?? '');
  if (txs.length !== infos.length) return false;
  const ids = new Set(infos.map((i) => i.id ?? ''));
  return txs.every((t) => ids.has(t));
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Base58check of recent addresses: busy blocks repeat the same accounts (exchanges, the USDT contract) many times. */
const base58Cache = new Map<string, string>();

/**
 * A 41-hex address in TRON's base58check form, the canonical form of the port. Encoding is the scanner's main cost
 * per block (hundreds of addresses), so it is done here on node:crypto and remembered for the 50,000 latest.
 */
function base58(hex41: string): string {
  const key = hex41.toLowerCase();
  const hit = base58Cache.get(key);
  if (hit !== undefined) return hit;
  const payload = Buffer.from(key, 'hex');
  const check = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest().subarray(0, 4);
  const bytes = Buffer.concat([payload, check]);
  const digits = [0];
  for (const byte of bytes) {
    let carry = byte;
    for (let j = 0; j < digits.length; j += 1) {
      carry += digits[j]! << 8;
      digits[j] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let text = '';
  for (let k = 0; k < bytes.length - 1 && bytes[k] === 0; k += 1) text += '1';
  for (let q = digits.length - 1; q >= 0; q -= 1) text += BASE58[digits[q]!];
  if (base58Cache.size >= 50_000) base58Cache.delete(base58Cache.keys().next().value!);
  base58Cache.set(key, text);
  return text;
}
const topicAddress = (topic: string): string => base58(`41${topic.slice(-40)}`);
const big = (n: unknown): bigint => (typeof n === 'number' && Number.isSafeInteger(n) ? BigInt(n) : 0n);

async function trxBalance(node: NodeCaller, address: string): Promise<bigint> {
  const account = await node.request<{ balance?: number }>('solidity', 'walletsolidity/getaccount', { address, visible: true });
  return big(account.balance);
}

async function tokenBalance(node: NodeCaller, address: string, contract: string): Promise<bigint> {
  const holder = TronWeb.address.toHex(address).slice(2).padStart(64, '0');
  const reply = await node.request<{ result?: { result?: boolean; message?: string }; constant_result?: string[] }>('solidity', 'walletsolidity/triggerconstantcontract', {
    owner_address: address, contract_address: contract, function_selector: 'balanceOf(address)', parameter: holder, visible: true,
  });
  const out = reply.constant_result?.[0];
  if (reply.result?.result !== true || reply.result.message !== undefined || typeof out !== 'string' || !/^[0-9a-f]{1,64}$/i.test(out)) {
    throw new ChainError('CHAIN-BALANCE-QUERY-FAILED', `balanceOf(${address}) on ${contract} did not answer a value`, { transient: true });
  }
  return BigInt(`0x${out}`);
}

/** Reduces a block and its transaction infos to transfers and per-account balance changes (see the file comment). */
function toChainBlock(block: BlockJson, infos: readonly InfoJson[]): ChainBlock {
  const header = block.block_header?.raw_data ?? {};
  const byId = new Map(infos.map((i) => [i.id ?? '', i]));
  const transfers: BlockTransfer[] = [];
  const receipts: BlockReceipt[] = [];
  const uncertain = new Set<string>();
  const net = new Map<string, BalanceChange>();
  const add = (address: string, contract: string | null, delta: bigint): void => {
    const key = `${address}|${contract ?? ''}`;
    net.set(key, { address, contract, delta: (net.get(key)?.delta ?? 0n) + delta });
  };
  for (const tx of block.transactions ?? []) {
    const txid = tx.txID ?? '';
    const info = byId.get(txid) ?? {};
    receipts.push(receiptOf(txid, info, header.number ?? 0));
    const contract = tx.raw_data?.contract?.[0];
    const value = contract?.parameter?.value ?? {};
    if (typeof value['owner_address'] !== 'string') continue;
    const owner = base58(value['owner_address']);
    const ok = tx.ret?.[0]?.contractRet === 'SUCCESS';
    add(owner, null, -big(info.fee) + big(info.withdraw_amount) + big(info.withdraw_expire_amount) + big(info.unfreeze_amount));
    if (!ok) continue;
    const moved = (to: string, amount: bigint): void => {
      add(owner, null, -amount);
      add(to, null, amount);
    };
    switch (contract?.type) {
      case 'TransferContract': {
        const to = base58(String(value['to_address']));
        const amount = big(value['amount']);
        moved(to, amount);
        transfers.push({ id: txid, txid, contract: null, internal: false, from: owner, to, amount });
        break;
      }
      case 'TriggerSmartContract':
        if (big(value['call_value']) > 0n) moved(base58(String(value['contract_address'])), big(value['call_value']));
        break;
      case 'CreateSmartContract': {
        const callValue = big((value['new_contract'] as Json | undefined)?.['call_value']);
        if (callValue > 0n && typeof info.contract_address === 'string') moved(base58(info.contract_address), callValue);
        break;
      }
      case 'FreezeBalanceV2Contract':
      case 'FreezeBalanceContract':
        add(owner, null, -big(value['frozen_balance']));
        break;
      default:
        // Kinds that move no TRX beyond the fee and the withdrawals TransactionInfo reports; any other is uncertain.
        if (!FEE_ONLY.has(contract?.type ?? '')) uncertain.add(owner);
        break;
    }
    (info.internal_transactions ?? []).forEach((it, i) => {
      if (it.rejected === true || !VALUE_NOTES.has(it.note ?? '') || it.caller_address === undefined || it.transferTo_address === undefined) return;
      const amount = (it.callValueInfo ?? []).filter((v) => v.tokenId === undefined || v.tokenId === '').reduce((n, v) => n + big(v.callValue), 0n);
      if (amount === 0n) return;
      const [from, to] = [base58(it.caller_address), base58(it.transferTo_address)];
      add(from, null, -amount);
      add(to, null, amount);
      transfers.push({ id: `${txid}:internal:${i}`, txid, contract: null, internal: true, from, to, amount });
    });
    (info.log ?? []).forEach((log, i) => {
      const topics = log.topics ?? [];
      // Exactly three topics: TRC20's Transfer(from, to, value); TRC721's has a fourth (the indexed token id).
      if (topics.length !== 3 || topics[0] !== TRANSFER_TOPIC || log.address === undefined) return;
      const token = base58(`41${log.address}`);
      const [from, to] = [topicAddress(topics[1]!), topicAddress(topics[2]!)];
      const amount = BigInt(`0x${log.data === undefined || log.data === '' ? '0' : log.data.slice(0, 64)}`);
      add(from, token, -amount);
      add(to, token, amount);
      transfers.push({ id: `${txid}:log:${i}`, txid, contract: token, internal: false, from, to, amount });
    });
  }
  return {
    number: header.number ?? 0,
    hash: (block.blockID ?? '').toLowerCase(),
    parentHash: (header.parentHash ?? '').toLowerCase(),
    timestamp: header.timestamp ?? 0,
    transfers,
    changes: [...net.values()],
    uncertain: [...uncertain],
    receipts,
  };
}

/** A transaction's receipt from its info, read exactly as the gateway reads one it looks up (toTransactionState). */
function receiptOf(txid: string, info: InfoJson, blockNumber: number): BlockReceipt {
  const state = toTransactionState({ ...(info as TransactionInfoJson), id: txid, blockNumber }, blockNumber, false);
  if (state.state === 'failed') {
    return { txid: txid.toLowerCase(), success: false, reason: state.reason, feeSun: state.feeSun, netFeeSun: state.netFeeSun ?? 0n, energyFeeSun: state.energyFeeSun ?? 0n, energyUsed: 0 };
  }
  const ok = state as Extract<typeof state, { state: 'confirmed' }>;
  return {
    txid: txid.toLowerCase(), success: true, reason: null, feeSun: ok.feeSun, netFeeSun: ok.netFeeSun ?? 0n, energyFeeSun: ok.energyFeeSun ?? 0n,
    energyUsed: ok.energyUsed,
  };
}
