import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness, type HttpResult } from './test-harness.js';
import { cacheCollectable, createWallet, fails, ok, signUp, userWithWallets, expectAnswersDocumented } from './api-test-fixtures.js';

function tally(results: readonly HttpResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of results) counts[`${r.status} ${r.json?.code}`] = (counts[`${r.status} ${r.json?.code}`] ?? 0) + 1;
  return counts;
}

/** The spec's uniqueness rules hold under parallel HTTP requests, not only one at a time. */
describe('parallel requests keep the spec rules', () => {
  let h: ApiHarness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('one main address per network: of 8 parallel creations one is 201, the rest 409', async () => {
    const u = await signUp(h);
    const results = await Promise.all(Array.from({ length: 8 }, () =>
      h.call('POST', '/api/wallets', { token: u.apiToken, body: { network_code: 'TRON', address_type: 1 } })));
    expect(tally(results)).toEqual({ '201 OK': 1, '409 BIZ-MAIN-ADDRESS-ALREADY-EXISTS': 7 });
    expect(ok(await h.call('GET', '/api/wallets?type=1', { token: u.apiToken })).pagination.total).toBe(1);
  });

  it('the sub-address quota holds: with quota 3, 12 parallel creations make exactly 3', async () => {
    const u = await signUp(h);
    await createWallet(h, u, 1);
    ok(await h.call('PUT', `/api/admin/users/${u.userId}/quota`, { token: h.adminToken, body: { max_sub_addresses: 3 } }));
    const results = await Promise.all(Array.from({ length: 12 }, () =>
      h.call('POST', '/api/wallets', { token: u.apiToken, body: { network_code: 'TRON', address_type: 2 } })));
    expect(tally(results)).toEqual({ '201 OK': 3, '422 BIZ-SUB-ADDRESS-QUOTA-EXCEEDED': 9 });
    expect(ok(await h.call('GET', '/api/wallets?type=2', { token: u.apiToken })).pagination.total).toBe(3);
  });

  it('one active cashier token per address: of 8 parallel issues one is 201, the rest 409', async () => {
    const u = await userWithWallets(h);
    const results = await Promise.all(Array.from({ length: 8 }, () =>
      h.call('POST', '/api/cashier/tokens', { token: u.apiToken, body: { address: u.sub } })));
    expect(tally(results)).toEqual({ '201 OK': 1, '409 CASHIER-TOKEN-ACTIVE-EXISTS': 7 });
  });

  it('one active command per address: parallel collections, cashier collects and withdrawals start exactly one', async () => {
    const u = await userWithWallets(h);
    // Something every kind of command can move, so that only the address lock decides.
    await cacheCollectable(h, u.sub);
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: u.apiToken, body: { address: u.sub } }), 201).token;
    const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });
    const results = await Promise.all([
      ...Array.from({ length: 4 }, () => h.call('POST', '/api/collections', { token: u.apiToken, headers: key(), body: { address: u.sub, asset_symbol: 'TRX' } })),
      ...Array.from({ length: 4 }, () => h.call('POST', '/api/cashier/collect', { token: ct, headers: key(), body: { asset_symbol: 'TRX' } })),
      ...Array.from({ length: 4 }, () => h.call('POST', '/api/transfers', {
        token: u.session, headers: key(), body: { from_address: u.sub, to_address: u.main, asset_symbol: 'TRX', amount: '1' },
      })),
      ...Array.from({ length: 2 }, () => h.call('POST', `/api/wallets/${u.sub}/withdraw-reward`, { token: u.session, headers: key() })),
    ]);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) fails(r, 409, 'BIZ-COMMAND-LOCKED');
    const active = ok(await h.call('GET', '/api/commands?status=1', { token: u.apiToken })).items;
    expect(active).toHaveLength(1);
  });
});
