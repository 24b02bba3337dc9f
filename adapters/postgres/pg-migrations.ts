import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { runner } from 'node-pg-migrate';
import { withConnection } from './pg-support.js';

/** Where the store's forward-only SQL migrations live: `NNNN_name.sql`, applied in name order. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url));

/** The table recording which migrations ran (name and time), as node-pg-migrate keeps it. */
export const MIGRATIONS_TABLE = 'schema_migrations';

/**
 * A constant of this store's own: two processes starting at once both ask for it, the second waits until the first
 * has applied everything and then finds nothing left to do. Session-level, taken on one pooled connection.
 */
const MIGRATION_LOCK = 0x637573746f6479n; // "custody"

/**
 * Applies every pending migration of MIGRATIONS_DIR, each in its own transaction, under a blocking advisory lock so
 * that concurrent starts apply each migration exactly once. Returns the names applied by this call.
 */
export async function migratePostgres(pool: pg.Pool, log: (line: string) => void = () => undefined): Promise<string[]> {
  // The wait for another process's migrations may outlast the connection; a session that may still hold the lock
  // is closed rather than pooled (closing releases it).
  return withConnection(pool, async (client, broken) => {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
    try {
      const applied = await runner({
        dbClient: client,
        dir: MIGRATIONS_DIR,
        migrationsTable: MIGRATIONS_TABLE,
        direction: 'up',
        count: Infinity,
        // Our own lock above waits instead of failing; node-pg-migrate's would refuse the second process.
        noLock: true,
        singleTransaction: false,
        checkOrder: true,
        log: () => undefined,
        logger: { debug: () => undefined, info: () => undefined, warn: log, error: log },
        verbose: false,
      });
      for (const migration of applied) log(`migration applied: ${migration.name}`);
      return applied.map((m) => m.name);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]).catch(broken);
    }
  });
}
