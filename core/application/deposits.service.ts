import { DomainError, validationError } from '../domain/errors.js';
import { parsePageQuery, toItemsPage, type ItemsPage } from '../domain/pagination.js';
import { formatWalletTime } from '../domain/time.js';
import type { UserId } from '../domain/model/common.js';
import { DEPOSIT_STATUSES, type Deposit, type DepositStatus } from '../domain/model/deposit.js';
import type { DepositFilter } from '../ports/deposit-repository.port.js';
import type { ResolvedDeps } from './deps.js';
import { fieldsOf, optionalString, type Fields } from './input.js';
import { ownedWallet } from './ownership.js';

/** A deposit on the wire: snake_case, the amount an integer string, times as the wallet routes print them (UTC). */
export interface DepositView {
  readonly deposit_id: string;
  readonly address: string;
  readonly network_code: string;
  readonly asset_symbol: string;
  readonly amount: string;
  readonly from_address: string;
  readonly txid: string;
  readonly block_number: number;
  readonly status: DepositStatus;
  readonly detected_at: string;
  /** Null until the deposit is confirmed. */
  readonly confirmed_at: string | null;
  /**
   * Only on a deposit that triggered an automatic collection (config.auto_collect, an extension; issue #34): `pending`
   * while the worker has not started it (judged every minute: it waits while no energy source can cover the sweep or
   * its plan costs more than max_fee_sun), then `started` or `skipped`.
   */
  readonly auto_collect?: 'pending' | 'started' | 'skipped';
}

/** Deposit records (issue #24), owner-scoped. */
export interface DepositsService {
  /** query {address?, asset_symbol?, status?, page?, per_page?}: the caller's deposits, newest first. */
  list(userId: UserId, query: unknown): Promise<ItemsPage<DepositView>>;
  /** The caller's deposits to one of its addresses (BIZ-WALLET-ADDRESS-NOT-FOUND otherwise); query as `list` without `address`. */
  listOfWallet(userId: UserId, address: string, query: unknown): Promise<ItemsPage<DepositView>>;
  /** One of the caller's deposits; DEPOSIT-NOT-FOUND when unknown or another user's. */
  get(userId: UserId, depositId: string): Promise<DepositView>;
}

/** The ports the deposit reads touch. */
export type DepositsDeps = Pick<ResolvedDeps, 'deposits' | 'wallets' | 'assets'>;

export function toDepositView(d: Deposit): DepositView {
  return {
    deposit_id: d.depositId, address: d.address, network_code: d.networkCode, asset_symbol: d.assetSymbol, amount: d.amount.toString(),
    from_address: d.fromAddress, txid: d.txid, block_number: d.blockNumber, status: d.status, detected_at: formatWalletTime(d.detectedAt),
    confirmed_at: d.confirmedAt === null ? null : formatWalletTime(d.confirmedAt),
    ...(d.autoCollect === undefined ? {} : { auto_collect: d.autoCollect === 'due' ? 'pending' : d.autoCollect }),
  };
}

/** Lists and reads the deposits the balance scanner recorded. */
export class DepositsUseCases implements DepositsService {
  constructor(private readonly deps: DepositsDeps) {}

  async list(userId: UserId, query: unknown): Promise<ItemsPage<DepositView>> {
    const fields = fieldsOf(query, 'query');
    const address = nonEmpty(fields, 'address', 64);
    return this.page(userId, fields, address === undefined ? {} : { address });
  }

  async listOfWallet(userId: UserId, address: string, query: unknown): Promise<ItemsPage<DepositView>> {
    const fields = fieldsOf(query, 'query');
    const wallet = await ownedWallet(this.deps.wallets, userId, address);
    return this.page(userId, fields, { address: wallet.address });
  }

  async get(userId: UserId, depositId: string): Promise<DepositView> {
    const deposit = await this.deps.deposits.findById(depositId);
    if (deposit === null || deposit.userId !== userId) throw new DomainError('DEPOSIT-NOT-FOUND');
    return toDepositView(deposit);
  }

  private async page(userId: UserId, fields: Fields, base: DepositFilter): Promise<ItemsPage<DepositView>> {
    const assetSymbol = nonEmpty(fields, 'asset_symbol', 32);
    if (assetSymbol !== undefined && !this.deps.assets.list('TRON').some((a) => a.symbol === assetSymbol)) {
      throw validationError('asset_symbol', `must be one of ${this.deps.assets.list('TRON').map((a) => a.symbol).join(', ')}`);
    }
    const statusText = nonEmpty(fields, 'status', 16);
    const status = DEPOSIT_STATUSES.find((st) => st === statusText);
    if (statusText !== undefined && status === undefined) throw validationError('status', `must be one of ${DEPOSIT_STATUSES.join(', ')}`);
    const page = parsePageQuery(fields, 'standard');
    const filter: DepositFilter = { ...base, ...(assetSymbol === undefined ? {} : { assetSymbol }), ...(status === undefined ? {} : { status }) };
    const found = await this.deps.deposits.listByUser(userId, filter, page);
    return toItemsPage(found.items.map(toDepositView), found.total, page.page, page.perPage);
  }
}

/** An optional query string that, when given, is not empty. */
function nonEmpty(fields: Fields, field: string, maxLength: number): string | undefined {
  const value = optionalString(fields, field, maxLength);
  if (value === null) return undefined;
  if (value.length === 0) throw validationError(field, 'must not be empty');
  return value;
}
