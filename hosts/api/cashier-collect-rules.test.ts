import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from './test-harness.js';
import { expectAnswersDocumented, fails, ok, userWithWallets } from './api-test-fixtures.js';

type User = Awaited<ReturnType<typeof userWithWallets>>;

/**
 * POST /cashier/collect under docs/decisions.md 44 (issue 12): a payer is never locked out of a payment they made.
 * Only a non-terminal task blocks another collection; a zero or below-minimum cached balance is refused before any
 * task exists.
 */
describe('cashier collect rules (docs/decisions.md 44)', () => {
  let h: ApiHarness;
  const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });
  const collect = (ct: string, asset: string) => h.call('POST', '/api/cashier/collect', { token: ct, headers: key(), body: { asset_symbol: asset } });
  const collections = async (u: User): Promise<number> => ok(await h.call('GET', '/api/commands?type=3', { token: u.apiToken })).pagination.total;

  /** A deposit on the devnet, then the cached balance refreshed (the scanner's work, a block later). */
  async function deposit(u: User, asset: 'TRX' | 'USDT', amount: number): Promise<void> {
    if (asset === 'TRX') h.devnet.fund(u.sub, amount);
    else h.devnet.fundToken(u.sub, BigInt(amount));
    ok(await h.call('POST', `/api/wallets/${u.sub}/balances/refresh`, { token: u.apiToken, body: { force: true } }));
  }

  async function payer(): Promise<{ u: User; ct: string }> {
    const u = await userWithWallets(h);
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: u.apiToken, body: { address: u.sub } }), 201).token as string;
    return { u, ct };
  }

  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('a zero balance is 422 BIZ-AMOUNT-BELOW-MINIMUM with no minimum configured: no task, no command, no expiry slide', async () => {
    const { u, ct } = await payer();
    const before = ok(await h.call('GET', '/api/cashier/session', { token: ct })).expires_at;
    h.clock.advance(60_000);
    for (const asset of ['USDT', 'TRX']) fails(await collect(ct, asset), 422, 'BIZ-AMOUNT-BELOW-MINIMUM');
    // Read through the developer's list, which does not slide it either.
    expect(ok(await h.call('GET', '/api/cashier/tokens', { token: u.apiToken })).data[0].expires_at).toBe(before);
    expect(ok(await h.call('GET', '/api/cashier/task', { token: ct }))).toBeNull();
    expect(await collections(u)).toBe(0);
    // A balance of the other asset does not count for this one.
    await deposit(u, 'TRX', 3_000_000);
    fails(await collect(ct, 'USDT'), 422, 'BIZ-AMOUNT-BELOW-MINIMUM');
    expect(await collections(u)).toBe(0);
  });

  it('below the configured minimum is 422; one unit more starts a task', async () => {
    const { u, ct } = await payer();
    ok(await h.call('PUT', '/api/subscriptions/config', {
      token: u.session, body: { service_code: 'developer', config: { min_collect_amounts: { USDT: '10500000' } } },
    }));
    await deposit(u, 'USDT', 10_499_999);
    fails(await collect(ct, 'USDT'), 422, 'BIZ-AMOUNT-BELOW-MINIMUM');
    expect(await collections(u)).toBe(0);
    await deposit(u, 'USDT', 1);
    expect(ok(await collect(ct, 'USDT'), 201).status).toBe(1);
  });

  it('after a FAILED task the payer may collect again; active_task is the latest task; a running one is 409', async () => {
    const { u, ct } = await payer();
    await deposit(u, 'USDT', 10_500_000);
    const first = ok(await collect(ct, 'USDT'), 201);
    fails(await collect(ct, 'USDT'), 409, 'BIZ-COMMAND-LOCKED');
    fails(await collect(ct, 'TRX'), 409, 'BIZ-COMMAND-LOCKED');
    ok(await h.call('POST', `/api/admin/commands/${first.command_no}/cancel`, { token: h.adminToken }));
    const failed = ok(await h.call('GET', '/api/cashier/session', { token: ct })).active_task;
    expect(failed).toMatchObject({ task_no: first.task_no, status: 12 });
    expect(failed.finished_at).not.toBeNull();
    h.clock.advance(1_000);
    const second = ok(await collect(ct, 'USDT'), 201);
    expect(second.task_no).not.toBe(first.task_no);
    expect(ok(await h.call('GET', '/api/cashier/session', { token: ct })).active_task).toEqual(second);
    expect(ok(await h.call('GET', '/api/cashier/task', { token: ct }))).toEqual(second);
    fails(await collect(ct, 'USDT'), 409, 'BIZ-COMMAND-LOCKED');
    expect(await collections(u)).toBe(2);
  });

  it('a running developer collection on the address is 409 for the payer until it ends', async () => {
    const { u, ct } = await payer();
    await deposit(u, 'TRX', 2_000_000);
    const task = ok(await h.call('POST', '/api/collections', { token: u.apiToken, headers: key(), body: { address: u.sub, asset_symbol: 'TRX' } }), 201);
    fails(await collect(ct, 'TRX'), 409, 'BIZ-COMMAND-LOCKED');
    ok(await h.call('POST', `/api/admin/commands/${task.command_no}/cancel`, { token: h.adminToken }));
    expect(ok(await collect(ct, 'TRX'), 201).status).toBe(1);
  });
});
