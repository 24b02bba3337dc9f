import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from './test-harness.js';
import { createWallet, expectDocumented, fails, ok, userWithWallets, expectAnswersDocumented } from './api-test-fixtures.js';

const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });

/** DESIGN.md "Commands": staking operations over HTTP (session token), each accepted as a PENDING command. */
describe('staking endpoints', () => {
  let h: ApiHarness;
  let witness: string;

  beforeAll(async () => {
    h = await startHarness();
    witness = h.devnet.info().witnesses[0]!;
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  const operations = [
    { path: 'stake', type: 4, body: { resource: 'ENERGY', amount: '1000000' } },
    { path: 'unstake', type: 5, body: { resource: 'BANDWIDTH', amount: '1000000' } },
    { path: 'withdraw-unstaked', type: 6, body: undefined },
    { path: 'vote', type: 7, body: 'votes' },
    { path: 'withdraw-reward', type: 8, body: undefined },
  ] as const;

  it('each operation: 201 {command_no, status 1} of its command type; a second one on the address is 409 BIZ-COMMAND-LOCKED', async () => {
    const u = await userWithWallets(h, 'pro');
    for (const op of operations) {
      const address = await createWallet(h, u, 2);
      const body = op.body === 'votes' ? { votes: [{ witness, count: 3 }] } : op.body;
      const res = await h.call('POST', `/api/wallets/${address}/${op.path}`, { token: u.session, headers: key(), ...(body === undefined ? {} : { body }) });
      const accepted = ok(res, 201);
      expectDocumented(h, 'POST', `/api/wallets/:address/${op.path}`, accepted);
      expect(accepted.status).toBe(1);
      expect(ok(await h.call('GET', `/api/commands/${accepted.command_no}`, { token: u.apiToken })).type).toBe(op.type);
      fails(await h.call('POST', `/api/wallets/${address}/withdraw-reward`, { token: u.session, headers: key() }), 409, 'BIZ-COMMAND-LOCKED');
    }
  });

  it('stake holds the staked SUN as TRX balance_locked while pending', async () => {
    const u = await userWithWallets(h);
    h.devnet.fund(u.main, 9_000_000);
    ok(await h.call('POST', `/api/wallets/${u.main}/balances/refresh`, { token: u.apiToken, body: { force: true } }));
    ok(await h.call('POST', `/api/wallets/${u.main}/stake`, { token: u.session, headers: key(), body: { resource: 'ENERGY', amount: '2000000' } }), 201);
    const trx = ok(await h.call('GET', `/api/wallets/${u.main}/balances`, { token: u.apiToken })).items.find((i: { symbol: string }) => i.symbol === 'TRX');
    expect(trx).toMatchObject({ balance_available: '7000000', balance_locked: '2000000' });
  });

  it('validation: BIZ-AMOUNT-INVALID, resource, votes; 404 for an unknown address; 403 for a risky user; 403 with a dk_ token', async () => {
    const u = await userWithWallets(h);
    // The staking routes share one 10-a-minute window per user (docs/decisions.md 60): each call starts a fresh one.
    const stake = (body: unknown, address = u.main) => {
      h.clock.advance(61_000);
      return h.call('POST', `/api/wallets/${address}/stake`, { token: u.session, headers: key(), body });
    };
    for (const amount of ['0', '-5', '1.5', 'ten', 12]) fails(await stake({ resource: 'ENERGY', amount }), 422, 'BIZ-AMOUNT-INVALID');
    const resource = await stake({ resource: 'WATER', amount: '1' });
    fails(resource, 422, 'VALIDATION-ERROR');
    expect(resource.json.message).toContain('resource');
    for (const votes of [[], [{ witness: 'nope', count: 1 }], [{ witness, count: 0 }], [{ witness, count: 1 }, { witness, count: 2 }]]) {
      const res = await h.call('POST', `/api/wallets/${u.main}/vote`, { token: u.session, headers: key(), body: { votes } });
      fails(res, 422, 'VALIDATION-ERROR');
      expect(res.json.message).toContain('votes');
    }
    fails(await stake({ resource: 'ENERGY', amount: '1' }, 'TUnknownAddressXXXXXXXXXXXXXXXXXXX'), 404, 'BIZ-WALLET-ADDRESS-NOT-FOUND');
    fails(await h.call('POST', `/api/wallets/${u.main}/stake`, { token: u.apiToken, headers: key(), body: { resource: 'ENERGY', amount: '1' } }), 403, 'FORBIDDEN');
    ok(await h.call('POST', '/api/admin/risk/deny', { token: h.adminToken, body: { kind: 'user', value: String(u.userId), reason: 'test' } }), 201);
    fails(await stake({ resource: 'ENERGY', amount: '1' }), 403, 'RISK-REVIEW-BLOCKED');
  });
});
