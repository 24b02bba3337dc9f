import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { CashierToken, PaymentRequestChange, UserId } from '../../core/domain/model/index.js';
import type { DepositStatus, NetworkCode } from '../../core/domain/model/index.js';
import type { CashierSessionSource, CashierTokenRepository } from '../../core/ports/cashier-token-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { CASHIER_TOKEN_RECORD, toStoredPaymentRequest } from '../records/cashier-token-record.js';
import { decodeMoney } from '../records/record-support.js';
import { fromStoredDeveloperConfig, type StoredDeveloperConfig } from '../records/webhook-record.js';
import { TASK_COLUMNS, taskFromRow } from './pg-collection-task-repository.js';
import { prepared, statementName } from './pg-prepared.js';
import { guarded, inTransaction, isUniqueViolation, jsonb, type Queryable } from './pg-support.js';
import { PgTable } from './pg-table.js';

/**
 * First key of the two-key advisory locks of "one active token per address" (the second is the address hashed to
 * 32 bits). A hash collision only makes two addresses' creates wait for each other.
 */
export const CASHIER_TOKEN_LOCK_SPACE = 0x63746f6b; // "ctok"

/** The `cashier_tokens` table, from the record's descriptor (`inserted_seq` is the server's, never parsed). */
const TOKENS = new PgTable(CASHIER_TOKEN_RECORD);
const TABLE = TOKENS.table;

/**
 * ChangeSet.payments on PostgreSQL: writes only `payment` and `version`, when the stored version is `version - 1`
 * (the sliding expires_at, which extendExpiry moves without a version, is left alone). False on a version miss.
 */
export async function replacePayment(q: Queryable, change: PaymentRequestChange): Promise<boolean> {
  const result = await q.query(
    `UPDATE ${TABLE} SET payment = $3::jsonb, version = $2 WHERE token_no = $1 AND version = $2 - 1`,
    [change.tokenNo, change.version, jsonb(toStoredPaymentRequest(change.payment))],
  );
  return result.rowCount === 1;
}

const TASK_COLUMN_NAMES = TASK_COLUMNS.split(', ');

/**
 * The payer session's one statement (issue #37): the slide of the expiry as extendExpiry (a data-modifying WITH runs
 * whether or not the query reads it; it writes only when the expiry moves), the wallet's four fields, the merchant's
 * three configuration fields, the address's latest task (as PgCollectionTaskRepository.findLatestByAddress), and,
 * when $5 (the token carries a request), the deposits that may pay it, one row each, newest first (the order of
 * DepositRepository.listByUser). Array rows: the task's columns share names with the wallet's and the deposits'.
 * $1 token_no, $2 new expiry, $3 user, $4 address, $5 has a request, $6 its asset, $7 the token's created_at,
 * $8 wallet id.
 */
const READ_SESSION = `WITH slid AS (
    UPDATE ${TABLE} SET expires_at = $2 WHERE token_no = $1 AND status = 'active' AND expires_at < $2 RETURNING 1
  )
  SELECT w.id, w.address, w.network_code, w.label, c.min_collect_amounts, c.auto_collect, c.display_name,
         d.txid, d.amount, d.status, d.detected_at, ${TASK_COLUMN_NAMES.map((name) => `t.${name}`).join(', ')}
  FROM wallet_addresses w
  LEFT JOIN developer_configs c ON c.user_id = $3
  LEFT JOIN LATERAL (
    SELECT ${TASK_COLUMNS} FROM collection_tasks WHERE address = $4 ORDER BY started_at DESC, inserted_seq DESC LIMIT 1
  ) t ON true
  LEFT JOIN LATERAL (
    SELECT txid, amount, status, detected_at, inserted_seq FROM deposits
    WHERE $5::boolean AND user_id = $3 AND address = $4 AND asset_symbol = $6 AND detected_at >= $7
  ) d ON true
  WHERE w.id = $8
  ORDER BY d.detected_at DESC, d.inserted_seq DESC`;
const READ_SESSION_NAME = statementName(READ_SESSION);

/** The columns of READ_SESSION before the task's. */
const SESSION_HEAD = 11;

/** The merchant's three fields through the configuration's record codec (the other fields are not read). */
function sessionConfig(userId: number, minimums: unknown, autoCollect: unknown, displayName: unknown): CashierSessionSource['config'] {
  const config = fromStoredDeveloperConfig({
    id: userId, url: null, pendingUrl: null, pendingSince: null, verifiedAt: null, reviewNote: null, secret: null, previousSecret: null,
    minCollectAmounts: minimums as StoredDeveloperConfig['minCollectAmounts'],
    autoCollect: autoCollect as StoredDeveloperConfig['autoCollect'], displayName: displayName as string | null, version: 0,
  } as StoredDeveloperConfig);
  return {
    minCollectAmounts: config.minCollectAmounts,
    ...(config.autoCollect === undefined ? {} : { autoCollect: config.autoCollect }),
    ...(config.displayName === undefined ? {} : { displayName: config.displayName }),
  };
}

/**
 * Cashier tokens. "One active, unexpired token per address at `now`" depends on time, which no index knows, so an
 * insert checks and writes in one transaction holding the address's advisory lock: every other create for the
 * address, from any process, waits, and (READ COMMITTED) its check, a later statement, sees what the holder
 * committed. Disabling or expiring only ever frees the address, so update and extendExpiry need no lock.
 */
