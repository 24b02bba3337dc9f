/**
 * An API process killed between a request's effect and the record of its answer, on PostgreSQL (the crash test's
 * 409 BIZ-COMMAND-LOCKED on a retried key): the retry with the same Idempotency-Key gets the original answer or runs
 * the request exactly once.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectPostgres, type PostgresConnection } from '../../adapters/postgres/index.js';
import { createTestDatabase, type PostgresTestDatabase } from '../../contracts-tests/harness/postgres.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { TOKENS } from '../composition/tokens.js';
import { crashAndRetry } from './idempotency-crash.fixture.js';
import { fails, ok, userWithWallets } from './api-test-fixtures.js';
import { startHarness, type ApiHarness, type HttpResult } from './test-harness.js';

describeWithPostgres('idempotency across a crash on PostgreSQL', (serverUrl) => {
  let database: PostgresTestDatabase;
  let connection: PostgresConnection;
  let h: ApiHarness;

  beforeAll(async () => {
    database = await createTestDatabase(serverUrl, 'idempotency_crash');
    connection = await connectPostgres(database.url, { migrate: true });
    h = await startHarness({ postgres: connection, env: { STORE: 'postgres', DATABASE_URL: database.url, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await connection?.close();
    await database?.drop();
  });

  for (const point of ['between the effect and the record of its answer', 'after the effect and the answer are committed'] as const) {
    it(`killed ${point}: the retry gets the original answer or runs exactly once`, async () => {
      await crashAndRetry(h, point);
    });
  }

  it('a transfer refused by its address lock inside the scope: 409 BIZ-COMMAND-LOCKED, recorded and replayed', async () => {
    const u = await userWithWallets(h);
    const transfer = (key: string, amount: string): Promise<HttpResult> => h.call('POST', '/api/transfers', {
      token: u.session, headers: { 'idempotency-key': key }, body: { from_address: u.main, to_address: u.sub, asset_symbol: 'TRX', amount },
    });
    ok(await transfer(randomUUID(), '5'), 201);
    const key = randomUUID();
    const refused = await transfer(key, '6');
    fails(refused, 409, 'BIZ-COMMAND-LOCKED');
    const replay = await transfer(key, '6');
    expect({ status: replay.status, text: replay.text, replayed: replay.headers.get('idempotent-replayed') })
      .toEqual({ status: 409, text: refused.text, replayed: 'true' });
  });

  for (const kind of ['transfer', 'stake'] as const) {
    it(`a ${kind} whose locking write loses a race inside the scope: 409 BIZ-COMMAND-LOCKED, recorded and replayed`, async () => {
      const u = await userWithWallets(h);
      const send = (key: string, amount: string): Promise<HttpResult> => (kind === 'transfer'
        ? h.call('POST', '/api/transfers', {
          token: u.session, headers: { 'idempotency-key': key }, body: { from_address: u.main, to_address: u.sub, asset_symbol: 'TRX', amount },
        })
        : h.call('POST', `/api/wallets/${u.main}/stake`, { token: u.session, headers: { 'idempotency-key': key }, body: { resource: 'ENERGY', amount } }));
      // Another request's command, written and not yet committed: the API's pre-check cannot see it, its insert waits.
      let release!: () => void;
      const held = new Promise<void>((resolve) => { release = resolve; });
      let written!: () => void;
      const isWritten = new Promise<void>((resolve) => { written = resolve; });
      const app = h.container.get(TOKENS.Application);
      const other = h.container.get(TOKENS.Stores).uow.atomically(async () => {
        await (kind === 'transfer'
          ? app.transfers.create(u.userId, { from_address: u.main, to_address: u.sub, asset_symbol: 'TRX', amount: '5' })
          : app.staking.stake(u.userId, u.main, { resource: 'ENERGY', amount: '1000000' }));
        written();
        await held;
      });
      await isWritten;
      const key = randomUUID();
      const pending = send(key, '2000000');
      for (let waited = 0; ; waited += 20) {
        const { rows } = await connection.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
        if (rows[0]!.n > 0) break;
        if (waited > 10_000) throw new Error('the API request never waited on the other insert');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      release();
      await other;
      const refused = await pending;
      fails(refused, 409, 'BIZ-COMMAND-LOCKED');
      const replay = await send(key, '2000000');
      expect({ status: replay.status, text: replay.text, replayed: replay.headers.get('idempotent-replayed') })
        .toEqual({ status: 409, text: refused.text, replayed: 'true' });
    });
  }
});
