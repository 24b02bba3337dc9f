import { formatAmount } from '../domain/amount.js';
import type { Asset } from '../domain/model/asset.js';
import { REFRESH_SOURCE, type BalanceSnapshot, type RefreshSource } from '../domain/model/balance.js';
import { DomainError } from '../domain/errors.js';
import type { Millis } from '../domain/model/common.js';
import type { WalletAddress } from '../domain/model/wallet.js';
import type { BalanceViewSource } from '../ports/balance-repository.port.js';
import type { ResolvedDeps } from './deps.js';
import type { TimeFormat } from './mappers.js';
import type { BalanceItemView } from './views.js';

/** One asset's cached balance split into available and locked (bigint, before formatting). */
export interface BalanceLine {
  readonly symbol: string;
  readonly available: bigint;
  readonly locked: bigint;
  readonly updatedAt: Millis;
}

/**
 * Every asset of the network, in registry order. `locked` is the lockedAmount of the address's active fund-moving
 * command when it acts on that asset (docs/decisions.md 5), and is held from the cached balance: available = cached -
 * locked, never below 0. An asset the snapshot does not hold (never refreshed) shows 0 at `fallbackAt`.
 */
export function balanceLines(
  assets: readonly Asset[], snapshot: BalanceSnapshot | null, active: BalanceViewSource['active'], fallbackAt: Millis,
): BalanceLine[] {
  return assets.map((asset) => {
    const cached = snapshot?.items.find((item) => item.symbol === asset.symbol);
    const locked = active !== null && active.assetSymbol === asset.symbol ? active.lockedAmount : 0n;
    const stored = cached?.available ?? 0n;
    return {
      symbol: asset.symbol,
      available: stored > locked ? stored - locked : 0n,
      locked,
      updatedAt: cached?.updatedAt ?? snapshot?.updatedAt ?? fallbackAt,
    };
  });
}

/** Wire form of the lines with the given timestamp format. */
export function toBalanceItemViews(lines: readonly BalanceLine[], format: TimeFormat): BalanceItemView[] {
  return lines.map((line) => ({
    symbol: line.symbol,
    balance_available: formatAmount(line.available),
    balance_locked: formatAmount(line.locked),
    balance_updated_at: format(line.updatedAt),
  }));
}

/** The ports that reading a wallet's balance touches. */
export type BalanceViewDeps = Pick<ResolvedDeps, 'balances' | 'assets'>;

/** A wallet's cached balance with the locks of its active command applied. */
export interface BalanceRead {
  readonly lines: BalanceLine[];
  readonly refreshSource: RefreshSource;
  readonly updatedAt: Millis;
}

/** The cached snapshot of a wallet with the locks of its active command applied (no chain query; one store read). */
export async function readBalance(deps: BalanceViewDeps, wallet: Pick<WalletAddress, 'address'>): Promise<BalanceRead> {
  const source = await deps.balances.readView(wallet.address);
  // Addresses are never deleted: a wallet the caller holds is in the store.
  if (source === null) throw new DomainError('BIZ-WALLET-ADDRESS-NOT-FOUND');
  return balanceOf(deps, source);
}

/** The balance a read view shows: every asset of the wallet's network, in registry order. */
export function balanceOf(deps: Pick<BalanceViewDeps, 'assets'>, source: BalanceViewSource): BalanceRead {
  const { wallet, snapshot, active } = source;
  return {
    lines: balanceLines(deps.assets.list(wallet.networkCode), snapshot, active, wallet.createdAt),
    refreshSource: snapshot?.refreshSource ?? REFRESH_SOURCE.AUTO,
    updatedAt: snapshot?.updatedAt ?? wallet.createdAt,
  };
}
