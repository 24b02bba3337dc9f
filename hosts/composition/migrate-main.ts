/**
 * `npm run db:migrate`: applies the PostgreSQL store's pending migrations and nothing else, e.g. before a rolling
 * deploy, so that no serving process starts on a schema change. Reads DATABASE_URL (and DATABASE_POOL_SIZE) from the
 * environment; prints each migration applied, or that the schema is up to date, and exits 0; on any failure prints
 * the error (the password redacted) and exits 1. Safe beside running processes: migrations take the same advisory
 * lock as a process starting, so each is applied exactly once.
 */
import { connectPostgres, migratePostgres } from '../../adapters/postgres/index.js';
import { loadDatabaseConfig, withoutDatabasePassword } from './config.js';

const out = (line: string): void => { process.stdout.write(`${line}\n`); };
let url = '';
try {
  const { databaseUrl, databasePoolSize } = loadDatabaseConfig(process.env);
  url = databaseUrl;
  // migrate: false — the connection only checks the server; the migrations run below, reported line by line.
  const connection = await connectPostgres(databaseUrl, { poolSize: databasePoolSize, migrate: false, applicationName: 'custody-hub-migrate' });
  try {
    const applied = await migratePostgres(connection.pool, out);
    out(applied.length === 0 ? 'database schema is up to date: no migration to apply' : `${applied.length} migration(s) applied`);
  } finally {
    await connection.close();
  }
} catch (error) {
  process.stderr.write(`db:migrate failed: ${url === '' ? (error as Error).message : withoutDatabasePassword((error as Error).message, url)}\n`);
  process.exit(1);
}
