import type { Millis, NetworkCode, UserId, Versioned } from './common.js';
import type { PaymentRequest } from './payment-request.js';

export const CASHIER_TOKEN_TTLS = [60, 120, 480, 1440] as const;
export type CashierTokenTtl = (typeof CASHIER_TOKEN_TTLS)[number];
export const DEFAULT_CASHIER_TOKEN_TTL: CashierTokenTtl = 60;
export const CASHIER_TOKEN_PREFIX = 'ct_';

export interface CashierToken extends Versioned {
  readonly tokenNo: string;
  /** SHA-256 hex of the `ct_` bearer value, which is returned only in the create response. */
  readonly tokenHash: string;
  readonly userId: UserId;
  readonly walletAddressId: number;
  readonly address: string;
  readonly networkCode: NetworkCode;
  readonly status: 'active' | 'disabled';
  readonly ttlMinutes: CashierTokenTtl;
  readonly expiresAt: Millis;
  readonly disabledAt: Millis | null;
  readonly disableReason: string | null;
  readonly createdAt: Millis;
  /** The payment request made with the token (issue #25, an extension); absent: the spec's token, no amount. */
  readonly payment?: PaymentRequest;
}
