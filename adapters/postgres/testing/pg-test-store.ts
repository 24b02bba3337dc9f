import { afterAll, beforeAll } from 'vitest';
import { createMigratedTestDatabase } from '../../../contracts-tests/harness/postgres.js';
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
  const database = await createMigratedTestDatabase(serverUrl, label);
  const connection = await connectPostgres(database.url, { poolSize });
  const { rows } = await connection.pool.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> $1`, [MIGRATIONS_TABLE],
  );
  const tables = rows.map((r) => r.name);
  // The sequences a table owns (identity and serial columns): a table whose sequence has moved is cleared even when
  // empty, so that RESTART IDENTITY gives the next test the numbers a fresh database would.
  const owned = await connection.pool.query<{ name: string; sequence: string }>(
    `SELECT t.relname AS name, s.relname AS sequence FROM pg_class s JOIN pg_depend d ON d.objid = s.oid AND d.classid = 'pg_class'::regclass
       JOIN pg_class t ON t.oid = d.refobjid JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE s.relkind = 'S' AND n.nspname = 'public' AND d.deptype IN ('a', 'i')`,
  );
  // One round trip names the tables with a row (or a sequence that moved); only those are truncated. Truncating all
  // of them took about 150 ms a test on the shared server (new files for every table and index), most of a contract
  // case's time.
  const used = [
    ...tables.map((name) => `SELECT '${name}' AS name WHERE EXISTS (SELECT 1 FROM ${name})`),
    ...owned.rows.map((r) => `SELECT '${r.name}' AS name WHERE (SELECT is_called FROM ${r.sequence})`),
  ].join(' UNION ');
  return {
    url: database.url,
    connection,
    clear: async () => {
      if (tables.length === 0) return;
      const { rows: dirty } = await connection.pool.query<{ name: string }>(used);
      if (dirty.length > 0) await connection.pool.query(`TRUNCATE ${dirty.map((r) => r.name).join(', ')} RESTART IDENTITY CASCADE`);
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
