/**
 * Broadcast-time checks of a signed transaction, in java-tron's order (Manager.processTransaction): shape,
 * duplicate, TaPoS, expiration, size, signature. Failures are {@link TxError}s carrying api.Return codes.
 */
import { MAX_EXPIRATION_AHEAD_MS, MAX_TX_SIZE, TAPOS_WINDOW, TX_RESULT_RESERVED_BYTES } from './constants.js';
import { recoverSigner, toBase58, toHex41, tryHex41, txIdentityAndSize, type RawData } from './codec.js';
import { TxError, type SignedTx } from './executor.js';

/** The block fields TaPoS needs. */
interface BlockRef {
  number: number;
  id: string;
  time: number;
}

/**
 * Parses a broadcast body into a {@link SignedTx}. Like java-tron, the txID is recomputed from `raw_data`
 * (raw_data_hex and txID in the body are ignored), so a tampered body changes the txID and fails the signature.
 * Addresses may be base58 (visible=true) or hex; they are stored as 41-hex.
 */
export function parseSignedTx(body: unknown): SignedTx {
  const b = body as { raw_data?: RawData; signature?: unknown } | null;
  const raw = b?.raw_data;
  if (!raw || !Array.isArray(raw.contract) || raw.contract.length !== 1 || !raw.contract[0]?.parameter?.value) {
    throw new TxError('OTHER_ERROR', 'Other error: invalid transaction: contract size should be exactly 1');
  }
  const signature = Array.isArray(b.signature) ? b.signature.map((x) => String(x).replace(/^0x/, '').toLowerCase()) : [];
  try {
    const c = raw.contract[0];
    const value = { ...c.parameter.value };
    for (const k of ['owner_address', 'to_address', 'receiver_address', 'contract_address']) {
      if (value[k] !== undefined) value[k] = toHex41(value[k]);
    }
    if (Array.isArray(value['votes'])) {
      value['votes'] = (value['votes'] as Array<Record<string, unknown>>).map((v) => ({ ...v, vote_address: toHex41(v['vote_address']) }));
    }
    const rawData: RawData = { ...raw, contract: [{ ...c, parameter: { ...c.parameter, value } }] };
    const { txID, rawDataHex, bytes } = txIdentityAndSize({ raw_data: rawData }, signature, TX_RESULT_RESERVED_BYTES);
    const owner = tryHex41(value['owner_address']);
    if (!owner) throw new Error('Invalid ownerAddress');
    return { txID, raw_data: rawData, raw_data_hex: rawDataHex, signature, bytes, type: c.type, owner };
  } catch (e) {
    throw new TxError('OTHER_ERROR', `Other error: ${(e as Error).message}`);
  }
}

/** Runs the checks; `known` says whether the txID is already in a block or the pending pool. */
export function checkTx(tx: SignedTx, known: boolean, blocks: readonly BlockRef[]): void {
  if (known) throw new TxError('DUP_TRANSACTION_ERROR', 'Dup transaction.');
  const head = blocks[blocks.length - 1]!;
  // ref_block_bytes holds the low 16 bits of the referenced number: resolve it to the latest such block.
  const refNum = parseInt(tx.raw_data.ref_block_bytes, 16);
  const n = head.number - ((((head.number - refNum) % TAPOS_WINDOW) + TAPOS_WINDOW) % TAPOS_WINDOW);
  const ref = n >= 0 ? blocks[n] : undefined;
  if (!ref || Number.isNaN(refNum) || ref.id.slice(16, 32) !== String(tx.raw_data.ref_block_hash).toLowerCase()) {
    throw new TxError('TAPOS_ERROR', 'Tapos check error.');
  }
  const exp = Number(tx.raw_data.expiration);
  if (!(exp > head.time) || exp > head.time + MAX_EXPIRATION_AHEAD_MS) {
    throw new TxError('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
  }
  if (tx.bytes > MAX_TX_SIZE) throw new TxError('TOO_BIG_TRANSACTION_ERROR', 'Transaction size is too big.');
  if (tx.signature.length === 0) throw new TxError('SIGERROR', 'Validate signature error: miss sig or contract');
  for (const sig of tx.signature) {
    const signer = recoverSigner(tx.txID, sig);
    if (signer !== tx.owner) {
      const who = signer ? toBase58(signer) : 'an invalid key';
      throw new TxError('SIGERROR', `Validate signature error: ${sig} is signed by ${who} but it is not contained of permission.`);
    }
  }
}
