import { validationError } from '../domain/errors.js';
import { LEDGER_ACCOUNT_KINDS, NAMED_HOLDER_ACCOUNT_KINDS, type LedgerAccountKind, type LedgerEntry } from '../domain/ledger.js';
import { statementOf } from '../domain/ledger-statement.js';
import type { UserId } from '../domain/model/common.js';
import { parsePageQuery, toItemsPage, type ItemsPage } from '../domain/pagination.js';
import { formatIsoTime, parseIsoTime } from '../domain/time.js';
import type { LedgerEntryFilter } from '../ports/ledger.port.js';
import type { ResolvedDeps } from './deps.js';
import { fieldsOf, optionalString, type Fields } from './input.js';
import { LEDGER_ENTRY_KINDS, REFUND_CAUSE } from './ledger-bookings.js';
import { LedgerReconciliation, reconciliationLineView, type ReconciliationDeps, type ReconciliationLine } from './ledger-reconciliation.js';
import type { ReconciliationStatus } from '../domain/ledger-reconciliation.js';
import type { JsonValue } from '../domain/model/webhook.js';

/** An entry on the wire (issue #36, Interface): amounts are signed integer strings in smallest units. */
export interface LedgerEntryView {
  readonly entry_id: string;
  readonly transaction_id: string;
  /** ISO 8601 with offset, whole seconds. */
  readonly occurred_at: string;
  /** What moved the money: the cause's type (deposit, …). */
  readonly kind: string;
  readonly account: {
    readonly kind: LedgerAccountKind; readonly network_code: string; readonly asset_symbol: string; readonly address?: string;
    /** Extension: who holds an account that is not an address (a `provider_prepaid` account: the provider's name). */
    readonly holder?: string;
  };
  readonly amount: string;
  readonly balance_after: string;
  readonly cause: { readonly type: string; readonly id: string; readonly txid?: string };
  /** Extension: on a correction, the transaction it reverses. */
  readonly reverses?: string;
}

/**
 * GET /ledger/balances (issue #36, Interface): the custodial addresses' balances at a time, with totals per asset.
 * `balance` is the liquid balance; `staked` and `unstaking` (extensions) are what the address holds in stake and
 * has unstaked and not withdrawn.
 */
export interface LedgerBalancesView {
  readonly at: string;
  readonly items: {
    readonly network_code: string; readonly address: string; readonly asset_symbol: string; readonly balance: string;
    readonly staked: string; readonly unstaking: string;
  }[];
  readonly totals: { readonly asset_symbol: string; readonly balance: string; readonly staked: string; readonly unstaking: string }[];
}

/** GET /ledger/statement (issue #36, Interface): per asset, `closing = opening + received - costs - sent`. */
export interface LedgerStatementView {
  readonly from: string;
  readonly to: string;
  readonly assets: {
    readonly asset_symbol: string; readonly opening: string; readonly received: string; readonly costs: string; readonly sent: string; readonly closing: string;
    /** Extension (issue #36 item 4): of `sent`, the refunds of payment requests. */
    readonly refunded: string;
    /** Extension (issue #36): of `received`, the energy rentals paid off chain from providers' prepaid balances (`costs` counts them). */
    readonly prepaid: string;
  }[];
}

/** The most entries one export (CSV without page) answers. */
export const LEDGER_EXPORT_MAX_ROWS = 10_000;

/** GET /ledger/reconciliation (issue #36, extension): the caller's addresses against the chain, one look now. */
export interface LedgerReconciliationView {
  readonly checked_at: string;
  /** How many asset lines of this page are in each status. */
  readonly summary: Readonly<Record<ReconciliationStatus, number>>;
  readonly items: {
    readonly network_code: string;
    readonly address: string;
    /** The worst of its assets: discrepancy, then unsettled, explained, matched. */
    readonly status: ReconciliationStatus;
    readonly assets: Record<string, JsonValue>[];
  }[];
  readonly pagination: ItemsPage<never>['pagination'];
}

/** The ports the ledger reads touch. */
export type LedgerReadDeps = Pick<ResolvedDeps, 'ledger' | 'clock'> & Partial<ReconciliationDeps>;

const STATUS_ORDER: readonly ReconciliationStatus[] = ['discrepancy', 'unsettled', 'explained', 'matched'];

export function toLedgerEntryView(e: LedgerEntry): LedgerEntryView {
  return {
    entry_id: e.entryId, transaction_id: e.transactionId, occurred_at: formatIsoTime(e.occurredAt), kind: e.cause.type,
    account: {
      kind: e.account.kind, network_code: e.account.networkCode, asset_symbol: e.account.assetSymbol,
      ...(e.account.address === null ? {} : NAMED_HOLDER_ACCOUNT_KINDS.includes(e.account.kind) ? { holder: e.account.address } : { address: e.account.address }),
    },
    amount: e.amount.toString(), balance_after: e.balanceAfter.toString(),
    cause: { type: e.cause.type, id: e.cause.id, ...(e.cause.txid === undefined ? {} : { txid: e.cause.txid }) },
    ...(e.reverses === null ? {} : { reverses: e.reverses }),
  };
}

