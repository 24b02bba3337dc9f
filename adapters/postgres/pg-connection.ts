import pg from 'pg';
import { StoreError } from '../../core/domain/errors.js';
import { migratePostgres } from './pg-migrations.js';
import { storeUnavailable } from './pg-support.js';

/** An open pool on the store's database, and how to close it. */
export interface PostgresConnection {
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

/** Options of connectPostgres. */
export interface ConnectPostgresOptions {
  /** Connections in the pool (DATABASE_POOL_SIZE). Default 10. */
  readonly poolSize?: number;
  /** Apply pending migrations before returning (under an advisory lock). Default true. */
  readonly migrate?: boolean;
  /** Shown in pg_stat_activity. Default `custody-hub`. */
  readonly applicationName?: string;
  /** How long the first connection may take before start-up fails (ms). Default 5000. */
  readonly connectTimeoutMs?: number;
}

const INT8_OID = 20;

/**
 * Type parsers of the store's pool: BIGINT columns hold epoch milliseconds, ids and counts, all below 2^53, so they
 * are read as numbers (a value beyond that is a store fault, never silently rounded). NUMERIC (money) keeps pg's
 * default: the exact decimal string, which the record codecs turn into a bigint.
 */
const STORE_TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID && format !== 'binary') {
      return (value: string) => {
        const n = Number(value);
        if (!Number.isSafeInteger(n)) throw new StoreError('INTERNAL-ERROR', 'a stored BIGINT is beyond 2^53', { transient: false });
        return n;
      };
    }
    return pg.types.getTypeParser(oid, format ?? 'text');
  }) as typeof pg.types.getTypeParser,
};

/** The URL with any password replaced, so that it can appear in an error message or a log line. */
export function redactPostgresUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/)([^@/]*)@/, (_match, scheme: string, credentials: string) =>
    `${scheme}${credentials.includes(':') ? `${credentials.split(':')[0]}:***` : credentials}@`);
}

/**
 * Opens a pool on DATABASE_URL (TLS through `sslmode` in the URL, as libpq reads it), checks that the server answers
 * and is PostgreSQL 13 or later, and applies pending migrations. Fails fast with a StoreError whose message names the
 * server without its password.
 */
export async function connectPostgres(url: string, options: ConnectPostgresOptions = {}): Promise<PostgresConnection> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    application_name: options.applicationName ?? 'custody-hub',
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    types: STORE_TYPES,
    // A network that drops silently must not leave a worker waiting for ever, nor its row locks held on the server
    // by a session idle in its transaction: every statement ends within 30 s, an abandoned transaction within 60 s.
    keepAlive: true,
    statement_timeout: 30_000,
    query_timeout: 35_000,
    idle_in_transaction_session_timeout: 60_000,
  });
  // An idle client that loses its server (a restart, a failover) emits 'error' on the pool: the next query gets a
  // fresh connection, so the event must not crash the process.
  pool.on('error', () => undefined);
  try {
    const { rows } = await pool.query<{ version: number }>(`SELECT current_setting('server_version_num')::int AS version`);
    if (rows[0]!.version < MIN_SERVER_VERSION_NUM) {
      throw new StoreError('SERVICE-UNAVAILABLE', `PostgreSQL at ${redactPostgresUrl(url)} is version ${rows[0]!.version}; 13 or later is required`, { transient: false });
    }
    if (options.migrate !== false) await migratePostgres(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (error instanceof StoreError) throw error;
    const unavailable = storeUnavailable('connect', error);
    throw new StoreError(unavailable.code, `PostgreSQL at ${redactPostgresUrl(url)} is unreachable or refused us: ${reasonOf(error)}`, {
      transient: unavailable.transient, cause: error,
    });
  }
  return { pool, close: () => pool.end() };
}

/** PostgreSQL 13: the oldest release still maintained when this store was written, and what docs/operations.md names. */
export const MIN_SERVER_VERSION_NUM = 130000;

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}
