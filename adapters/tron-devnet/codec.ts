/**
 * Thin wrappers around tronweb's own protobuf, address and crypto helpers, so the devnet encodes and hashes
 * transactions byte-for-byte like the client does (no hand-written protobuf here).
 */
import { createHash } from 'node:crypto';
import * as secp from 'tiny-secp256k1';
import { TronWeb, utils } from 'tronweb';

/** A transaction as JSON, the wire shape of java-tron's HTTP API. */
export interface TxJson {
  visible?: boolean;
  txID: string;
  raw_data: RawData;
  raw_data_hex: string;
  signature?: string[];
  ret?: Array<{ contractRet?: string }>;
}

/** raw_data of a transaction. */
export interface RawData {
  contract: Array<{
    parameter: { value: Record<string, unknown>; type_url: string };
    type: string;
    Permission_id?: number;
  }>;
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: number;
  timestamp?: number;
  fee_limit?: number;
  data?: string;
}

/** The protobuf classes tronweb registers globally when it loads. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const proto = (globalThis as any).TronWebProto as { Transaction: any };

/** Normalizes an address (41-hex, 0x-hex or base58) to lowercase 41-prefixed hex; throws on garbage. */
export function toHex41(address: unknown): string {
  if (typeof address !== 'string' || address.length === 0) throw new Error('Invalid address provided');
  let hex: string;
  if (/^(0x)?[0-9a-fA-F]{40}$/.test(address)) hex = '41' + address.replace(/^0x/, '');
  else if (/^41[0-9a-fA-F]{40}$/.test(address)) hex = address;
  else if (TronWeb.isAddress(address)) hex = TronWeb.address.toHex(address);
  else throw new Error('Invalid address provided');
  return hex.toLowerCase();
}

/** Like {@link toHex41} but returns null instead of throwing. */
export function tryHex41(address: unknown): string | null {
  try {
    return toHex41(address);
  } catch {
    return null;
  }
}

/** 41-hex → base58check. */
export function toBase58(hex41: string): string {
  return TronWeb.address.fromHex(hex41);
}

/** Private key (hex) → 41-hex address. */
export function addressOfKey(privateKey: string): string {
  const b58 = TronWeb.address.fromPrivateKey(privateKey);
  if (!b58) throw new Error('invalid private key');
  return toHex41(b58);
}

/** Deterministic private key derived from the devnet seed and a label (never Math.random). */
export function deriveKey(seed: string, label: string): string {
  return createHash('sha256').update(`tron-devnet:${seed}:${label}`).digest('hex');
}

