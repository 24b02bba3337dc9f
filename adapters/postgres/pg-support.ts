import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { ConcurrencyConflict, DomainError, InfrastructureError, StoreError } from '../../core/domain/errors.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { prepared } from './pg-prepared.js';

/**
 * Shared plumbing of the PostgreSQL adapters: driver-error translation, the statement shapes (insertOnce, claimDue,
 * a page, writeTogether), and transactions. Small functions, never a base repository: the row mapping and the plain
 * operations of a record come from its descriptor (pg-table.ts); a repository writes only its special queries.
 */

/** A pool or a client inside a transaction: what a statement runs on. */
export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** A row as the driver returns it: column name -> value (BIGINT as number, NUMERIC as string, JSONB parsed). */
export type Row = Record<string, unknown>;

/** SQLSTATE of a unique violation. */
const UNIQUE_VIOLATION = '23505';

/** A unique violation, optionally only one of the named constraint (or index). */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (!(error instanceof pg.DatabaseError) || error.code !== UNIQUE_VIOLATION) return false;
  return constraint === undefined || error.constraint === constraint;
}

/**
 * SQLSTATE classes retrying cannot cure: a wrong or unauthorised role, a value the schema refuses, a missing table
 * (migrations not applied). Retried for ever they would hold a workflow in a loop; reported as permanent they
 * surface at once. Everything else (connection loss, shutdown, serialization failures, deadlocks) is transient.
 */
const PERMANENT_CLASSES = new Map<string, string>([
  ['28', 'authentication failed (check DATABASE_URL\'s credentials)'],
  ['42', 'the schema refused the statement (are the migrations applied? npm run db:migrate)'],
  ['22', 'a value the schema cannot store'],
  ['23', 'a constraint refused the write'],
]);

/** The error the ports promise for a failing store: never a driver error. */
export function storeUnavailable(operation: string, error: unknown): StoreError {
  const sqlState = error instanceof pg.DatabaseError && typeof error.code === 'string' ? error.code : null;
  const permanent = sqlState === null ? undefined : PERMANENT_CLASSES.get(sqlState.slice(0, 2));
  const message = permanent === undefined ? `PostgreSQL ${operation} failed` : `PostgreSQL ${operation} failed: ${permanent} (${sqlState})`;
  return new StoreError('SERVICE-UNAVAILABLE', message, { transient: permanent === undefined, cause: error });
}

/**
 * Runs one store operation and translates driver failures into StoreError. Errors the ports define (DomainError,
 * ConcurrencyConflict, InfrastructureError) pass through; a programming error (TypeError, …) passes too.
 */
export async function guarded<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof DomainError || error instanceof ConcurrencyConflict || error instanceof InfrastructureError) throw error;
    if (isDriverError(error)) throw storeUnavailable(operation, error);
    throw error;
  }
}

/** Errors of the server or of the connection to it (refused, reset, timed out, pool closed). */
function isDriverError(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^(E[A-Z_]+|ERR_TLS_\w+|ERR_SSL_\w+)$/.test(code)) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error|Cannot use a pool after calling end|timeout exceeded when trying to connect|Query read timeout|Client was closed and is not queryable/i
    .test(error.message);
}

/**
 * An atomic scope (UnitOfWork.atomically, decision 144): one connection in one transaction, which every statement on
 * its pool uses while the scope's work runs. `savepoints` names the nested transactions; `broken` marks a connection
 * in an unknown state, closed instead of going back to the pool.
 */
interface AtomicScope {
  readonly pool: pg.Pool;
  readonly client: pg.PoolClient;
  savepoints: number;
  broken: boolean;
}

const scopes = new AsyncLocalStorage<AtomicScope>();
/** Pools whose `query` consults the scope (routeThroughScopes). */
const routed = new WeakSet<pg.Pool>();

/** The scope of this pool the caller runs in, if any. */
function scopeOf(pool: pg.Pool): AtomicScope | undefined {
  const scope = scopes.getStore();
  return scope !== undefined && scope.pool === pool ? scope : undefined;
}

/**
 * Makes `pool.query` run on the scope's connection while an atomic scope of this pool is active (and on the pool
 * otherwise), so every repository built on the pool joins the scope with no change of its own. withConnection and
 * inTransaction consult the scope themselves. Idempotent.
 */
export function routeThroughScopes(pool: pg.Pool): void {
  if (routed.has(pool)) return;
  routed.add(pool);
  const poolQuery = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  Object.defineProperty(pool, 'query', {
    configurable: true,
    writable: true,
    value: (...args: unknown[]): unknown => {
      const scope = scopeOf(pool);
      return scope === undefined ? poolQuery(...args) : (scope.client.query as (...a: unknown[]) => unknown)(...args);
    },
  });
}

/** Whether the caller runs inside an atomic scope of `pool` (its statements go to the scope's transaction). */
export function inAtomicScopeOf(pool: pg.Pool): boolean {
  return scopeOf(pool) !== undefined;
}

