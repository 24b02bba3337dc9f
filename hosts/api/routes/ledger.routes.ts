import type { Application } from '../../../core/application/index.js';
import { LEDGER_ENTRY_KINDS } from '../../../core/application/ledger-bookings.js';
import { LEDGER_ACCOUNT_KINDS } from '../../../core/domain/ledger.js';
import { CSV_MEDIA_TYPE, csvAnswer, wantsCsv } from '../csv.js';
import { defineRoute, type RouteDef } from '../route.js';
import { itemsPage, s } from '../openapi-schemas.js';
import { RECONCILIATION_STAKE_FIELDS } from '../openapi-webhooks.js';
import { pageQuery } from './wallet.routes.js';

const isoTime = { type: 'string', description: 'ISO 8601 with offset, whole seconds' } as const;
const signedAmount = { type: 'string', pattern: '^-?[0-9]+$', description: 'a signed integer in the smallest unit' } as const;

/** A ledger entry (issue #36, Interface); inline here, beside the routes that answer it. */
const ENTRY = s.obj({
  entry_id: s.str(), transaction_id: s.str(), occurred_at: isoTime,
  kind: { ...s.enumOf(LEDGER_ENTRY_KINDS), description: 'what moved the money (the cause\'s type)' },
  account: s.obj({
    kind: {
      ...s.enumOf(LEDGER_ACCOUNT_KINDS),
      description: 'custodial (one of your addresses), staked or unstaking (its TRX in stake), a chain fee, money from or to outside, or provider_prepaid (an energy rental provider\'s prepaid balance, which pays rentals off chain)',
    },
    network_code: s.str(), asset_symbol: s.str(), address: s.str('only on a custodial, staked or unstaking account'),
    holder: s.str('extension: only on a provider_prepaid account, the provider\'s name'),
  }, ['address', 'holder']),
  amount: signedAmount, balance_after: { ...signedAmount, description: 'the account\'s balance after this entry' },
  cause: s.obj({ type: s.str(), id: s.str('e.g. the deposit id'), txid: s.str('the chain transaction, when there is one') }, ['txid']),
  reverses: s.str('only on a correction: the transaction it reverses'),
}, ['reverses']);

/** Extensions of a balance (issue #36): TRX in stake beside the liquid `balance`. */
const STAKE_BALANCES = {
  staked: { ...signedAmount, description: 'extension: what the address holds in stake (TRX; 0 for a token)' },
  unstaking: { ...signedAmount, description: 'extension: what the address unstaked and has not withdrawn yet (TRX; 0 for a token)' },
};
const BALANCES = s.obj({
  at: isoTime,
  items: s.arr(s.obj({
    network_code: s.str(), address: s.str(), asset_symbol: s.str(), balance: { ...signedAmount, description: 'the liquid balance' }, ...STAKE_BALANCES,
  })),
  totals: s.arr(s.obj({ asset_symbol: s.str(), balance: { ...signedAmount, description: 'the liquid balances\' total' }, ...STAKE_BALANCES })),
});

const RECONCILIATION_STATUSES = ['matched', 'explained', 'unsettled', 'discrepancy'] as const;
const RECONCILIATION = s.obj({
  checked_at: isoTime,
  summary: { ...s.obj(Object.fromEntries(RECONCILIATION_STATUSES.map((k) => [k, s.int()]))), description: 'asset lines of this page per status' },
  items: s.arr(s.obj({
    network_code: s.str(), address: s.str(), status: { ...s.enumOf(RECONCILIATION_STATUSES), description: 'the worst of its assets' },
    assets: s.arr(s.obj({
      asset_symbol: s.str(), status: s.enumOf(RECONCILIATION_STATUSES),
      ledger_balance: { ...signedAmount, description: 'what the books hold' },
      chain_balance: { ...signedAmount, description: 'the liquid balance on chain' },
      difference: { ...signedAmount, description: 'chain_balance - ledger_balance' },
      explained: s.arr(s.obj({ reason: s.enumOf(['pending_deposit', 'staked']), amount: signedAmount })),
      unexplained: { ...signedAmount, description: 'difference less the explained parts; 0 unless discrepancy or unsettled' },
      ...RECONCILIATION_STAKE_FIELDS,
    }, Object.keys(RECONCILIATION_STAKE_FIELDS))),
  })),
  pagination: s.ref('Pagination'),
});

