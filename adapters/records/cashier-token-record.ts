import type { CashierToken, CashierTokenTtl } from '../../core/domain/model/cashier-token.js';
import type { NetworkCode } from '../../core/domain/model/common.js';
import { nullable } from './record-support.js';

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
  };
}