/**
 * Runs `work` in an atomic scope of the pool: BEGIN, the work with every statement of the pool on this connection,
 * COMMIT; any throw rolls everything back. Inside a scope of the same pool it is a savepoint of that scope.
 */
export async function inAtomicScope<T>(pool: pg.Pool, work: () => Promise<T>): Promise<T> {
  if (!routed.has(pool)) throw new TypeError('inAtomicScope on a pool whose queries are not routed (routeThroughScopes)');
  if (scopeOf(pool) !== undefined) return inTransaction(pool, () => work());
  return withConnection(pool, async (client, broken) => {
    const scope: AtomicScope = { pool, client, savepoints: 0, broken: false };
    try {
      await client.query('BEGIN');
      const result = await scopes.run(scope, work);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(broken);
      throw error;
    } finally {
      if (scope.broken) broken();
    }
  });
}

/**
 * Runs `body` on a connection of the pool held for it. A connection lost while held emits 'error' on the client, which
 * the pool does not listen to while the client is out: without a listener that event would end the process (the next
 * statement fails anyway). `body` may call `broken()` when the session is in an unknown state; such a connection, or a
 * lost one, is closed instead of going back to the pool. Inside an atomic scope of the pool it is the scope's
 * connection.
 */
export async function withConnection<T>(pool: pg.Pool, body: (client: pg.PoolClient, broken: () => void) => Promise<T>): Promise<T> {
  const scope = scopeOf(pool);
  if (scope !== undefined) {
    return body(scope.client, () => {
      scope.broken = true;
    });
  }
  const client = await pool.connect();
  let isBroken = false;
  const broken = (): void => {
    isBroken = true;
  };
  client.on('error', broken);
  try {
    return await body(client, broken);
  } finally {
    client.off('error', broken);
    client.release(isBroken);
  }
}

/**
 * Runs `body` in one transaction on a pooled connection: READ COMMITTED (every write of the store is a conditional
 * single-row statement or an insert guarded by a unique index, so no decision rests on an earlier read of the
 * transaction; see docs/decisions.md). Any throw rolls everything back; a connection whose rollback failed is dropped.
 * Inside an atomic scope of the pool it is a savepoint: a throw undoes the body's statements only, and the scope goes on.
 */