const SUB = 'TPL66VK2gCXNCD7EJg9pgJRfqcRazjhUZY';
const TXID = 'a1f5c0e6d7b8a9f0e1d2c3b4a5968778695a4b3c2d1e0f9a8b7c6d5e4f3a2b1c';
const CAUSE = { type: 'deposit', id: '5f0c2a8e-3b6d-4a51-9c2e-7d1f0b9e4a10', txid: TXID };
const ENTRIES_EXAMPLE = {
  items: [
    { entry_id: 'c3d1e2f0-7a7b-4c1d-9e0f-1a2b3c4d5e6f:0', transaction_id: 'c3d1e2f0-7a7b-4c1d-9e0f-1a2b3c4d5e6f', occurred_at: '2026-01-01T12:01:00+00:00',
      kind: 'deposit', account: { kind: 'external_in', network_code: 'TRON', asset_symbol: 'USDT' }, amount: '-25000000', balance_after: '-25000000', cause: CAUSE },
    { entry_id: 'c3d1e2f0-7a7b-4c1d-9e0f-1a2b3c4d5e6f:1', transaction_id: 'c3d1e2f0-7a7b-4c1d-9e0f-1a2b3c4d5e6f', occurred_at: '2026-01-01T12:01:00+00:00',
      kind: 'deposit', account: { kind: 'custodial', network_code: 'TRON', asset_symbol: 'USDT', address: SUB }, amount: '25000000', balance_after: '25000000', cause: CAUSE },
  ],
  pagination: { page: 1, per_page: 20, total: 2, pages: 1 },
};

const CSV_DESCRIPTION = [
  '',
  'As CSV (`Accept: text/csv` or `format=csv`): one header row naming the JSON fields (nested ones as `account.kind`,',
  '`cause.txid`), then one row per item, CRLF-separated; an absent field is an empty cell. The CSV is the bare list, not the',
  'envelope; errors stay in the JSON envelope.',
].join('\n');

const ENTRIES_DESCRIPTION = [
  'Extension (issue #36): the caller\'s books, double entry. Every movement is one transaction whose entries sum to zero per',
  'asset; an entry is never changed (a correction is a new transaction naming the one it `reverses`). Accounts are per network,',
  'asset and holder: `custodial` (one of your addresses), the chain fees, `external_in` (its balance is minus what came in from',
  'outside) and `external_out`. Booked so far: confirmed deposits (external_in -> the custodial address, at the confirmation),',
  'DONE sweeps (`collection`: the asset sub -> main, the TRX funding and recovery, each transaction\'s fees from its signer, and',
  'an energy rental\'s price, paid off chain, from the provider\'s `provider_prepaid` account, its name as `account.holder`),',
  'finished withdrawals (`withdrawal`) and refunds of payment requests (`refund`: a withdrawal with `refund_of`, booked alike).',
  'Oldest first, in booking order.',
  CSV_DESCRIPTION,
  'A CSV without `page` and `per_page` holds every matching entry, up to 10,000 (more is a VALIDATION-ERROR naming `to`: narrow',
  'the period, or ask for pages); with either, it holds that page.',
].join('\n');

const STATEMENT = s.obj({
  from: isoTime, to: isoTime,
  assets: s.arr(s.obj({
    asset_symbol: s.str(), opening: { ...signedAmount, description: 'the custodial addresses\' balance just before `from`' },
    received: { ...signedAmount, description: 'money in from outside (less reversals), and the energy rentals paid off chain for you (`prepaid`)' },
    costs: { ...signedAmount, description: 'chain fees paid: TRX burned, bandwidth, energy rental' },
    sent: { ...signedAmount, description: 'money out to outside' },
    closing: { ...signedAmount, description: 'the custodial addresses\' balance at `to`: opening + received - costs - sent' },
    refunded: { ...signedAmount, description: 'extension (issue #36): of `sent`, the refunds of payment requests (POST /transfers with refund_of)' },
    prepaid: {
      ...signedAmount,
      description: 'extension (issue #36): of `received`, the energy rentals an energy provider\'s prepaid balance paid for you off chain (TRX; `costs` counts them as energy rental, and no address paid them)',
    },
  })),
});

/** The CSV columns of an entry: the JSON fields, nested ones with a dot. */
export const ENTRY_CSV_COLUMNS = [
  'entry_id', 'transaction_id', 'occurred_at', 'kind', 'account.kind', 'account.network_code', 'account.asset_symbol', 'account.address',
  'account.holder', 'amount', 'balance_after', 'cause.type', 'cause.id', 'cause.txid', 'reverses',
] as const;
/** The CSV columns of a statement: one row per asset, with the period's `from` and `to` on each. */
export const STATEMENT_CSV_COLUMNS = ['from', 'to', 'asset_symbol', 'opening', 'received', 'costs', 'sent', 'closing', 'refunded', 'prepaid'] as const;

