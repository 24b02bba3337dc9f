import type { Millis } from './common.js';

export const REFRESH_SOURCE = { AUTO: 1, MANUAL: 2 } as const;
export type RefreshSource = (typeof REFRESH_SOURCE)[keyof typeof REFRESH_SOURCE];

export interface BalanceItem {
  readonly symbol: string;
  /** Smallest unit (SUN for TRX, 10^-6 for USDT). Money is bigint inside. */
  readonly available: bigint;
  readonly updatedAt: Millis;
}

/**
 * Cached balances of one address. `balance_locked` is not stored: it is the amount held by the running
 * fund-moving command of that asset, computed when the snapshot is read (see application/balances).
 */
export interface BalanceSnapshot {
  readonly address: string;
  readonly items: readonly BalanceItem[];
  readonly refreshSource: RefreshSource;
  readonly updatedAt: Millis;
}