/** The caller's books (issue #36), owner-scoped: every read is of the caller's own entries. */
export class LedgerUseCases {
  constructor(private readonly deps: LedgerReadDeps) {}

  /** query {from?, to? (ISO 8601 with offset, inclusive), address?, asset_symbol?, kind?, account_kind?, page?, per_page?}: booking order. */
  async listEntries(userId: UserId, query: unknown): Promise<ItemsPage<LedgerEntryView>> {
    const fields = fieldsOf(query, 'query');
    const filter = entryFilterOf(fields);
    const page = parsePageQuery(fields, 'standard');
    const found = await this.deps.ledger.entries(userId, filter, page);
    return toItemsPage(found.items.map(toLedgerEntryView), found.total, page.page, page.perPage);
  }

  /**
   * The entries of an export (CSV): with `page` or `per_page`, that page as listEntries answers it; without, every
   * matching entry in booking order, up to LEDGER_EXPORT_MAX_ROWS (more is a VALIDATION-ERROR asking for a narrower
   * period or pages: an export is never cut short silently).
   */
  async exportEntries(userId: UserId, query: unknown): Promise<LedgerEntryView[]> {
    const fields = fieldsOf(query, 'query');
    if (fields['page'] !== undefined || fields['per_page'] !== undefined) return (await this.listEntries(userId, query)).items;
    const filter = entryFilterOf(fields);
    const found = await this.deps.ledger.entries(userId, filter, { offset: 0, limit: LEDGER_EXPORT_MAX_ROWS + 1 });
    if (found.items.length > LEDGER_EXPORT_MAX_ROWS) {
      throw validationError('to', `matches ${found.total} entries, more than an export holds (${LEDGER_EXPORT_MAX_ROWS}): narrow from and to, or ask for pages with page and per_page`);
    }
    return found.items.map(toLedgerEntryView);
  }

  /**
   * query {from (required), to? (default now), asset_symbol?}, ISO 8601 with offset, both inclusive: per asset the
   * custodial addresses' opening balance (just before `from`), received, costs, sent and closing balance (at `to`),
   * from two balance reads (ledger-statement.ts). A named asset is listed even without entries.
   */
  async statement(userId: UserId, query: unknown): Promise<LedgerStatementView> {
    const fields = fieldsOf(query, 'query');
    const from = isoTime(fields, 'from');
    if (from === undefined) throw validationError('from', 'is required');
    const to = isoTime(fields, 'to') ?? this.deps.clock.now();
    if (from > to) throw validationError('from', 'must not be after to');
    const assetSymbol = nonEmpty(fields, 'asset_symbol', 32);
    const [before, after] = await Promise.all([this.deps.ledger.balancesAt(userId, from - 1), this.deps.ledger.balancesAt(userId, to)]);
    const lines = statementOf(before, after, assetSymbol === undefined ? undefined : [assetSymbol]);
    // Of what was sent outside, the refunds (issue #36 item 4): their entries on external_out in the period.
    const refunded = new Map<string, bigint>();
    for (let offset = 0; ; offset += 1_000) {
      const page = await this.deps.ledger.entries(userId, {
        causeType: REFUND_CAUSE, kind: 'external_out', from, to, ...(assetSymbol === undefined ? {} : { assetSymbol }),
      }, { offset, limit: 1_000 });
      for (const e of page.items) refunded.set(e.account.assetSymbol, (refunded.get(e.account.assetSymbol) ?? 0n) + e.amount);
      if (page.items.length < 1_000) break;
    }
    return {
      from: formatIsoTime(from), to: formatIsoTime(to),
      assets: lines.map((l) => ({
        asset_symbol: l.assetSymbol, opening: l.opening.toString(), received: l.received.toString(), costs: l.costs.toString(),
        sent: l.sent.toString(), closing: l.closing.toString(), refunded: (refunded.get(l.assetSymbol) ?? 0n).toString(),
        prepaid: l.prepaid.toString(),
      })),
    };
  }

