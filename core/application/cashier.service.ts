import { isTokenActive, slideExpiry } from '../domain/cashier-token-rules.js';
import { isTerminalCollectionStatus } from '../domain/collection-machine.js';
import { DomainError, InfrastructureError } from '../domain/errors.js';
import { formatAmount } from '../domain/amount.js';
import { formatIsoTime } from '../domain/time.js';
import { CASHIER_TOKEN_PREFIX } from '../domain/model/cashier-token.js';
import type { CollectionTask } from '../domain/model/collection-task.js';
import type { WalletAddress } from '../domain/model/wallet.js';
import type { CashierContext, CashierService } from './application.js';
import { readBalance, toBalanceItemViews, type BalanceLine, type BalanceViewDeps } from './balance-view.js';
import { assetOf, cachedSweepable, startCollection, sweepableOnChainOrRefuse, type CollectionStarterDeps } from './collection-starter.js';
import type { ResolvedDeps } from './deps.js';
import { fieldsOf, requireString } from './input.js';
import { toCashierTaskView } from './mappers.js';
import { sessionPayment } from './payment-requests.js';
import type { CashierBalanceView, CashierCollectableView, CashierSessionView, CashierTaskView } from './views.js';

/** The ports the cashier use cases touch, with those of reading a balance and starting a collection. */
export type CashierDeps = Pick<ResolvedDeps, 'cashierTokens' | 'developerConfigs' | 'wallets' | 'tasks' | 'assets' | 'hasher' | 'clock' | 'deposits' | 'chain'>
  & BalanceViewDeps & CollectionStarterDeps;

/**
 * The payment API used by a payer with a `ct_` token. A successful call slides the token's expiry
 * (max(current, now + ttl)); a failed one leaves it. The session's tasks are the sub-address's tasks started at or
 * after the token's created_at, whoever started them (the payer, the merchant's POST /collections, the automatic
 * collector or a paid payment request); active_task is the latest (docs/decisions.md 7), and only a non-terminal one
 * blocks another collection (docs/decisions.md 44).
 */
export class CashierUseCases implements CashierService {
  constructor(private readonly deps: CashierDeps) {}

  async authenticateCashier(token: string | null): Promise<CashierContext> {
    if (token === null || token === '') throw new DomainError('CASHIER-TOKEN-MISSING');
    if (!token.startsWith(CASHIER_TOKEN_PREFIX)) throw new DomainError('CASHIER-TOKEN-INVALID');
    const record = await this.deps.cashierTokens.findByTokenHash(this.deps.hasher.hashToken(token));
    if (record === null || !isTokenActive(record, this.deps.clock.now())) throw new DomainError('CASHIER-TOKEN-INVALID');
    return { token: record };
  }

  /**
   * One read of the store (CashierTokenRepository.readSession: on PostgreSQL one statement, the expiry's slide
   * included, issue #37): the wallet, the merchant's configuration, the latest task and a request's deposits.
   */
  async session(ctx: CashierContext): Promise<CashierSessionView> {
    const now = this.deps.clock.now();
    const expiresAt = slideExpiry(ctx.token, now);
    const source = await this.deps.cashierTokens.readSession(ctx.token, expiresAt);
    // Tokens are only issued for existing addresses and addresses are never deleted.
    if (source === null) throw new InfrastructureError('INTERNAL-ERROR', 'cashier token address missing', { transient: false });
    const { wallet, config } = source;
    const task = this.withinSession(ctx, source.latestTask);
    const minimums = Object.entries(config?.minCollectAmounts ?? {}).map(([symbol, min]) => [symbol, formatAmount(min)]);
    const payment = sessionPayment(ctx.token, source.deposits, now);
    const autoCollect = Object.entries(config?.autoCollect ?? {});
    // The extensions appear only when the token or the merchant uses them: otherwise the session is the spec's.
    const extensions = {
      ...(payment === undefined ? {} : { payment: { ...payment.view, merchant_name: config?.displayName ?? null, transfers: payment.transfers } }),
      ...(autoCollect.length === 0 ? {} : {
        auto_collect: Object.fromEntries(autoCollect.map(([symbol, rule]) => [symbol, { min_amount: formatAmount(rule.minAmount) }])),
      }),
    };
    return {
      token_no: ctx.token.tokenNo,
      expires_at: formatIsoTime(expiresAt),
      min_collect_amounts: Object.fromEntries(minimums),
      address: {
        wallet_address_id: wallet.id, address: wallet.address, network_code: wallet.networkCode, address_label: wallet.label,
      },
      active_task: task === null ? null : toCashierTaskView(task),
      ...extensions,
    };
  }

