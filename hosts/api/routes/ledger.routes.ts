import type { Application } from '../../../core/application/index.js';
import { LEDGER_ENTRY_KINDS } from '../../../core/application/ledger-bookings.js';
import { LEDGER_ACCOUNT_KINDS } from '../../../core/domain/ledger.js';
import { defineRoute, type RouteDef } from '../route.js';
import { itemsPage, s } from '../openapi-schemas.js';
import { pageQuery } from './wallet.routes.js';

const isoTime = { type: 'string', description: 'ISO 8601 with offset, whole seconds' } as const;
const signedAmount = { type: 'string', pattern: '^-?[0-9]+$', description: 'a signed integer in the smallest unit' } as const;

/** A ledger entry (issue #36, Interface); inline here, beside the routes that answer it. */
const ENTRY = s.obj({
  entry_id: s.str(), transaction_id: s.str(), occurred_at: isoTime,
  kind: { ...s.enumOf(LEDGER_ENTRY_KINDS), description: 'what moved the money (the cause\'s type)' },
  account: s.obj({
    kind: { ...s.enumOf(LEDGER_ACCOUNT_KINDS), description: 'custodial (one of your addresses), a chain fee, or money from or to outside' },
    network_code: s.str(), asset_symbol: s.str(), address: s.str('only on a custodial account'),
  }, ['address']),
  amount: signedAmount, balance_after: { ...signedAmount, description: 'the account\'s balance after this entry' },
  cause: s.obj({ type: s.str(), id: s.str('e.g. the deposit id'), txid: s.str('the chain transaction, when there is one') }, ['txid']),
  reverses: s.str('only on a correction: the transaction it reverses'),
}, ['reverses']);

const BALANCES = s.obj({
  at: isoTime,
  items: s.arr(s.obj({ network_code: s.str(), address: s.str(), asset_symbol: s.str(), balance: signedAmount })),
  totals: s.arr(s.obj({ asset_symbol: s.str(), balance: signedAmount })),
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

const ENTRIES_DESCRIPTION = [
  'Extension (issue #36): the caller\'s books, double entry. Every movement is one transaction whose entries sum to zero per',
  'asset; an entry is never changed (a correction is a new transaction naming the one it `reverses`). Accounts are per network,',
  'asset and holder: `custodial` (one of your addresses), the chain fees, `external_in` (its balance is minus what came in from',
  'outside) and `external_out`. Booked so far: confirmed deposits (external_in -> the custodial address, at the confirmation).',
  'Oldest first, in booking order.',
].join('\n');

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
          account_kind: { schema: s.enumOf(LEDGER_ACCOUNT_KINDS), description: 'extension: entries on accounts of this kind' }, ...pageQuery,
        },
        data: itemsPage(ENTRY), example: ENTRIES_EXAMPLE,
      },
      handle: ({ caller, query }) => app.ledger.listEntries(caller.userId, query),
    }),
    defineRoute({
      method: 'GET', path: '/api/ledger/balances', auth: 'developer',
      docs: {
        operationId: 'getLedgerBalances', summary: 'The caller\'s ledger balances at a time', tag: 'Wallet',
        description: 'Extension (issue #36): each custodial address\'s balance per asset after the last entry at or before `at` '
          + '(default now), and the totals per asset, read from the books (not from the chain).',
        query: { at: { schema: s.str(), description: 'ISO 8601 with an offset, e.g. 2026-02-01T00:00:00Z; default now' } },
        data: BALANCES,
        example: { at: '2026-02-01T00:00:00+00:00', items: [{ network_code: 'TRON', address: SUB, asset_symbol: 'USDT', balance: '25000000' }],
          totals: [{ asset_symbol: 'USDT', balance: '25000000' }] },
      },
      handle: ({ caller, query }) => app.ledger.balances(caller.userId, query),
    }),
  ];
}