  /**
   * query {page?, per_page?}: a page of the caller's addresses (wallet order), each asset's booked balance beside the
   * chain's liquid balance now, judged (core/domain/ledger-reconciliation.ts): one look, so a transfer landing right
   * now may show as a discrepancy the worker's job (two passes in a row) would not report.
   */
  async reconciliation(userId: UserId, query: unknown): Promise<LedgerReconciliationView> {
    const fields = fieldsOf(query, 'query');
    const page = parsePageQuery(fields, 'standard');
    const { ledger, wallets, chain, assets, deposits, tasks, commands } = this.deps;
    if (wallets === undefined || chain === undefined || assets === undefined || deposits === undefined || tasks === undefined || commands === undefined) {
      throw new Error('the reconciliation needs the wallets, chain, assets, deposits, tasks and commands');
    }
    const checkedAt = this.deps.clock.now();
    const found = await wallets.listByUser(userId, {}, page);
    const lines = await new LedgerReconciliation({ ledger, wallets, chain, assets, deposits, tasks, commands }).addresses(userId, found.items);
    const summary: Record<ReconciliationStatus, number> = { matched: 0, explained: 0, unsettled: 0, discrepancy: 0 };
    for (const line of lines) summary[line.judgement.status] += 1;
    const items = found.items.map((w) => {
      const own = lines.filter((l) => l.address === w.address);
      return {
        network_code: w.networkCode, address: w.address, status: worstOf(own),
        assets: own.map((l) => {
          const { network_code: _n, address: _a, ...rest } = reconciliationLineView(l);
          return rest;
        }),
      };
    });
    return { checked_at: formatIsoTime(checkedAt), summary, ...toItemsPage(items, found.total, page.page, page.perPage) };
  }

  /**
   * query {at? (ISO 8601 with offset; default now)}: each custodial address's liquid balance per asset, with what it
   * holds in stake and unstaking (extensions), and the totals per asset. An address appears once it has any of the three.
   */
  async balances(userId: UserId, query: unknown): Promise<LedgerBalancesView> {
    const at = isoTime(fieldsOf(query, 'query'), 'at') ?? this.deps.clock.now();
    type Held = { networkCode: string; address: string; assetSymbol: string; custodial: bigint; staked: bigint; unstaking: bigint };
    const items = new Map<string, Held>();
    const totals = new Map<string, Held>();
    const zero = (networkCode: string, address: string, assetSymbol: string): Held => ({ networkCode, address, assetSymbol, custodial: 0n, staked: 0n, unstaking: 0n });
    for (const { account, balance } of await this.deps.ledger.balancesAt(userId, at)) {
      if (account.kind !== 'custodial' && account.kind !== 'staked' && account.kind !== 'unstaking') continue;
      const key = `${account.networkCode}|${account.assetSymbol}|${account.address!}`;
      const item = items.get(key) ?? zero(account.networkCode, account.address!, account.assetSymbol);
      const total = totals.get(account.assetSymbol) ?? zero('', '', account.assetSymbol);
      item[account.kind] += balance;
      total[account.kind] += balance;
      items.set(key, item);
      totals.set(account.assetSymbol, total);
    }
    const figures = (h: Held) => ({ balance: h.custodial.toString(), staked: h.staked.toString(), unstaking: h.unstaking.toString() });
    return {
      at: formatIsoTime(at),
      // Ordered by network, asset and address, as the accounts are.
      items: [...items].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, h]) => ({ network_code: h.networkCode, address: h.address, asset_symbol: h.assetSymbol, ...figures(h) })),
      totals: [...totals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([asset_symbol, h]) => ({ asset_symbol, ...figures(h) })),
    };
  }
}

/** The worst status of an address's lines (STATUS_ORDER). */
function worstOf(lines: readonly ReconciliationLine[]): ReconciliationStatus {
  return STATUS_ORDER.find((status) => lines.some((l) => l.judgement.status === status)) ?? 'matched';
}

/** The entry filters of a query (GET /ledger/entries and its export). */
function entryFilterOf(fields: Fields): LedgerEntryFilter {
  const from = isoTime(fields, 'from');
  const to = isoTime(fields, 'to');
  if (from !== undefined && to !== undefined && from > to) throw validationError('from', 'must not be after to');
  const address = nonEmpty(fields, 'address', 64);
  const assetSymbol = nonEmpty(fields, 'asset_symbol', 32);
  const causeType = oneOf(fields, 'kind', LEDGER_ENTRY_KINDS);
  const kind = oneOf(fields, 'account_kind', LEDGER_ACCOUNT_KINDS);
  return {
    ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }), ...(address === undefined ? {} : { address }),
    ...(assetSymbol === undefined ? {} : { assetSymbol }), ...(causeType === undefined ? {} : { causeType }), ...(kind === undefined ? {} : { kind }),
  };
}

function isoTime(fields: Fields, field: string): number | undefined {
  const text = nonEmpty(fields, field, 40);
  if (text === undefined) return undefined;
  const ms = parseIsoTime(text);
  if (ms === null) throw validationError(field, 'must be an ISO 8601 date-time with an offset, e.g. 2026-01-01T00:00:00Z');
  return ms;
}

function oneOf<T extends string>(fields: Fields, field: string, allowed: readonly T[]): T | undefined {
  const text = nonEmpty(fields, field, 32);
  if (text === undefined) return undefined;
  const value = allowed.find((a) => a === text);
  if (value === undefined) throw validationError(field, `must be one of ${allowed.join(', ')}`);
  return value;
}

/** An optional query string that, when given, is not empty. */
function nonEmpty(fields: Fields, field: string, maxLength: number): string | undefined {
  const value = optionalString(fields, field, maxLength);
  if (value === null) return undefined;
  if (value.length === 0) throw validationError(field, 'must not be empty');
  return value;
}
