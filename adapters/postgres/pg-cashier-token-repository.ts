import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { CashierToken, CashierTokenTtl, PaymentRequestChange, UserId } from '../../core/domain/model/index.js';
import type { CashierTokenRepository } from '../../core/ports/cashier-token-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import {
  fromStoredCashierToken, toStoredCashierToken, toStoredPaymentRequest, type StoredCashierToken, type StoredPaymentRequest,
} from '../records/cashier-token-record.js';
import { guarded, inTransaction, insertRow, isUniqueViolation, jsonb, pageOf, versionedReplace, type Queryable, type Row } from './pg-support.js';

/**
 * First key of the two-key advisory locks of "one active token per address" (the second is the address hashed to
 * 32 bits). A hash collision only makes two addresses' creates wait for each other.
 */
export const CASHIER_TOKEN_LOCK_SPACE = 0x63746f6b; // "ctok"

const TABLE = 'cashier_tokens';

/** Record -> row of `cashier_tokens` (`inserted_seq` is the server's). */
function toRow(record: StoredCashierToken): Row & { version: number } {
  return {
    token_no: record.id, token_hash: record.tokenHash, user_id: record.userId, wallet_address_id: record.walletAddressId,
    address: record.address, network_code: record.networkCode, status: record.status, ttl_minutes: record.ttlMinutes,
    expires_at: record.expiresAt, disabled_at: record.disabledAt, disable_reason: record.disableReason,
    created_at: record.createdAt, version: record.version, payment: jsonb(record.payment ?? null),
  };
}

/** Row of `cashier_tokens` -> record. */
function fromRow(row: Row): StoredCashierToken {
  return {
    id: row['token_no'] as string, tokenHash: row['token_hash'] as string, userId: row['user_id'] as number,
    walletAddressId: row['wallet_address_id'] as number, address: row['address'] as string,
    networkCode: row['network_code'] as StoredCashierToken['networkCode'], status: row['status'] as StoredCashierToken['status'],
    ttlMinutes: row['ttl_minutes'] as CashierTokenTtl, expiresAt: row['expires_at'] as number,
    disabledAt: row['disabled_at'] as number | null, disableReason: row['disable_reason'] as string | null,
    createdAt: row['created_at'] as number, version: row['version'] as number,
    payment: row['payment'] as StoredPaymentRequest | null,
  };
}

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

function tokenFromRow(row: Row): CashierToken {
  return fromStoredCashierToken(fromRow(row));
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
          await insertRow(client, TABLE, toRow(toStoredCashierToken(token)));
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
    return guarded('cashier token read', async () => {
      const { rows } = await this.pool.query(`SELECT * FROM ${TABLE} WHERE token_hash = $1`, [tokenHash]);
      return rows.length === 0 ? null : tokenFromRow(rows[0] as Row);
    });
  }

  findByTokenNo(tokenNo: string): Promise<CashierToken | null> {
    return guarded('cashier token read', async () => {
      const { rows } = await this.pool.query(`SELECT * FROM ${TABLE} WHERE token_no = $1`, [tokenNo]);
      return rows.length === 0 ? null : tokenFromRow(rows[0] as Row);
    });
  }

  listByUser(userId: UserId, page: PageRequest): Promise<Page<CashierToken>> {
    return guarded('cashier token list', () =>
      pageOf(this.pool, { table: TABLE, where: 'user_id = $1', order: 'created_at DESC, inserted_seq DESC', params: [userId] }, tokenFromRow, page));
  }

  /** Walks cashier_tokens_by_reference (migration 0017). */
  listByReference(userId: UserId, reference: string, page: PageRequest): Promise<Page<CashierToken>> {
    return guarded('cashier token list', () => pageOf(this.pool, {
      table: TABLE, where: `user_id = $1 AND (payment ->> 'reference') = $2`, order: 'created_at DESC, inserted_seq DESC',
      params: [userId, reference],
    }, tokenFromRow, page));
  }

  findActiveByAddress(address: string, now: number): Promise<CashierToken | null> {
    return guarded('cashier token read', async () => {
      const { rows } = await this.pool.query(
        `SELECT * FROM ${TABLE} WHERE address = $1 AND status = 'active' AND expires_at > $2 ORDER BY created_at DESC LIMIT 1`, [address, now],
      );
      return rows.length === 0 ? null : tokenFromRow(rows[0] as Row);
    });
  }

  update(token: CashierToken): Promise<void> {
    return guarded('cashier token update', async () => {
      const written = await versionedReplace(this.pool, TABLE, { column: 'token_no', value: token.tokenNo }, toRow(toStoredCashierToken(token)));
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

  listWatchedPayments(limit: number): Promise<CashierToken[]> {
    return guarded('cashier token read', async () => {
      const { rows } = await this.pool.query(
        `SELECT * FROM ${TABLE} WHERE (payment ->> 'watched') = 'true'
         ORDER BY (payment ->> 'deadline')::bigint, token_no COLLATE "C" LIMIT $1`,
        [Math.max(0, limit)],
      );
      return (rows as Row[]).map(tokenFromRow);
    });
  }
}
