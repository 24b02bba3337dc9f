import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deposit } from '../../core/domain/model/deposit.js';
import { TOKENS } from '../composition/tokens.js';
import { startHarness, type ApiHarness } from './test-harness.js';
import { expectAnswersDocumented, expectDocumented, fails, ok, userWithWallets, WALLET_TIME, type TestUser } from './api-test-fixtures.js';

/** Issue #24 deposit routes over real HTTP: owner scoping, filters, pagination, the wire shape and every error. */
describe('deposit endpoints', () => {
  let h: ApiHarness;
  let u: TestUser & { main: string; sub: string };
  let other: TestUser & { main: string; sub: string };

  /** Writes a deposit as the balance scanner would (the routes only read them). */
  const record = async (overrides: Partial<Deposit> & Pick<Deposit, 'depositId' | 'userId' | 'address'>): Promise<Deposit> => {
    const n = overrides.depositId.replace(/\D/g, '').padStart(2, '0');
    const txid = `${n}`.repeat(32).slice(0, 64);
    const deposit: Deposit = {
      transferId: txid, networkCode: 'TRON', assetSymbol: 'TRX', amount: 12_345_678_901_234_567_890n, fromAddress: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      txid, blockNumber: 100 + Number(n), status: 'pending', detectedAt: Date.UTC(2026, 0, 1, 12, 0, Number(n)), confirmedAt: null, version: 1,
      ...overrides,
    };
    await h.container.get(TOKENS.Stores).deposits.insert(deposit);
    return deposit;
  };

  beforeAll(async () => {
    h = await startHarness();
    [u, other] = await Promise.all([userWithWallets(h), userWithWallets(h)]);
    await record({ depositId: 'dep-1', userId: u.userId, address: u.sub });
    await record({ depositId: 'dep-2', userId: u.userId, address: u.sub, assetSymbol: 'USDT', amount: 25_000_000n, status: 'confirmed',
      confirmedAt: Date.UTC(2026, 0, 1, 12, 1, 0) });
    await record({ depositId: 'dep-3', userId: u.userId, address: u.main, status: 'reverted' });
    await record({ depositId: 'dep-4', userId: other.userId, address: other.sub });
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  const ids = (data: { items: { deposit_id: string }[] }): string[] => data.items.map((d) => d.deposit_id);

  it('GET /deposits: the caller\'s deposits newest first, exactly the documented fields, amounts as integer strings', async () => {
    const data = ok(await h.call('GET', '/api/deposits', { token: u.apiToken }));
    expect(ids(data)).toEqual(['dep-3', 'dep-2', 'dep-1']);
    expect(data.pagination).toEqual({ page: 1, per_page: 20, total: 3, pages: 1 });
    const confirmed = data.items[1];
    expect(Object.keys(confirmed).sort()).toEqual(['address', 'amount', 'asset_symbol', 'block_number', 'confirmed_at', 'deposit_id', 'detected_at',
      'from_address', 'network_code', 'status', 'txid'].sort());
    expect(confirmed).toMatchObject({ address: u.sub, asset_symbol: 'USDT', amount: '25000000', status: 'confirmed', network_code: 'TRON',
      block_number: 102, detected_at: '2026-01-01 12:00:02', confirmed_at: '2026-01-01 12:01:00' });
    expect(data.items[2]).toMatchObject({ amount: '12345678901234567890', confirmed_at: null });
    expect(data.items[2].detected_at).toMatch(WALLET_TIME);
    expectDocumented(h, 'GET', '/api/deposits', data);
  });

  it('GET /deposits filters by address, asset_symbol and status, and pages like /wallets', async () => {
    const list = async (query: string) => ids(ok(await h.call('GET', `/api/deposits?${query}`, { token: u.apiToken })));
    expect(await list(`address=${u.sub}`)).toEqual(['dep-2', 'dep-1']);
    expect(await list('asset_symbol=USDT')).toEqual(['dep-2']);
    expect(await list('status=reverted')).toEqual(['dep-3']);
    expect(await list(`address=${u.sub}&status=pending&asset_symbol=TRX`)).toEqual(['dep-1']);
    expect(await list(`address=${other.sub}`)).toEqual([]);
    const page = ok(await h.call('GET', '/api/deposits?page=2&per_page=2', { token: u.apiToken }));
    expect(ids(page)).toEqual(['dep-1']);
    expect(page.pagination).toEqual({ page: 2, per_page: 2, total: 3, pages: 2 });
  });

  it('bad filters are 422 VALIDATION-ERROR naming the field', async () => {
    for (const [query, field] of [['status=settled', 'status'], ['asset_symbol=usdt', 'asset_symbol'], ['address=', 'address'],
      ['per_page=101', 'per_page'], ['page=0', 'page']] as const) {
      const result = await h.call('GET', `/api/deposits?${query}`, { token: u.apiToken });
      fails(result, 422, 'VALIDATION-ERROR');
      expect((result.json as { message: string }).message).toContain(field);
    }
    fails(await h.call('GET', `/api/wallets/${u.sub}/deposits?status=nope`, { token: u.apiToken }), 422, 'VALIDATION-ERROR');
  });

  it('GET /deposits/{depositId}: the caller\'s deposit; another user\'s or an unknown id is 404 DEPOSIT-NOT-FOUND', async () => {
    const data = ok(await h.call('GET', '/api/deposits/dep-2', { token: u.apiToken }));
    expect(data).toMatchObject({ deposit_id: 'dep-2', amount: '25000000', status: 'confirmed' });
    expectDocumented(h, 'GET', '/api/deposits/:depositId', data);
    fails(await h.call('GET', '/api/deposits/dep-4', { token: u.apiToken }), 404, 'DEPOSIT-NOT-FOUND');
    fails(await h.call('GET', '/api/deposits/unknown', { token: u.apiToken }), 404, 'DEPOSIT-NOT-FOUND');
    expect(ok(await h.call('GET', '/api/deposits/dep-4', { token: other.apiToken })).deposit_id).toBe('dep-4');
  });

  // Issue #34: an automatic collection trigger is visible, pending until the worker starts it (it may wait for energy).
  it('a deposit that triggered an automatic collection shows auto_collect: pending while due, then started or skipped; others show none', async () => {
    const v = await userWithWallets(h);
    await record({ depositId: 'dep-5', userId: v.userId, address: v.sub, assetSymbol: 'USDT', amount: 5_000_000n, status: 'confirmed',
      confirmedAt: Date.UTC(2026, 0, 1, 12, 2, 0), autoCollect: 'due' });
    const pending = ok(await h.call('GET', '/api/deposits/dep-5', { token: v.apiToken }));
    expect(pending).toMatchObject({ deposit_id: 'dep-5', auto_collect: 'pending' });
    expectDocumented(h, 'GET', '/api/deposits/:depositId', pending);
    const deposits = h.container.get(TOKENS.Stores).deposits;
    for (const mark of ['started', 'skipped'] as const) {
      const stored = (await deposits.findById('dep-5'))!;
      await h.container.get(TOKENS.Stores).uow.commit({ deposits: [{ ...stored, autoCollect: mark, version: stored.version + 1 }] });
      expect(ok(await h.call('GET', '/api/deposits/dep-5', { token: v.apiToken })).auto_collect).toBe(mark);
    }
    expect(ok(await h.call('GET', '/api/deposits/dep-2', { token: u.apiToken }))).not.toHaveProperty('auto_collect');
  });

  it('GET /wallets/{address}/deposits: that address\'s deposits, filtered; a foreign address is 404', async () => {
    const data = ok(await h.call('GET', `/api/wallets/${u.sub}/deposits`, { token: u.apiToken }));
    expect(ids(data)).toEqual(['dep-2', 'dep-1']);
    expectDocumented(h, 'GET', '/api/wallets/:address/deposits', data);
    expect(ids(ok(await h.call('GET', `/api/wallets/${u.sub}/deposits?status=pending`, { token: u.apiToken })))).toEqual(['dep-1']);
    expect(ids(ok(await h.call('GET', `/api/wallets/${u.main}/deposits`, { token: u.apiToken })))).toEqual(['dep-3']);
    fails(await h.call('GET', `/api/wallets/${other.sub}/deposits`, { token: u.apiToken }), 404, 'BIZ-WALLET-ADDRESS-NOT-FOUND');
  });

  it('needs a Developer API token', async () => {
    expect((await h.call('GET', '/api/deposits')).status).toBe(401);
    expect((await h.call('GET', '/api/deposits', { token: u.session })).status).toBe(403);
  });
});
