import type { CashierToken, CashierTokenTtl } from '../../core/domain/model/cashier-token.js';
import type { NetworkCode } from '../../core/domain/model/common.js';
import { nullable } from './mongo-support.js';

/**
 * `cashier_tokens`: `_id` is token_no; `tokenHash` is unique. `activeSlot` (the address) is present while the token
 * may still count as the address's active token; a unique index partial on its existence allows one holder per
 * address. Because expiry is time-based, an expired holder is evicted from the slot (not deleted) by the next insert.
 */
export interface CashierTokenDocument {
  _id: string;
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
  insertedSeq?: number;
  activeSlot?: string;
}

/** Domain value -> stored document: pure, a fresh object (amounts, where any, as decimal strings). */
export function toCashierTokenDocument(token: CashierToken): CashierTokenDocument {
  return {
    _id: token.tokenNo,
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
  };
}

/** Stored document -> domain value; BSON null and a missing field both read as null. */
export function fromCashierTokenDocument(doc: CashierTokenDocument): CashierToken {
  return {
    tokenNo: doc._id,
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
  };
}
