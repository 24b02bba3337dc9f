import type { BalanceRepository } from '../../ports/balance-repository.port.js';
import type { Clock } from '../../ports/clock.port.js';

/** Cached balances a collection of either asset accepts (1 TRX, 1 USDT): a sweep can move both. */
export const COLLECTABLE: Readonly<Record<'TRX' | 'USDT', bigint>> = { TRX: 1_000_000n, USDT: 1_000_000n };

/**
 * Stores the cached balances of `address` as the balance scanner would (an asset not named holds 0), so that a test
 * about something else can start a collection: POST /collections refuses a cached balance a sweep cannot move
 * (issue #24 item 5). The chain is not touched; the worker reads it again at PENDING.
 */
export async function cacheBalances(
  deps: { readonly balances: BalanceRepository; readonly clock: Clock },
  address: string,
  amounts: Partial<Record<'TRX' | 'USDT', bigint>> = COLLECTABLE,
): Promise<void> {
  const now = deps.clock.now();
  await deps.balances.put({
    address, refreshSource: 1, updatedAt: now,
    items: [{ symbol: 'TRX', available: amounts.TRX ?? 0n, updatedAt: now }, { symbol: 'USDT', available: amounts.USDT ?? 0n, updatedAt: now }],
  });
}
