import type { NetworkCode } from '../../core/domain/model/common.js';
import type { AutoCollectMark, Deposit, DepositStatus } from '../../core/domain/model/deposit.js';
import { decodeMoney, encodeMoney, nullable } from './record-support.js';
import { describeRecord } from './record-descriptor.js';

/**
 * `deposits`: `id` is the deposit id; `amount` a decimal string. Unique in every store: (networkCode, transferId),
 * the one-record-per-transfer rule.
 */
export interface StoredDeposit {
  id: string;
  transferId: string;
  userId: number;
  address: string;
  networkCode: NetworkCode;
  assetSymbol: string;
  amount: string;
  fromAddress: string;
  txid: string;
  blockNumber: number;
  status: DepositStatus;
  detectedAt: number;
  confirmedAt: number | null;
  /** The automatic collection trigger (issue #24 item 4); absent or null: never one. */
  autoCollect?: AutoCollectMark | null;
  /** The started trigger's task being followed (issue #34); absent or null: none. */
  autoCollectTask?: string | null;
  version: number;
}

/** Domain value -> stored record: pure, a fresh object, the amount as a decimal string. */
export function toStoredDeposit(d: Deposit): StoredDeposit {
  return {
    id: d.depositId, transferId: d.transferId, userId: d.userId, address: d.address, networkCode: d.networkCode,
    assetSymbol: d.assetSymbol, amount: encodeMoney(d.amount), fromAddress: d.fromAddress, txid: d.txid, blockNumber: d.blockNumber,
    status: d.status, detectedAt: d.detectedAt, confirmedAt: d.confirmedAt, version: d.version,
    ...(d.autoCollect === undefined ? {} : { autoCollect: d.autoCollect }),
    ...(d.autoCollectTask === undefined ? {} : { autoCollectTask: d.autoCollectTask }),
  };
}

/** Stored record -> domain value; null and a missing `confirmedAt` both read as null; a malformed amount is a store fault. */
export function fromStoredDeposit(r: StoredDeposit): Deposit {
  return {
    depositId: r.id, transferId: r.transferId, userId: r.userId, address: r.address, networkCode: r.networkCode,
    assetSymbol: r.assetSymbol, amount: decodeMoney(r.amount, 'deposit amount'), fromAddress: r.fromAddress, txid: r.txid,
    blockNumber: r.blockNumber, status: r.status, detectedAt: r.detectedAt, confirmedAt: nullable(r.confirmedAt), version: r.version,
    ...(r.autoCollect === undefined || r.autoCollect === null ? {} : { autoCollect: r.autoCollect }),
    ...(r.autoCollectTask === undefined || r.autoCollectTask === null ? {} : { autoCollectTask: r.autoCollectTask }),
  };
}

/** Deposits, one per (network, transfer): that identity is matched by a replace, never written. */
export const DEPOSIT_RECORD = describeRecord({
  name: 'deposit', table: 'deposits', collection: 'deposits', encode: toStoredDeposit, decode: fromStoredDeposit,
  fixed: ['transferId', 'networkCode'],
  fields: {
    id: 'deposit_id', transferId: 'transfer_id', userId: 'user_id', address: 'address', networkCode: 'network_code',
    assetSymbol: 'asset_symbol', amount: 'amount', fromAddress: 'from_address', txid: 'txid', blockNumber: 'block_number',
    status: 'status', detectedAt: 'detected_at', confirmedAt: 'confirmed_at', autoCollect: 'auto_collect',
    autoCollectTask: 'auto_collect_task', version: 'version',
  },
});