export class PgCashierTokenRepository implements CashierTokenRepository {
  constructor(private readonly pool: pg.Pool) {}

  insert(token: CashierToken, now: number): Promise<'created' | 'active-exists'> {
    return guarded('cashier token insert', async () => {
      try {
        return await inTransaction(this.pool, async (client) => {
          await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2::text))', [CASHIER_TOKEN_LOCK_SPACE, token.address]);
          const { rows } = await client.query<{ reused: boolean; active: boolean }>(
            `SELECT EXISTS (SELECT 1 FROM ${TABLE} WHERE token_no = $1 OR token_hash = $2) AS reused,
                    EXISTS (SELECT 1 FROM ${TABLE} WHERE address = $3 AND status = 'active' AND expires_at > $4) AS active`,
            [token.tokenNo, token.tokenHash, token.address, now],
          );
          // Same precedence as the other stores: a reused number or hash is a caller bug, reported before the rule.
          if (rows[0]!.reused) throw new ConcurrencyConflict('cashier token', token.tokenNo);
          if (rows[0]!.active) return 'active-exists';
          await TOKENS.insert(client, token);
          return 'created';
        });
      } catch (error) {
        // Reused by a concurrent create of another address (not under our lock).
        if (isUniqueViolation(error)) throw new ConcurrencyConflict('cashier token', token.tokenNo);
        throw error;
      }
    });
  }

  findByTokenHash(tokenHash: string): Promise<CashierToken | null> {
    // The payer's authentication, on every payment-API request: a named statement.
    return guarded('cashier token read', () => TOKENS.first(prepared(this.pool), 'token_hash = $1', [tokenHash]));
  }

  findByTokenNo(tokenNo: string): Promise<CashierToken | null> {
    return guarded('cashier token read', () => TOKENS.get(this.pool, tokenNo));
  }

  listByUser(userId: UserId, page: PageRequest): Promise<Page<CashierToken>> {
    return guarded('cashier token list', () =>
      TOKENS.page(this.pool, { where: 'user_id = $1', order: 'created_at DESC, inserted_seq DESC', params: [userId] }, page));
  }

  /** Walks cashier_tokens_by_reference (migration 0017). */
  listByReference(userId: UserId, reference: string, page: PageRequest): Promise<Page<CashierToken>> {
    return guarded('cashier token list', () => TOKENS.page(this.pool, {
      where: `user_id = $1 AND (payment ->> 'reference') = $2`, order: 'created_at DESC, inserted_seq DESC', params: [userId, reference],
    }, page));
  }

  findActiveByAddress(address: string, now: number): Promise<CashierToken | null> {
    return guarded('cashier token read', () =>
      TOKENS.first(this.pool, "address = $1 AND status = 'active' AND expires_at > $2", [address, now], 'created_at DESC'));
  }

  update(token: CashierToken): Promise<void> {
    return guarded('cashier token update', async () => {
      const written = await TOKENS.replace(this.pool, token);
      if (!written) throw new ConcurrencyConflict('cashier token', token.tokenNo);
    });
  }

  extendExpiry(tokenNo: string, expiresAt: number): Promise<void> {
    return guarded('cashier token extend', async () => {
      // No version bump: sliding the expiry must not make a concurrent disable fail.
      await this.pool.query(
        `UPDATE ${TABLE} SET expires_at = GREATEST(expires_at, $2) WHERE token_no = $1 AND status = 'active' AND expires_at < $2`,
        [tokenNo, expiresAt],
      );
    });
  }

  readSession(token: CashierToken, expiresAt: number): Promise<CashierSessionSource | null> {
    return guarded('cashier session read', async () => {
      const payment = token.payment;
      const { rows } = await this.pool.query<unknown[]>({
        name: READ_SESSION_NAME, text: READ_SESSION, rowMode: 'array',
        values: [token.tokenNo, expiresAt, token.userId, token.address, payment !== undefined, payment?.assetSymbol ?? '', token.createdAt, token.walletAddressId],
      });
      const first = rows[0];
      if (first === undefined) return null;
      const [id, address, networkCode, label, minimums, autoCollect, displayName] = first;
      const task = first[SESSION_HEAD] === null ? null
        : taskFromRow(Object.fromEntries(TASK_COLUMN_NAMES.map((name, i) => [name, first[SESSION_HEAD + i]])));
      return {
        wallet: { id: id as number, address: address as string, networkCode: networkCode as NetworkCode, label: label as string | null },
        latestTask: task,
        config: minimums === null ? null : sessionConfig(token.userId, minimums, autoCollect, displayName),
        deposits: rows.filter((row) => row[7] !== null).map((row) => ({
          txid: row[7] as string, amount: decodeMoney(row[8], 'deposit amount'), status: row[9] as DepositStatus, detectedAt: row[10] as number,
        })),
      };
    });
  }

  listWatchedPayments(limit: number): Promise<CashierToken[]> {
    return guarded('cashier token read', () => TOKENS.select(this.pool, "(payment ->> 'watched') = 'true'", [],
      `(payment ->> 'deadline')::bigint, token_no COLLATE "C"`, Math.max(0, limit)));
  }
}
