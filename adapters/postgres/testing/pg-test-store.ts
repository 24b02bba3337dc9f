import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase } from '../../../contracts-tests/harness/postgres.js';
import { connectPostgres, type PostgresConnection } from '../pg-connection.js';
import { MIGRATIONS_TABLE } from '../pg-migrations.js';

/** A migrated database of its own for one test file, on the run's shared server. */
export interface PgTestStore {
  readonly url: string;
  readonly connection: PostgresConnection;
  /** Empties every table of the store (the migrations' record stays): a fresh subject per test. */
  clear(): Promise<void>;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

/** Creates and migrates a database named after `label` on the server at `serverUrl`. */
export async function openPgTestStore(serverUrl: string, label: string, poolSize = 20): Promise<PgTestStore> {
  const database = await createTestDatabase(serverUrl, label);
  const connection = await connectPostgres(database.url, { poolSize });
  const { rows } = await connection.pool.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> $1`, [MIGRATIONS_TABLE],
  );
  const tables = rows.map((r) => r.name);
  return {
    url: database.url,
    connection,
    clear: async () => {
      if (tables.length > 0) await connection.pool.query(`TRUNCATE ${tables.join(', ')} RESTART IDENTITY`);
    },
    drop: async () => {
      await connection.close();
      await database.drop();
    },
  };
}

/**
 * Inside a `describe`: opens a test store named after `label` before the suite's tests and drops it after; returns
 * its getter (which throws when called before the store is open).
 */
export function usePgTestStore(serverUrl: string, label: string): () => PgTestStore {
  let store: PgTestStore | undefined;
  beforeAll(async () => {
    store = await openPgTestStore(serverUrl, label);
  });
  afterAll(async () => {
    await store?.drop();
  });
  return () => {
    if (store === undefined) throw new Error('the PostgreSQL test database is not open');
    return store;
  };
}
