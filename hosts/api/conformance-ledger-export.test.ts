import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositBooking } from '../../core/application/ledger-bookings.js';
import { LEDGER_EXPORT_MAX_ROWS } from '../../core/application/ledger.service.js';
import { custodialAccount, holderAccount, type LedgerTransaction } from '../../core/domain/ledger.js';
import type { Deposit } from '../../core/domain/model/deposit.js';
import { TOKENS } from '../composition/tokens.js';
import { ENTRY_CSV_COLUMNS, STATEMENT_CSV_COLUMNS } from './routes/ledger.routes.js';
import { startHarness, type ApiHarness, type HttpResult } from './test-harness.js';
import { expectAnswersDocumented, expectDocumented, fails, ok, userWithWallets, type TestUser } from './api-test-fixtures.js';

const at = (minute: number) => Date.UTC(2026, 0, 1, 12, minute, 0);

/** The JSON value of a CSV column (`account.kind`) in an item; absent is ''. */
function cell(item: Record<string, unknown>, column: string): string {
  const value = column.split('.').reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], item);
  return value === undefined ? '' : String(value);
}

/** Parses a CSV answer with a CSV parser: its header row and its records keyed by it. */
function parsed(result: HttpResult): { header: string[]; records: Record<string, string>[] } {
  expect(result.status, result.text).toBe(200);
  expect(result.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  const rows = parse(result.text, { relax_column_count: false }) as string[][];
  return { header: rows[0]!, records: parse(result.text, { columns: true }) as Record<string, string>[] };
}

/** Issue #36 statement and CSV over real HTTP: the statement's figures, the CSV of each list, errors staying JSON. */
describe('ledger statement and CSV export (extension)', () => {
  let h: ApiHarness;
  let u: TestUser & { main: string; sub: string };

  const post = (tx: LedgerTransaction) => h.container.get(TOKENS.Stores).ledger.post(tx);
  const deposit = (n: number, owner: TestUser & { sub: string }, overrides: Partial<Deposit> = {}): LedgerTransaction => {
    const txid = n.toString(16).padStart(64, '0');
    return depositBooking({
      depositId: `dep-${n}`, transferId: txid, userId: owner.userId, address: owner.sub, networkCode: 'TRON', assetSymbol: 'TRX', amount: 30_000_000n,
      fromAddress: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', txid, blockNumber: 100 + n, status: 'confirmed', detectedAt: at(n), confirmedAt: at(n), version: 2, ...overrides,
    }, `tx-${n}`);
  };

  beforeAll(async () => {
    h = await startHarness();
    u = await userWithWallets(h);
    await post(deposit(1, u)); // 30 TRX in
    await post(deposit(2, u, { assetSymbol: 'USDT', amount: 25_000_000n })); // 25 USDT in
    // A sweep: USDT between the user's own addresses, its fees paid from the sub-address.
    await post({ transactionId: 'tx-3', userId: u.userId, occurredAt: at(3), reverses: null, cause: { type: 'collection', id: 'C-1', txid: 'ab'.repeat(32) },
      lines: [{ account: custodialAccount('TRON', 'USDT', u.sub), amount: -25_000_000n }, { account: custodialAccount('TRON', 'USDT', u.main), amount: 25_000_000n },
        { account: custodialAccount('TRON', 'TRX', u.sub), amount: -13_845_000n }, { account: holderAccount('fee_trx_burned', 'TRON', 'TRX'), amount: 13_500_000n },
        { account: holderAccount('fee_bandwidth', 'TRON', 'TRX'), amount: 345_000n }] });
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('GET /ledger/statement: opening, received, costs, sent and closing per asset over the period', async () => {
    const all = ok(await h.call('GET', '/api/ledger/statement?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z', { token: u.apiToken }));
    expect(all).toEqual({
      from: '2026-01-01T00:00:00+00:00', to: '2026-01-02T00:00:00+00:00',
      assets: [
        { asset_symbol: 'TRX', opening: '0', received: '30000000', costs: '13845000', sent: '0', closing: '16155000', refunded: '0', prepaid: '0' },
        { asset_symbol: 'USDT', opening: '0', received: '25000000', costs: '0', sent: '0', closing: '25000000', refunded: '0', prepaid: '0' },
      ],
    });
    expectDocumented(h, 'GET', '/api/ledger/statement', all);
    // From the sweep on: the deposits are in the opening balance; `to` defaults to now.
    const later = ok(await h.call('GET', '/api/ledger/statement?from=2026-01-01T12:03:00Z&to=2026-01-01T13:00:00Z&asset_symbol=USDT', { token: u.apiToken }));
    expect(later.assets).toEqual([{ asset_symbol: 'USDT', opening: '25000000', received: '0', costs: '0', sent: '0', closing: '25000000', refunded: '0', prepaid: '0' }]);
    const none = ok(await h.call('GET', '/api/ledger/statement?from=2026-01-01T00:00:00Z&asset_symbol=USDC', { token: u.apiToken }));
    expect(none.assets).toEqual([{ asset_symbol: 'USDC', opening: '0', received: '0', costs: '0', sent: '0', closing: '0', refunded: '0', prepaid: '0' }]);
  });

  it('the entries as CSV (Accept or format=csv) parse into the same figures as the JSON, with dotted headers', async () => {
    const json = ok(await h.call('GET', '/api/ledger/entries?per_page=100', { token: u.apiToken }));
    const asks: { path: string; headers: Record<string, string> }[] = [
      { path: '/api/ledger/entries?format=csv', headers: {} }, { path: '/api/ledger/entries', headers: { accept: 'application/json;q=0.5, text/csv' } },
    ];
    for (const asked of asks) {
      const result = await h.call('GET', asked.path, { token: u.apiToken, headers: asked.headers });
      expect(result.headers.get('content-disposition')).toBe('attachment; filename="ledger-entries.csv"');
      const { header, records } = parsed(result);
      expect(header).toEqual([...ENTRY_CSV_COLUMNS]);
      expect(header).toContain('account.kind');
      expect(header).toContain('cause.txid');
      expect(records.length).toBe(json.items.length);
      expect(records).toEqual(json.items.map((item: Record<string, unknown>) => Object.fromEntries(ENTRY_CSV_COLUMNS.map((c) => [c, cell(item, c)]))));
    }
    // A page asked is that page; the filters apply; an empty list still names its columns.
    const page = parsed(await h.call('GET', '/api/ledger/entries?format=csv&page=2&per_page=3', { token: u.apiToken }));
    expect(page.records.map((r) => r['entry_id'])).toEqual(json.items.slice(3, 6).map((i: { entry_id: string }) => i.entry_id));
    const fees = parsed(await h.call('GET', '/api/ledger/entries?format=csv&account_kind=fee_bandwidth', { token: u.apiToken }));
    expect(fees.records.map((r) => [r['account.kind'], r['amount'], r['cause.type']])).toEqual([['fee_bandwidth', '345000', 'collection']]);
    const empty = await h.call('GET', '/api/ledger/entries?format=csv&account_kind=fee_energy_rental', { token: u.apiToken });
    expect(empty.text).toBe(`${ENTRY_CSV_COLUMNS.join(',')}\r\n`);
    // JSON is preferred when asked for, and is the default.
    expect(ok(await h.call('GET', '/api/ledger/entries', { token: u.apiToken, headers: { accept: 'text/csv;q=0.4, application/json' } })).items).toHaveLength(json.items.length);
    expect(ok(await h.call('GET', '/api/ledger/entries?format=json', { token: u.apiToken, headers: { accept: 'text/csv' } })).items).toHaveLength(json.items.length);
  });

  it('the statement as CSV parses into the same figures as the JSON', async () => {
    const query = 'from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z';
    const json = ok(await h.call('GET', `/api/ledger/statement?${query}`, { token: u.apiToken }));
    const { header, records } = parsed(await h.call('GET', `/api/ledger/statement?${query}`, { token: u.apiToken, headers: { accept: 'text/csv' } }));
    expect(header).toEqual([...STATEMENT_CSV_COLUMNS]);
    expect(records).toEqual(json.assets.map((a: Record<string, string>) => ({ from: json.from, to: json.to, ...a })));
    for (const r of records) expect(BigInt(r['closing']!)).toBe(BigInt(r['opening']!) + BigInt(r['received']!) - BigInt(r['costs']!) - BigInt(r['sent']!));
  });

  it('errors stay in the JSON envelope when CSV is asked for', async () => {
    for (const [path, field] of [
      ['/api/ledger/entries?format=xml', 'format'], ['/api/ledger/entries?format=csv&from=yesterday', 'from'], ['/api/ledger/statement?format=csv', 'from'],
      ['/api/ledger/statement?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'from'], ['/api/ledger/statement?from=2026-01-01T00:00:00Z&asset_symbol=', 'asset_symbol'],
      ['/api/ledger/entries?format=csv&per_page=101', 'per_page'],
    ] as const) {
      const result = await h.call('GET', path, { token: u.apiToken, headers: { accept: 'text/csv' } });
      fails(result, 422, 'VALIDATION-ERROR');
      expect(result.headers.get('content-type')).toMatch(/^application\/json/);
      expect((result.json as { message: string }).message).toContain(field);
    }
    expect((await h.call('GET', '/api/ledger/statement?from=2026-01-01T00:00:00Z', { headers: { accept: 'text/csv' } })).status).toBe(401);
  });

  it(`a CSV export holds every matching entry up to ${LEDGER_EXPORT_MAX_ROWS}, and refuses more rather than cutting it short`, async () => {
    const big = await userWithWallets(h);
    const n = LEDGER_EXPORT_MAX_ROWS / 2;
    for (let i = 0; i < n; i += 1) await post(deposit(1_000 + i, big, { amount: 1n }));
    const full = parsed(await h.call('GET', '/api/ledger/entries?format=csv', { token: big.apiToken }));
    expect(full.records).toHaveLength(LEDGER_EXPORT_MAX_ROWS);
    await post(deposit(1_000 + n, big, { amount: 1n, confirmedAt: at(59) }));
    const over = await h.call('GET', '/api/ledger/entries?format=csv', { token: big.apiToken });
    fails(over, 422, 'VALIDATION-ERROR');
    expect(over.json.message).toContain(`${LEDGER_EXPORT_MAX_ROWS + 2} entries`);
    // A narrower period fits.
    expect(parsed(await h.call('GET', '/api/ledger/entries?format=csv&from=2026-01-01T12:59:00Z&to=2026-01-01T12:59:00Z', { token: big.apiToken })).records).toHaveLength(2);
  });
});
