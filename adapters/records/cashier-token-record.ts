import type { CashierToken, CashierTokenTtl } from '../../core/domain/model/cashier-token.js';
import type { NetworkCode } from '../../core/domain/model/common.js';
import type { PaymentCollectMark, PaymentRequest, PaymentStatus } from '../../core/domain/model/payment-request.js';
import { decodeMoney, encodeMoney, nullable } from './record-support.js';
import { describeRecord } from './record-descriptor.js';

/** A token's payment request (issue #25) as stored: amounts as decimal strings. */
export interface StoredPaymentRequest {
  assetSymbol: string;
  amount: string;
  reference: string | null;
  description: string | null;
  deadline: number;
  status: PaymentStatus;
  received: string;
  collect: PaymentCollectMark | null;
  watched: boolean;
  /** A forward waiting after a refusal (issue #34); absent when none (and on requests stored before it existed). */
  forwardWait?: { code: string; reason: string; attempts: number; since: number; nextAttemptAt: number };
  /** The started forward's task the worker follows (issue #34); absent when none. */
  forwardTask?: string;
  /** Its refunds (issue #36), amounts as decimal strings; absent when none. */
  refunds?: { commandNo: string; amount: string; requestedAt: number }[];
}

/** `cashier_tokens`: `id` is token_no; `tokenHash` is unique. */
export interface StoredCashierToken {
  id: string;
  tokenHash: string;
  userId: number;
  walletAddressId: number;
  address: string;
  networkCode: NetworkCode;
  status: 'active' | 'disabled';
  ttlMinutes: CashierTokenTtl;
  expiresAt: number;
  disabledAt: number | null;
  disableReason: string | null;
  createdAt: number;
  version: number;
  /** Null (or missing, on tokens stored before issue #25): a token without a payment request. */
  payment?: StoredPaymentRequest | null;
}

/** Payment request -> stored form (shared: the unit of work writes it alone, see ChangeSet.payments). */
export function toStoredPaymentRequest(p: PaymentRequest): StoredPaymentRequest {
  return {
    assetSymbol: p.assetSymbol, amount: encodeMoney(p.amount), reference: p.reference, description: p.description,
    deadline: p.deadline, status: p.status, received: encodeMoney(p.received), collect: p.collect, watched: p.watched,
    ...(p.forwardWait === undefined ? {} : { forwardWait: { ...p.forwardWait } }),
    ...(p.forwardTask === undefined ? {} : { forwardTask: p.forwardTask }),
    ...(p.refunds === undefined || p.refunds.length === 0 ? {} : {
      refunds: p.refunds.map((r) => ({ commandNo: r.commandNo, amount: encodeMoney(r.amount), requestedAt: r.requestedAt })),
    }),
  };
}

/** Stored form -> payment request. */
export function fromStoredPaymentRequest(r: StoredPaymentRequest): PaymentRequest {
  return {
    assetSymbol: r.assetSymbol, amount: decodeMoney(r.amount, 'payment amount'), reference: nullable(r.reference),
    description: nullable(r.description), deadline: r.deadline, status: r.status,
    received: decodeMoney(r.received, 'payment received'), collect: nullable(r.collect), watched: r.watched,
    ...(r.forwardWait == null ? {} : { forwardWait: { ...r.forwardWait } }),
    ...(r.forwardTask == null ? {} : { forwardTask: r.forwardTask }),
    ...(r.refunds == null || r.refunds.length === 0 ? {} : {
      refunds: r.refunds.map((f) => ({ commandNo: f.commandNo, amount: decodeMoney(f.amount, 'refund amount'), requestedAt: f.requestedAt })),
    }),
  };
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredCashierToken(token: CashierToken): StoredCashierToken {
  return {
    id: token.tokenNo,
    tokenHash: token.tokenHash,
    userId: token.userId,
    walletAddressId: token.walletAddressId,
    address: token.address,
    networkCode: token.networkCode,
    status: token.status,
    ttlMinutes: token.ttlMinutes,
    expiresAt: token.expiresAt,
    disabledAt: token.disabledAt,
    disableReason: token.disableReason,
    createdAt: token.createdAt,
    version: token.version,
    payment: token.payment === undefined ? null : toStoredPaymentRequest(token.payment),
  };
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredCashierToken(doc: StoredCashierToken): CashierToken {
  return {
    tokenNo: doc.id,
    tokenHash: doc.tokenHash,
    userId: doc.userId,
    walletAddressId: doc.walletAddressId,
    address: doc.address,
    networkCode: doc.networkCode,
    status: doc.status,
    ttlMinutes: doc.ttlMinutes,
    expiresAt: doc.expiresAt,
    disabledAt: nullable(doc.disabledAt),
    disableReason: nullable(doc.disableReason),
    createdAt: doc.createdAt,
    version: doc.version,
    ...(doc.payment == null ? {} : { payment: fromStoredPaymentRequest(doc.payment) }),
  };
}

/** Cashier tokens; the payment request as JSONB (a request's reference and deadline are read by queries). */
export const CASHIER_TOKEN_RECORD = describeRecord({
  name: 'cashier token', table: 'cashier_tokens', collection: 'cashier_tokens', encode: toStoredCashierToken, decode: fromStoredCashierToken,
  fields: {
    id: 'token_no', tokenHash: 'token_hash', userId: 'user_id', walletAddressId: 'wallet_address_id', address: 'address',
    networkCode: 'network_code', status: 'status', ttlMinutes: 'ttl_minutes', expiresAt: 'expires_at', disabledAt: 'disabled_at',
    disableReason: 'disable_reason', createdAt: 'created_at', version: 'version', payment: { column: 'payment', codec: 'jsonb' },
  },
});