/** sha256 of a string or bytes, hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Encodes a JSON transaction's raw_data to protobuf (tronweb's encoder); throws on unsupported shapes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function encodeTx(tx: { raw_data: RawData; visible?: boolean }): any {
  return utils.transaction.txJsonToPb(tx);
}

/** txID (hex, no 0x) and raw_data_hex for a JSON transaction, recomputed from raw_data as java-tron does. */
export function txIdentity(tx: { raw_data: RawData; visible?: boolean }): { txID: string; rawDataHex: string } {
  return identityOf(encodeTx(tx));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function identityOf(pb: any): { txID: string; rawDataHex: string } {
  // raw_data serialized once: its sha256 is the txID (tronweb's txPbToTxID hashes the same bytes).
  const raw = Buffer.from(pb.getRawData().serializeBinary() as Uint8Array);
  return { txID: sha256Hex(raw), rawDataHex: raw.toString('hex') };
}

/**
 * {@link txIdentity} and {@link txByteSize} of one transaction from one protobuf encoding (a broadcast needs both):
 * the same answers as calling each.
 */
export function txIdentityAndSize(
  tx: { raw_data: RawData; visible?: boolean }, signatures: string[], reserved: number,
): { txID: string; rawDataHex: string; bytes: number } {
  const pb = encodeTx(tx);
  const identity = identityOf(pb);
  for (const sig of signatures) pb.addSignature(Uint8Array.from(Buffer.from(sig.replace(/^0x/, ''), 'hex')));
  return { ...identity, bytes: pb.serializeBinary().length + reserved };
}

/**
 * Bandwidth bytes java-tron charges: the serialized Transaction (raw_data + signatures, without ret) plus 64
 * bytes reserved for the result.
 */
export function txByteSize(tx: { raw_data: RawData; visible?: boolean }, signatures: string[], reserved: number): number {
  const pb = encodeTx(tx);
  for (const sig of signatures) pb.addSignature(Uint8Array.from(Buffer.from(sig.replace(/^0x/, ''), 'hex')));
  return pb.serializeBinary().length + reserved;
}

/**
 * Recovers the signer (41-hex) of txID from a 65-byte signature; null when the signature is malformed. The usual
 * shape (r ‖ s ‖ v with v 0, 1, 27 or 28 and s's top bit clear) is recovered by libsecp256k1 (tiny-secp256k1's
 * WebAssembly build, ~7x faster than tronweb's pure-JS ecRecover); any other shape takes tronweb's path, so every
 * signature gets the answer tronweb's ecRecover (ethers' Signature.from + noble's recoverPublicKey) gives, which
 * codec.test.ts checks on valid and mutated signatures.
 */
export function recoverSigner(txID: string, signature: string): string | null {
  const fast = recoverFast(txID, signature);
  if (fast !== undefined) return fast;
  try {
    return utils.crypto.ecRecover(txID, signature).toLowerCase();
  } catch {
    return null;
  }
}

/** {@link recoverSigner} by libsecp256k1 for the usual shape; undefined for any other (tronweb decides those). */
export function recoverFast(txID: string, signature: string): string | null | undefined {
  const sig = signature.replace(/^0x/, '');
  if (!/^[0-9a-fA-F]{130}$/.test(sig) || !/^(0x)?[0-9a-fA-F]{64}$/.test(txID)) return undefined;
  const bytes = Buffer.from(sig, 'hex');
  const v = bytes[64]!;
  // ethers refuses an s with its top bit set ("non-canonical s") and reads v 0/27 and 1/28 alike; v >= 35 (EIP-155)
  // and the rest are left to it.
  if ((bytes[32]! & 0x80) !== 0 || !(v === 0 || v === 1 || v === 27 || v === 28)) return undefined;
  try {
    const key = secp.recover(Buffer.from(txID.replace(/^0x/, ''), 'hex'), bytes.subarray(0, 64), (v % 27) as 0 | 1, false);
    return key === null ? null : `41${utils.ethersUtils.keccak256(key.subarray(1)).slice(26)}`;
  } catch {
    // r or s zero or not below the curve order, r not an x coordinate: ethers and noble throw on these too.
    return null;
  }
}

/**
 * Signs a txID with a private key, returns the 65-byte hex signature r ‖ s ‖ (27 + recovery id): libsecp256k1's
 * RFC 6979 signature, byte for byte what tronweb's ECKeySign (noble, RFC 6979, low s) makes, in lowercase.
 */
export function signTxId(txID: string, privateKey: string): string {
  const signed = secp.signRecoverable(Buffer.from(txID, 'hex'), Buffer.from(privateKey.padStart(64, '0'), 'hex'));
  return Buffer.from(signed.signature).toString('hex') + (27 + signed.recoveryId).toString(16);
}

/** Decodes a full signed Transaction protobuf (broadcasthex) into JSON raw_data + signatures. */
export function decodeSignedHex(hex: string): { raw_data: RawData; signature: string[]; rawDataHex: string } {
  const pb = proto.Transaction.deserializeBinary(Uint8Array.from(Buffer.from(hex, 'hex')));
  const raw = pb.getRawData();
  const rawDataHex = Buffer.from(raw.serializeBinary()).toString('hex');
  const typeCode: number = raw.getContractList()[0].getType();
  const type = CONTRACT_TYPE_NAMES[typeCode];
  if (!type) throw new Error(`unsupported contract type ${typeCode}`);
  const decoded = utils.deserializeTx.deserializeTransaction(type, rawDataHex);
  const rawData = normalizeDecoded(decoded);
  const signature = (pb.getSignatureList_asU8() as Uint8Array[]).map((s) => Buffer.from(s).toString('hex'));
  return { raw_data: rawData, signature, rawDataHex };
}

/** deserializeTransaction returns proto defaults (zeros, empty strings, uppercase hex); trim to java-tron JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function normalizeDecoded(d: any): RawData {
  const c = d.contract[0];
  const value: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c.parameter.value as Record<string, unknown>)) {
    if (v === 0 || v === '' || v === false || v === undefined) continue;
    value[k] = typeof v === 'string' && /^[0-9A-F]+$/.test(v) ? v.toLowerCase() : v;
  }
  const raw: RawData = {
    contract: [{ parameter: { value, type_url: c.parameter.type_url }, type: c.type }],
    ref_block_bytes: String(d.ref_block_bytes).toLowerCase(),
    ref_block_hash: String(d.ref_block_hash).toLowerCase(),
    expiration: d.expiration,
  };
  if (c.Permission_id) raw.contract[0]!.Permission_id = c.Permission_id;
  if (d.timestamp) raw.timestamp = d.timestamp;
  if (d.fee_limit) raw.fee_limit = d.fee_limit;
  if (d.data) raw.data = String(d.data).toLowerCase();
  return raw;
}

/** Contract type numbers of protocol.Transaction.Contract.ContractType the devnet understands. */
export const CONTRACT_TYPE_NAMES: Record<number, string> = {
  0: 'AccountCreateContract',
  1: 'TransferContract',
  4: 'VoteWitnessContract',
  13: 'WithdrawBalanceContract',
  31: 'TriggerSmartContract',
  54: 'FreezeBalanceV2Contract',
  55: 'UnfreezeBalanceV2Contract',
  56: 'WithdrawExpireUnfreezeContract',
  57: 'DelegateResourceContract',
  58: 'UnDelegateResourceContract',
  59: 'CancelAllUnfreezeV2Contract',
};

/** 4-byte selector of a function signature such as "transfer(address,uint256)". */
export function selectorOf(signature: string): string {
  return utils.ethersUtils.keccak256(Buffer.from(signature.replace(/\s+/g, ''))).slice(2, 10);
}

/** ABI-encodes values (tronweb's encoder), hex without 0x. */
export function abiEncode(types: string[], values: unknown[]): string {
  return utils.abi.encodeParams(types, values).replace(/^0x/, '');
}

/**
 * ABI-decodes a hex payload (no selector) into positional values, as tronweb's decodeParams does: addresses as
 * lowercase 41-hex, integers as bigint. Payloads of only `address` and `uint256` words (every TRC20 call the devnet
 * runs) are read word by word here, with ethers' checks (a length that is a multiple of 64 and covers every type, an
 * address word whose upper 12 bytes are zero); anything else goes to tronweb. codec.test.ts compares the two.
 */
export function abiDecode(types: string[], hex: string): unknown[] {
  if (hex.length % 64 === 0 && hex.length >= 64 * types.length && /^[0-9a-fA-F]*$/.test(hex) && types.every((t) => t === 'address' || t === 'uint256')) {
    return types.map((type, i) => {
      const word = hex.slice(64 * i, 64 * i + 64);
      if (type === 'uint256') return BigInt(`0x${word}`);
      // ethers' AddressCoder: toBeHex(value, 20) refuses a value wider than 20 bytes.
      if (!/^0{24}$/.test(word.slice(0, 24))) throw new Error('value exceeds width');
      return `41${word.slice(24).toLowerCase()}`;
    });
  }
  return abiDecodeTronweb(types, hex);
}

/** {@link abiDecode} by tronweb's decodeParams (ethers' AbiCoder). */
export function abiDecodeTronweb(types: string[], hex: string): unknown[] {
  const names = types.map((_, i) => `p${i}`);
  const out = utils.abi.decodeParams(names, types, '0x' + hex, false) as Record<string, unknown>;
  return names.map((n) => out[n]);
}

/** Hex of the UTF-8 bytes of a message, how java-tron prints bytes fields when visible=false. */
export function utf8Hex(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}
