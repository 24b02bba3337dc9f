import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { ManualClock } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { createTestDatabase } from '../../contracts-tests/harness/postgres.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { loadConfig } from '../composition/config.js';
import { openComposition } from '../composition/container.js';
import { CustodyMetrics } from '../composition/metrics.js';
import { TOKENS } from '../composition/tokens.js';
import { runDailySummary } from './maintenance.js';
import { operatorStatusOf } from './operator-status.js';

// The worker and the API as separate processes (npm run worker, npm run api) share the operator status only through
// the store: two compositions on one PostgreSQL database, the worker's writes read through the API's admin routes.
const silent = pino({ level: 'silent' });
const hasher = new NodeSecretHasher({ cost: TEST_SCRYPT_COST });

describeWithPostgres('operator status between a worker and an API process (STORE=postgres)', (serverUrl) => {
  it('the API answers the health snapshot and the daily summary the worker wrote, with their age on its own clock', async () => {
    const database = await createTestDatabase(serverUrl, 'operator_status_hosts');
    const config = loadConfig({
      STORE: 'postgres', DATABASE_URL: database.url, TRON_FULL_HOST: 'http://127.0.0.1:1', KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    }, { mode: 'dev' });
    const clock = new ManualClock(1_800_000_000_000);
    const worker = await openComposition(config, { logger: silent, hasher, clock });
    const api = await openComposition(config, { logger: silent, hasher, clock });
    try {
      const status = operatorStatusOf(worker);
      await status.writeHealth();
      const metrics = new CustodyMetrics('custody-worker');
      metrics.webhookAttempt(5, 10);
      await runDailySummary(metrics, { info: () => undefined, warn: () => undefined, error: () => undefined }, status);
      clock.advance(5_000);
      const get = async (path: string) => {
        const response = await api.container.get(TOKENS.ApiHost).h3.fetch(new Request(`http://api.test${path}`, { headers: { authorization: `Bearer ${api.adminToken}` } }));
        expect(response.status).toBe(200);
        return ((await response.json()) as { data: Record<string, unknown> }).data;
      };
      const health = await get('/api/admin/health');
      expect(health).toMatchObject({ status: 'fresh', age_seconds: 5 });
      expect((health['snapshot'] as { nodes: unknown[] }).nodes).toEqual([expect.objectContaining({ node: 'http://127.0.0.1:1', calls: 0, paused: false })]);
      const summary = await get('/api/admin/daily-summary');
      expect(summary).toMatchObject({ age_seconds: 5, summary: { period: 'day', dead_webhooks: 1, standing_discrepancies: [] } });
    } finally {
      await worker.close();
      await api.close();
      await database.drop();
    }
  });
});
