import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { connectPostgres, type PostgresConnection } from '../../adapters/postgres/index.js';
import { createMigratedTestDatabase, type PostgresTestDatabase } from '../../contracts-tests/harness/postgres.js';
import { startHarness, type ApiHarness } from './test-harness.js';

/** The API harness on a throwaway PostgreSQL database, and a connection of its own for the test's direct reads. */
export interface PostgresApi {
  readonly h: ApiHarness;
  readonly connection: PostgresConnection;
}

/**
 * Registers, in the calling describe block, a fresh migrated database named after `label`, an API harness storing
 * there (STORE=postgres, a random key-encryption key), and their clean-up. The fields are set once beforeAll has run.
 */
export function postgresApi(serverUrl: string, label: string): PostgresApi {
  const api = {} as { h: ApiHarness; connection: PostgresConnection; database: PostgresTestDatabase };
  beforeAll(async () => {
    api.database = await createMigratedTestDatabase(serverUrl, label);
    api.connection = await connectPostgres(api.database.url, { migrate: true });
    api.h = await startHarness({
      postgres: api.connection,
      env: { STORE: 'postgres', DATABASE_URL: api.database.url, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    });
  }, 60_000);
  afterAll(async () => {
    await api.h?.close();
    await api.connection?.close();
    await api.database?.drop();
  });
  return api;
}
