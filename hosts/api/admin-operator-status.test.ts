/**
 * GET /api/admin/health and GET /api/admin/daily-summary (issue #38 item 2): what the worker wrote to the store
 * (OperatorStatusStore), with its age on the API's clock; admin only. Memory adapters behind the real composition; the
 * records are written as the worker writes them (hosts/worker/operator-status.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../composition/tokens.js';
import { expectAnswersDocumented, expectDocumented, fails, ok, userWithWallets } from './api-test-fixtures.js';
import { HEALTH_STALE_AFTER_S } from './routes/operator-status.routes.js';
import { startHarness, type ApiHarness } from './test-harness.js';

describe('the operator\'s view of the worker: GET /api/admin/health and /api/admin/daily-summary', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('before the worker wrote anything: status none, nulls', async () => {
    const health = ok(await h.call('GET', '/api/admin/health', { token: h.adminToken }));
    expectDocumented(h, 'GET', '/api/admin/health', health);
    expect(health).toEqual({ status: 'none', stale_after_seconds: HEALTH_STALE_AFTER_S, written_at: null, age_seconds: null, snapshot: null });
    const summary = ok(await h.call('GET', '/api/admin/daily-summary', { token: h.adminToken }));
    expect(summary).toEqual({ written_at: null, age_seconds: null, summary: null });
  });

  it('the snapshot in snake_case with its age; fresh, then stale once older than 180 s; the latest summary', async () => {
    const store = h.container.get(TOKENS.Stores).operatorStatus;
    const at = h.clock.now();
    await store.put('health', {
      scanner: { lagBlocks: 2, lagSeconds: 6, chainMismatch: null }, lastTickAt: at - 1_000,
      nodeCalls: { scan: 40, plan: 3 }, nodeFailures: { 'http://127.0.0.1:9090': 1 },
      nodes: [{
        node: 'http://127.0.0.1:9090', calls: 40, consecutiveFailures: 1, paused: true, pausedUntil: at + 60_000, budget: 1_000,
        budgetLeft: 960, lastError: 'wallet/getnowblock: node answered HTTP 429', failures: 1,
      }],
    }, at);
    h.clock.advance(12_000);
    const fresh = ok(await h.call('GET', '/api/admin/health', { token: h.adminToken }));
    expectDocumented(h, 'GET', '/api/admin/health', fresh);
    expect(fresh).toMatchObject({ status: 'fresh', age_seconds: 12, written_at: new Date(at).toISOString().replace('Z', '+00:00') });
    expect(fresh.snapshot).toEqual({
      scanner: { lag_blocks: 2, lag_seconds: 6, chain_mismatch: null }, last_tick_at: at - 1_000,
      node_calls: { scan: 40, plan: 3 }, node_failures: { 'http://127.0.0.1:9090': 1 },
      nodes: [{
        node: 'http://127.0.0.1:9090', calls: 40, consecutive_failures: 1, paused: true, paused_until: at + 60_000, budget: 1_000,
        budget_left: 960, last_error: 'wallet/getnowblock: node answered HTTP 429', failures: 1,
      }],
    });
    h.clock.advance(HEALTH_STALE_AFTER_S * 1_000);
    expect(ok(await h.call('GET', '/api/admin/health', { token: h.adminToken }))).toMatchObject({ status: 'stale', age_seconds: 12 + HEALTH_STALE_AFTER_S });

    await store.put('daily-summary', {
      period: 'day', collections: 3, failedCollections: 1, costSun: '1345000', stuck: 0, deadWebhooks: 2, ledgerDiscrepancies: 0,
      ledgerSweeps: 3, ledgerFeesSun: '1345000', standingDiscrepancies: [],
    }, h.clock.now());
    const summary = ok(await h.call('GET', '/api/admin/daily-summary', { token: h.adminToken }));
    expectDocumented(h, 'GET', '/api/admin/daily-summary', summary);
    expect(summary).toEqual({
      written_at: expect.any(String), age_seconds: 0,
      summary: {
        period: 'day', collections: 3, failed_collections: 1, cost_sun: '1345000', stuck: 0, dead_webhooks: 2, ledger_discrepancies: 0,
        ledger_sweeps: 3, ledger_fees_sun: '1345000', standing_discrepancies: [],
      },
    });
  });

  it('admin only: a merchant\'s session is refused 403, no credential 401', async () => {
    const u = await userWithWallets(h, 'pro');
    for (const path of ['/api/admin/health', '/api/admin/daily-summary']) {
      fails(await h.call('GET', path, { token: u.session }), 403, 'FORBIDDEN');
      fails(await h.call('GET', path, {}), 401, 'UNAUTHENTICATED');
    }
  });
});