  async balance(ctx: CashierContext): Promise<CashierBalanceView> {
    const { wallet, balance } = await this.readBalance(ctx);
    return {
      address: wallet.address,
      items: toBalanceItemViews(balance.lines, formatIsoTime),
      balance_updated_at: formatIsoTime(balance.updatedAt),
    };
  }

  /**
   * The balance as {@link balance} reads it, each asset with what a collection would move by the sweepable rule:
   * dust is never offered to the payer (issue #24 item 5).
   */
  async collectable(ctx: CashierContext): Promise<CashierCollectableView> {
    const { wallet, balance } = await this.readBalance(ctx);
    const collectable = (line: BalanceLine): bigint => {
      const asset = this.deps.assets.find(wallet.networkCode, line.symbol);
      return asset === null ? 0n : cachedSweepable(asset, line.available);
    };
    return {
      address: wallet.address,
      items: balance.lines.map((line) => ({
        ...toBalanceItemViews([line], formatIsoTime)[0]!, balance_collectable: formatAmount(collectable(line)),
      })),
      balance_updated_at: formatIsoTime(balance.updatedAt),
    };
  }

  async task(ctx: CashierContext): Promise<CashierTaskView | null> {
    const task = await this.sessionTask(ctx);
    await this.slide(ctx);
    return task === null ? null : toCashierTaskView(task);
  }

  /**
   * Order: asset_symbol (VALIDATION-ERROR, BIZ-ASSET-NOT-FOUND), risk (403), then under the address lock: an active
   * command or a non-terminal task of this session (409 BIZ-COMMAND-LOCKED), then the cached balance of the asset:
   * dust (nothing a sweep can move), or a sweepable amount below the user's minimum for it, is 422
   * BIZ-AMOUNT-BELOW-MINIMUM before any task exists. A DONE or FAILED latest task does not block: the payer may
   * collect again while the token is valid.
   */
  async collect(ctx: CashierContext, body: unknown): Promise<CashierTaskView> {
    const symbol = requireString(fieldsOf(body), 'asset_symbol', 32);
    const wallet = await this.walletOf(ctx);
    const asset = assetOf(this.deps, wallet, symbol);
    const task = await startCollection(this.deps, wallet, asset, async (available) => {
      const latest = await this.sessionTask(ctx);
      if (latest !== null && !isTerminalCollectionStatus(latest.status)) throw new DomainError('BIZ-COMMAND-LOCKED');
      // The minimum counts what a sweep would move, never dust.
      const amount = await sweepableOnChainOrRefuse(this.deps.chain, asset, wallet.address, available);
      const config = await this.deps.developerConfigs.get(wallet.userId);
      const minimum = config?.minCollectAmounts[asset.symbol];
      if (minimum !== undefined && amount < minimum) throw new DomainError('BIZ-AMOUNT-BELOW-MINIMUM');
    });
    await this.slide(ctx);
    return toCashierTaskView(task);
  }

  /** The session address's cached balance (no chain query); a successful read slides the expiry. */
  private async readBalance(ctx: CashierContext): Promise<{ wallet: WalletAddress; balance: Awaited<ReturnType<typeof readBalance>> }> {
    const wallet = await this.walletOf(ctx);
    const balance = await readBalance(this.deps, wallet);
    await this.slide(ctx);
    return { wallet, balance };
  }

  private async walletOf(ctx: CashierContext): Promise<WalletAddress> {
    const wallet = await this.deps.wallets.findById(ctx.token.walletAddressId);
    // Tokens are only issued for existing addresses and addresses are never deleted.
    if (wallet === null) throw new InfrastructureError('INTERNAL-ERROR', 'cashier token address missing', { transient: false });
    return wallet;
  }

  /** The latest task of the address when it started within this token's session, else null. */
  private async sessionTask(ctx: CashierContext): Promise<CollectionTask | null> {
    return this.withinSession(ctx, await this.deps.tasks.findLatestByAddress(ctx.token.address));
  }

  /** The address's latest task when it started within this token's session, else null. */
  private withinSession(ctx: CashierContext, latest: CollectionTask | null): CollectionTask | null {
    return latest !== null && latest.startedAt >= ctx.token.createdAt ? latest : null;
  }

  /** Slides the expiry after a successful call; returns the new expiry. */
  private async slide(ctx: CashierContext): Promise<number> {
    const expiresAt = slideExpiry(ctx.token, this.deps.clock.now());
    await this.deps.cashierTokens.extendExpiry(ctx.token.tokenNo, expiresAt);
    return expiresAt;
  }
}