const STATEMENT_EXAMPLE = {
  from: '2026-01-01T00:00:00+00:00', to: '2026-01-31T23:59:59+00:00',
  assets: [
    { asset_symbol: 'TRX', opening: '0', received: '30000000', costs: '13845000', sent: '0', closing: '16155000', refunded: '0', prepaid: '0' },
    { asset_symbol: 'USDT', opening: '0', received: '25000000', costs: '0', sent: '10000000', closing: '15000000', refunded: '4000000', prepaid: '0' },
  ],
};

const CSV_QUERY = {
  format: {
    schema: s.enumOf(['json', 'csv']),
    description: 'csv answers text/csv instead of the JSON envelope (as `Accept: text/csv` does); errors stay JSON',
  },
};

const csvLine = (values: readonly string[]): string => `${values.join(',')}\r\n`;
const ENTRIES_CSV_EXAMPLE = csvLine(ENTRY_CSV_COLUMNS) + ENTRIES_EXAMPLE.items.map((e) => csvLine([
  e.entry_id, e.transaction_id, e.occurred_at, e.kind, e.account.kind, e.account.network_code, e.account.asset_symbol, e.account.address ?? '', '',
  e.amount, e.balance_after, e.cause.type, e.cause.id, e.cause.txid, '',
])).join('');
const STATEMENT_CSV_EXAMPLE = csvLine(STATEMENT_CSV_COLUMNS) + STATEMENT_EXAMPLE.assets.map((a) => csvLine([
  STATEMENT_EXAMPLE.from, STATEMENT_EXAMPLE.to, a.asset_symbol, a.opening, a.received, a.costs, a.sent, a.closing, a.refunded, a.prepaid,
])).join('');


const TIME_QUERY = (what: string) => ({ schema: s.str(), description: `${what}: ISO 8601 with an offset, e.g. 2026-01-01T00:00:00Z (inclusive)` });

