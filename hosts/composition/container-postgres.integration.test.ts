import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { PgAccountRepository } from '../../adapters/postgres/pg-account-repository.js';
import { PgScanCursorStore } from '../../adapters/postgres/pg-scan-cursor-store.js';
import { PgWalletRepository } from '../../adapters/postgres/pg-wallet-repository.js';
import { createTestDatabase, startPostgresServer } from '../../contracts-tests/harness/postgres.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { startApiServer } from '../api/api-server.js';
import { ConfigError, loadConfig } from './config.js';
import { openComposition } from './container.js';
import { TOKENS } from './tokens.js';

// STORE=postgres through openComposition against the run's PostgreSQL (the harness's throwaway cluster, or
// DATABASE_URL); the readiness test stops a server of its own, never the shared one.
const silent = pino({ level: 'silent' });
const hasher = new NodeSecretHasher({ cost: TEST_SCRYPT_COST });

/** A dev configuration on STORE=postgres at `databaseUrl`, the chain unreachable (not what these tests look at). */
function postgresConfig(databaseUrl: string, extra: Record<string, string> = {}) {
  return loadConfig({
    STORE: 'postgres', DATABASE_URL: databaseUrl, TRON_FULL_HOST: 'http://127.0.0.1:1', KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), ...extra,
  }, { mode: 'dev' });
}

/** Sessions our pools hold on `database` (application_name is the pool's default, `custody-hub`). */
async function sessionsOn(serverUrl: string, database: string): Promise<number> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'custody-hub'`, [database]);
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

describeWithPostgres('composition with STORE=postgres', (serverUrl) => {
  it('opens a pool on DATABASE_URL (migrations applied), binds the PostgreSQL adapters, stores there, and closes the pool on close()', async () => {
    const database = await createTestDatabase(serverUrl, 'composition');
    try {
      const composition = await openComposition(postgresConfig(database.url, { DATABASE_POOL_SIZE: '2' }), { logger: silent, hasher });
      const server = await startApiServer(composition.container.get(TOKENS.ApiHost).h3, { port: 0 });
      try {
        const stores = composition.container.get(TOKENS.Stores);
        expect(stores.accounts).toBeInstanceOf(PgAccountRepository);
        expect(stores.wallets).toBeInstanceOf(PgWalletRepository);
        expect(stores.scanCursors).toBeInstanceOf(PgScanCursorStore);
        expect(await composition.container.get(TOKENS.Readiness)()).toContainEqual({ name: 'store', ok: true });
        const response = await fetch(`${server.url}/api/auth/register`, {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'p@example.com', password: 'correct horse battery' }),
        });
        expect(response.status).toBe(201);
        // Another client sees the account in the configured database.
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          expect((await client.query('SELECT email FROM accounts')).rows).toEqual([{ email: 'p@example.com' }]);
        } finally {
          await client.end();
        }
        // Eight probes at once queue on DATABASE_POOL_SIZE connections instead of opening one each.
        await Promise.all(Array.from({ length: 8 }, () => composition.container.get(TOKENS.Readiness)()));
        expect(await sessionsOn(serverUrl, database.name)).toBeGreaterThan(0);
        expect(await sessionsOn(serverUrl, database.name)).toBeLessThanOrEqual(2);
      } finally {
        await server.close();
        await composition.close();
      }
      // A closed connection's server backend leaves pg_stat_activity a moment after the client hangs up (the server
      // exits it asynchronously; under load that moment is visible), so the count is asked until it settles: a pool
      // left open keeps it above 0 for good.
      await expect.poll(() => sessionsOn(serverUrl, database.name), { timeout: 5_000, interval: 100 }).toBe(0);
    } finally {
      await database.drop();
    }
  });

  it('readiness reports the store: ok while the server runs, not ok once it is stopped, ok again after it restarts', async () => {
    const server = await startPostgresServer();
    try {
      const database = await createTestDatabase(server.url, 'readiness');
      const composition = await openComposition(postgresConfig(database.url), { logger: silent, hasher });
      try {
        const readiness = composition.container.get(TOKENS.Readiness);
        expect(await readiness()).toContainEqual({ name: 'store', ok: true });
        await server.stop('fast');
        expect(await readiness()).toContainEqual({ name: 'store', ok: false });
        await server.start();
        expect(await readiness()).toContainEqual({ name: 'store', ok: true });
      } finally {
        await composition.close();
      }
    } finally {
      await server.destroy();
    }
  }, 90_000);

  it('a DATABASE_URL the server refuses is a ConfigError naming DATABASE_URL, without the password', async () => {
    const url = new URL(serverUrl);
    url.username = 'postgres';
    url.password = 'wr0ng-pg-pw';
    url.pathname = `/custody_no_such_db_${randomBytes(4).toString('hex')}`;
    const error = await openComposition(postgresConfig(url.toString()), { logger: silent }).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('DATABASE_URL');
    expect((error as Error).message).toMatch(/^configuration: DATABASE_URL cannot be used: PostgreSQL at postgres:\/\/postgres:\*\*\*@.*does not exist/);
    expect((error as Error).message).not.toContain('wr0ng-pg-pw');
  });
});