export function inTransaction<T>(pool: pg.Pool, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const scope = scopeOf(pool);
  if (scope !== undefined) {
    const savepoint = `custody_sp_${(scope.savepoints += 1)}`;
    return (async () => {
      await scope.client.query(`SAVEPOINT ${savepoint}`);
      try {
        const result = await body(scope.client);
        await scope.client.query(`RELEASE SAVEPOINT ${savepoint}`);
        return result;
      } catch (error) {
        await scope.client.query(`ROLLBACK TO SAVEPOINT ${savepoint}`).catch(() => {
          scope.broken = true;
        });
        throw error;
      }
    })();
  }
  return withConnection(pool, async (client, broken) => {
    try {
      await client.query('BEGIN');
      const result = await body(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(broken);
      throw error;
    }
  });
}

const NUL = /\u0000/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text PostgreSQL can store: it refuses U+0000 in TEXT and JSONB and a lone surrogate in JSONB, and would silently
 * change a lone surrogate in TEXT. Such characters reach the store only in free text (a node's error message, a cut
 * refusal, a label), where a refused write would leave a workflow retrying for ever: each becomes U+FFFD instead.
 */
export function storableText(value: string): string {
  return value.replace(NUL, '\uFFFD').replace(LONE_SURROGATE, '\uFFFD');
}

/** A value PostgreSQL can store: text made storable (storableText), anything else as it is. */
export function storable(value: unknown): unknown {
  return typeof value === 'string' ? storableText(value) : value;
}

/** `$1, $2, …` for `count` values starting at `from`. */
function placeholders(count: number, from = 1): string {
  return Array.from({ length: count }, (_, i) => `$${i + from}`).join(', ');
}

/** INSERT of one row (its keys are the columns); a unique violation is thrown for the caller to classify. */
export async function insertRow(q: Queryable, table: string, row: Row): Promise<void> {
  const { text, values } = insertStatement(table, row);
  await q.query(text, values);
}

/**
 * INSERT of one row unless it would break a unique constraint (`conflict`: a column list or `ON CONSTRAINT name`;
 * omitted: any); true when the row was written.
 */
export async function insertOnce(q: Queryable, table: string, row: Row, conflict = ''): Promise<boolean> {
  const columns = Object.keys(row);
  const result = await q.query(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders(columns.length)}) ON CONFLICT ${conflict} DO NOTHING`,
    Object.values(row).map(storable),
  );
  return result.rowCount === 1;
}

/** A statement's text, with its parameters numbered from a given `$n`, and their values (see writeTogether). */
export interface Statement {
  readonly text: string;
  readonly values: unknown[];
}

/** insertRow's INSERT, its parameters from `$from`. */
export function insertStatement(table: string, row: Row, from = 1): Statement {
  const columns = Object.keys(row);
  return { text: `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders(columns.length, from)})`, values: Object.values(row).map(storable) };
}

/** One write of writeTogether: its statement (parameters from `$from`), and for a versioned replace what it names. */
export interface TogetherWrite {
  statement(from: number): Statement;
  /** Set for a versioned replace: it must write its row, or the whole statement is undone (a ConcurrencyConflict on it). */
  readonly replaces?: { readonly entity: string; readonly id: string };
}

/** The SQLSTATE custody_written raises (migration 0016): a versioned replace of writeTogether wrote nothing. */
const NOT_WRITTEN = 'CH409';

/**
 * Writes as ONE statement, each a data-modifying CTE: PostgreSQL applies a statement whole or not at all, so they
 * land together with no BEGIN and COMMIT (two round trips fewer than inTransaction, and one for all the writes). A
 * versioned replace that matched no row makes custody_written raise, which undoes every write of the statement: a
 * ConcurrencyConflict on it. Any other error (a unique violation of an insert) is thrown as it is, also with nothing
 * kept. Under READ COMMITTED each UPDATE re-checks its version against a concurrent commit, as on its own.
 */
export async function writeTogether(q: Queryable, writes: readonly TogetherWrite[]): Promise<void> {
  const values: unknown[] = [];
  const ctes: string[] = [];
  const checks: string[] = [];
  writes.forEach((write, i) => {
    const { text, values: own } = write.statement(values.length + 1);
    values.push(...own);
    ctes.push(`w${i} AS (${text} RETURNING 1)`);
    if (write.replaces !== undefined) {
      values.push(write.replaces.entity, write.replaces.id);
      checks.push(`custody_written((SELECT count(*) FROM w${i}), $${values.length - 1}, $${values.length})`);
    }
  });
  try {
    await q.query(`WITH ${ctes.join(', ')} SELECT ${checks.length > 0 ? checks.join(', ') : '1'}`, values);
  } catch (error) {
    if (error instanceof pg.DatabaseError && error.code === NOT_WRITTEN) throw new ConcurrencyConflict(error.detail ?? 'row', error.hint ?? '?');
    throw error;
  }
}

/**
 * Claims up to `limit` rows: picks them with `where` in `order` and locks them with FOR UPDATE SKIP LOCKED (two
 * claimers never wait on, nor both get, the same row), applies `set` (which must bump the version) and returns the
 * claimed rows. `params` fill `$1…` in `where` and `set`.
 */
export async function claimDue(
  q: Queryable,
  table: string,
  spec: { key: string; where: string; order: string; set: string; params: readonly unknown[]; limit?: number },
): Promise<Row[]> {
  const { rows } = await q.query(
    `UPDATE ${table} SET ${spec.set} WHERE ${spec.key} IN (
       SELECT ${spec.key} FROM ${table} WHERE ${spec.where} ORDER BY ${spec.order} LIMIT ${spec.limit ?? 1} FOR UPDATE SKIP LOCKED
     ) RETURNING *`,
    [...spec.params],
  );
  return rows as Row[];
}

/**
 * Offset/limit slice plus total; `limit` 0 still reports the total. Two statements, each named (a list's texts are a
 * few per table: one per filter combination). `columns` names what `decode` reads (default `*`).
 */
export async function pageOf<T>(
  q: Queryable,
  from: { table: string; columns?: string; where: string; order: string; params: readonly unknown[] },
  decode: (row: Row) => T,
  page: PageRequest,
): Promise<Page<T>> {
  const named = prepared(q);
  const count = await named.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM ${from.table} WHERE ${from.where}`, [...from.params]);
  const total = count.rows[0]!.n;
  if (page.limit <= 0) return { items: [], total };
  const n = from.params.length;
  const { rows } = await named.query(
    `SELECT ${from.columns ?? '*'} FROM ${from.table} WHERE ${from.where} ORDER BY ${from.order} LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...from.params, page.limit, Math.max(0, page.offset)],
  );
  return { items: (rows as Row[]).map(decode), total };
}

/**
 * A JSONB parameter: pg would send a JS array as a PostgreSQL array, so nested values go as JSON text, their strings
 * made storable (see storableText).
 */
export function jsonb(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  // JSON.stringify writes U+0000 and a lone surrogate as `\u0000` and `\udXXX` escapes: text without either holds
  // none, and is the same as the sanitising (per-value, slower) pass would give. Anything else takes that pass.
  const text = JSON.stringify(value);
  return UNSTORABLE_ESCAPE.test(text) ? JSON.stringify(value, (_key, v: unknown) => storable(v)) : text;
}

/** An escape JSON.stringify writes for U+0000 or a surrogate (a false hit, as in `\\u0000`, only costs the slow pass). */
const UNSTORABLE_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/** A JSON (not JSONB) parameter: stored as the exact text, which may hold U+0000 (a webhook receiver's response). */
export function json(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}