/** The ledger reads (issue #36, extensions; Developer API Token, owner-scoped like the deposits). */
export function ledgerRoutes(app: Application): RouteDef[] {
  return [
    defineRoute({
      method: 'GET', path: '/api/ledger/entries', auth: 'developer',
      docs: {
        operationId: 'listLedgerEntries', summary: 'List the caller\'s ledger entries', tag: 'Wallet', description: ENTRIES_DESCRIPTION,
        query: {
          from: TIME_QUERY('from'), to: TIME_QUERY('to'), address: { schema: s.str(), description: 'entries of this custodial address' },
          asset_symbol: { schema: s.str() }, kind: { schema: s.enumOf(LEDGER_ENTRY_KINDS), description: 'what moved the money' },
          account_kind: { schema: s.enumOf(LEDGER_ACCOUNT_KINDS), description: 'extension: entries on accounts of this kind' }, ...pageQuery, ...CSV_QUERY,
        },
        data: itemsPage(ENTRY), example: ENTRIES_EXAMPLE, alsoProduces: { mediaType: CSV_MEDIA_TYPE, example: ENTRIES_CSV_EXAMPLE },
      },
      handle: async ({ caller, query, headers }) => (wantsCsv(query, headers)
        ? csvAnswer(ENTRY_CSV_COLUMNS, await app.ledger.exportEntries(caller.userId, query), 'ledger-entries')
        : app.ledger.listEntries(caller.userId, query)),
    }),
    defineRoute({
      method: 'GET', path: '/api/ledger/statement', auth: 'developer',
      docs: {
        operationId: 'getLedgerStatement', summary: 'The caller\'s statement over a period, per asset', tag: 'Wallet',
        description: [
          'Extension (issue #36): per asset, your custodial addresses\' balance just before `from` (opening), the money received from',
          'outside, the chain fees paid (costs: TRX burned, bandwidth, energy rental), the money sent outside, and the balance at `to`',
          '(closing = opening + received - costs - sent), read from the books. Moves between your own addresses (a sweep) are neither',
          'in nor out. Each total equals the sum of its account kind\'s entries in the period (GET /ledger/entries with `account_kind`).',
          CSV_DESCRIPTION,
        ].join('\n'),
        query: {
          from: { schema: s.str(), description: 'required: ISO 8601 with an offset, e.g. 2026-01-01T00:00:00Z (inclusive)' },
          to: { schema: s.str(), description: 'ISO 8601 with an offset (inclusive); default now' },
          asset_symbol: { schema: s.str(), description: 'only this asset (listed even without entries)' }, ...CSV_QUERY,
        },
        data: STATEMENT, example: STATEMENT_EXAMPLE, alsoProduces: { mediaType: CSV_MEDIA_TYPE, example: STATEMENT_CSV_EXAMPLE },
      },
      handle: async ({ caller, query, headers }) => {
        const csv = wantsCsv(query, headers);
        const statement = await app.ledger.statement(caller.userId, query);
        return csv ? csvAnswer(STATEMENT_CSV_COLUMNS, statement.assets.map((a) => ({ from: statement.from, to: statement.to, ...a })), 'ledger-statement') : statement;
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/ledger/balances', auth: 'developer',
      docs: {
        operationId: 'getLedgerBalances', summary: 'The caller\'s ledger balances at a time', tag: 'Wallet',
        description: 'Extension (issue #36): each custodial address\'s balance per asset after the last entry at or before `at` '
          + '(default now), and the totals per asset, read from the books (not from the chain). `balance` is the liquid balance; '
          + '`staked` and `unstaking` (extensions) are the TRX the address holds in stake and has unstaked and not withdrawn.',
        query: { at: { schema: s.str(), description: 'ISO 8601 with an offset, e.g. 2026-02-01T00:00:00Z; default now' } },
        data: BALANCES,
        example: {
          at: '2026-02-01T00:00:00+00:00',
          items: [
            { network_code: 'TRON', address: SUB, asset_symbol: 'TRX', balance: '4000000', staked: '100000000', unstaking: '0' },
            { network_code: 'TRON', address: SUB, asset_symbol: 'USDT', balance: '25000000', staked: '0', unstaking: '0' },
          ],
          totals: [{ asset_symbol: 'TRX', balance: '4000000', staked: '100000000', unstaking: '0' }, { asset_symbol: 'USDT', balance: '25000000', staked: '0', unstaking: '0' }],
        },
      },
      handle: ({ caller, query }) => app.ledger.balances(caller.userId, query),
    }),
    defineRoute({
      method: 'GET', path: '/api/ledger/reconciliation', auth: 'developer',
      docs: {
        operationId: 'getLedgerReconciliation', summary: 'The caller\'s books against the chain, per address and asset', tag: 'Wallet',
        description: [
          'Extension (issue #36): for a page of your addresses (wallet order), each asset\'s balance in the books beside its liquid balance',
          'on chain, read now, and judged: `matched` (equal); `explained` (they differ by exactly what `explained` lists: deposits seen',
          'and not yet confirmed, `pending_deposit`, and for TRX stake made or released behind the books\' back from the liquid balance,',
          '`staked`); `unsettled` (a',
          'collection or withdrawal touching the address has not ended: its booking comes after, nothing is judged); `discrepancy`',
          '(`unexplained` is what nothing explains, e.g. TRX sent to the address by a contract call the scanner does not see). The',
          'service never corrects the books. A TRX line also carries the address\'s stake (extension): `staked_*` and `unstaking_*` in the books',
          'and on chain, read with the liquid balance, and what of each nothing explains; a stake that differs from the books is a',
          '`discrepancy` even when the liquid balance matches. This is one look: a transfer landing right now may show as a discrepancy for a moment. The',
          'worker\'s reconciliation reports only differences two passes in a row see, as the opt-in `ledger.discrepancy` event, the',
          '`custody_ledger_discrepancies` metric and its daily summary.',
        ].join('\n'),
        query: { ...pageQuery },
        data: RECONCILIATION,
        example: {
          checked_at: '2026-02-01T00:00:00+00:00', summary: { matched: 1, explained: 0, unsettled: 0, discrepancy: 1 },
          items: [{
            network_code: 'TRON', address: SUB, status: 'discrepancy', assets: [
              { asset_symbol: 'TRX', status: 'discrepancy', ledger_balance: '0', chain_balance: '1000000', difference: '1000000', explained: [], unexplained: '1000000',
                staked_ledger_balance: '0', staked_chain_balance: '0', unstaking_ledger_balance: '0', unstaking_chain_balance: '0', staked_unexplained: '0', unstaking_unexplained: '0' },
              { asset_symbol: 'USDT', status: 'matched', ledger_balance: '25000000', chain_balance: '25000000', difference: '0', explained: [], unexplained: '0' },
            ],
          }],
          pagination: { page: 1, per_page: 20, total: 1, pages: 1 },
        },
      },
      handle: ({ caller, query }) => app.ledger.reconciliation(caller.userId, query),
    }),
  ];
}
