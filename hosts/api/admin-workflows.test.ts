/**
 * GET /api/admin/webhooks/deliveries/dead and GET /api/admin/workflows/failed (issue #38 item 2, the operator console's failed workflows): the FAILED commands and
 * collection tasks of every account within the window, newest first with their last error, and the collection tasks
 * per status. Memory adapters behind the real composition; the failed rows are written to the stores as the worker
 * leaves them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aCommand, addressOf, aDelivery, aTask } from '../../contracts-tests/support/fixtures.js';
import { TOKENS } from '../composition/tokens.js';
import { expectAnswersDocumented, expectDocumented, fails, ok, userWithWallets } from './api-test-fixtures.js';
import { startHarness, type ApiHarness } from './test-harness.js';

const DAY = 86_400_000;

describe('GET /api/admin/workflows/failed', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('lists every account\'s failed commands and tasks of the window, newest first with their last error; counts tasks per status', async () => {
    const { commands, uow } = h.container.get(TOKENS.Stores);
    const now = h.clock.now();
    const failed = { status: 4 as const, errorCode: 'CHAIN-TRANSACTION-FAILED' };
    await commands.insert(aCommand({ ...failed, commandNo: 'CF-A', userId: 11, type: 2, lastError: 'OUT_OF_ENERGY', finishedAt: now - 2 * DAY }), { locking: false });
    await commands.insert(aCommand({ ...failed, commandNo: 'CF-OLD', userId: 12, type: 4, lastError: 'old', finishedAt: now - 10 * DAY }), { locking: false });
    await commands.insert(aCommand({ commandNo: 'CS-A', userId: 11, type: 2, status: 3, finishedAt: now - DAY }), { locking: false });
    await commands.insert(aCommand({ commandNo: 'CR-A', userId: 11, type: 2, status: 2, lastError: 'node timeout, retrying' }), { locking: false });
    await uow.commit({ newTasks: [
      aTask({ taskNo: 'KF-B', userId: 13, address: addressOf(13), status: 12, errorCode: 'CHAIN-BROADCAST-FAILED', lastError: 'refused', finishedAt: now - DAY }),
      aTask({ taskNo: 'KR-B', userId: 13, address: addressOf(14), status: 6 }),
      aTask({ taskNo: 'KD-B', userId: 13, address: addressOf(15), status: 11, finishedAt: now - DAY }),
    ] });

    const week = ok(await h.call('GET', '/api/admin/workflows/failed', { token: h.adminToken }));
    expectDocumented(h, 'GET', '/api/admin/workflows/failed', week);
    expect(week.items).toEqual([
      {
        kind: 'collection', id: 'KF-B', user_id: 13, type: 'COLLECTION', address: addressOf(13), error_code: 'CHAIN-BROADCAST-FAILED',
        last_error: 'refused', finished_at: expect.any(String),
      },
      {
        kind: 'command', id: 'CF-A', user_id: 11, type: 'WITHDRAWAL', address: addressOf(1), error_code: 'CHAIN-TRANSACTION-FAILED',
        last_error: 'OUT_OF_ENERGY', finished_at: expect.any(String),
      },
    ]);
    expect(Date.parse(week.items[0].finished_at)).toBe(now - DAY);
    expect(Date.parse(week.since)).toBe(now - 7 * DAY);
    expect(week.truncated).toBe(false);
    expect(week.collections_by_status).toEqual({ FAILED: 1, COLLECTING: 1, DONE: 1 });

    const month = ok(await h.call('GET', '/api/admin/workflows/failed?days=30', { token: h.adminToken }));
    expect(month.items.map((i: { id: string }) => i.id)).toEqual(['KF-B', 'CF-A', 'CF-OLD']);
    expect(month.items[2]).toMatchObject({ type: 'STAKE', user_id: 12, last_error: 'old' });

    for (const days of ['0', '31', 'x', '-1']) {
      fails(await h.call('GET', `/api/admin/workflows/failed?days=${days}`, { token: h.adminToken }), 422, 'VALIDATION-ERROR');
    }
  });

  it('lists every account\'s DEAD deliveries newest first, paged, with the last attempt; no other status', async () => {
    const { deliveries } = h.container.get(TOKENS.Stores);
    const now = h.clock.now();
    const attempt = (at: number, httpStatus: number | null, error: string | null) => ({ at, httpStatus, error, durationMs: 5, response: null, redelivery: false, url: null });
    const rows = [
      { n: 1, userId: 21, status: 5 as const, createdAt: now - 3_000, attempts: [attempt(now - 2_000, 500, 'HTTP 500'), attempt(now - 1_000, null, 'timeout')] },
      { n: 2, userId: 22, status: 5 as const, createdAt: now - 1_000, attempts: [attempt(now - 500, 404, 'HTTP 404')] },
      { n: 3, userId: 21, status: 3 as const, createdAt: now, attempts: [attempt(now, 200, null)] },
    ];
    for (const r of rows) {
      await deliveries.insert(aDelivery({
        deliveryId: `DD-${r.n}`, eventId: `00000000-0000-4000-8000-0000000000${String(r.n).padStart(2, '0')}`, userId: r.userId,
        status: r.status, createdAt: r.createdAt, attempts: r.attempts, nextAttemptAt: null,
      }));
    }
    const dead = ok(await h.call('GET', '/api/admin/webhooks/deliveries/dead', { token: h.adminToken }));
    expectDocumented(h, 'GET', '/api/admin/webhooks/deliveries/dead', dead);
    expect(dead.items).toEqual([
      {
        delivery_id: 'DD-2', user_id: 22, event_type: 'collection.completed', url: 'https://hooks.example.com/in', attempts: 1,
        last_attempt_at: expect.any(String), last_http_status: 404, last_error: 'HTTP 404', created_at: expect.any(String),
      },
      {
        delivery_id: 'DD-1', user_id: 21, event_type: 'collection.completed', url: 'https://hooks.example.com/in', attempts: 2,
        last_attempt_at: expect.any(String), last_http_status: null, last_error: 'timeout', created_at: expect.any(String),
      },
    ]);
    expect(Date.parse(dead.items[1].last_attempt_at)).toBe(now - 1_000);
    expect(dead.pagination).toEqual({ page: 1, per_page: 20, total: 2, pages: 1 });
    const second = ok(await h.call('GET', '/api/admin/webhooks/deliveries/dead?page=2&per_page=1', { token: h.adminToken }));
    expect(second.items.map((d: { delivery_id: string }) => d.delivery_id)).toEqual(['DD-1']);
    fails(await h.call('GET', '/api/admin/webhooks/deliveries/dead?per_page=0', { token: h.adminToken }), 422, 'VALIDATION-ERROR');
  });

  it('both are the admin\'s only: a session or no token is refused', async () => {
    const u = await userWithWallets(h, 'pro');
    for (const path of ['/api/admin/workflows/failed', '/api/admin/webhooks/deliveries/dead']) {
      fails(await h.call('GET', path, { token: u.session }), 403, 'FORBIDDEN');
      fails(await h.call('GET', path, {}), 401, 'UNAUTHENTICATED');
    }
  });
});
