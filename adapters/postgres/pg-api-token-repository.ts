import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { ApiToken, UserId } from '../../core/domain/model/index.js';
import type { ApiTokenRepository } from '../../core/ports/api-token-repository.port.js';
import { API_TOKEN_RECORD } from '../records/account-record.js';
import { prepared } from './pg-prepared.js';
import { guarded, inTransaction, isUniqueViolation, type Queryable } from './pg-support.js';
import { PgTable } from './pg-table.js';

/** The `api_tokens` table, from the record's descriptor (its reads name their columns, never `*`). */
const TOKENS = new PgTable(API_TOKEN_RECORD);

/**
 * First key of the two-key advisory locks of the token cap (the second is the user id hashed to 32 bits). Two-key
 * locks never meet the one-key ones (the migrations'), and a hash collision only makes two users wait for each other.
 */
export const API_TOKEN_CAP_LOCK_SPACE = 0x61706974; // "apit"

/** Developer API tokens; ids and token hashes are both unique, the per-user cap is kept under an advisory lock. */
export class PgApiTokenRepository implements ApiTokenRepository {
  constructor(private readonly pool: pg.Pool) {}

  create(token: ApiToken): Promise<void> {
    return guarded('api token create', () => insertToken(this.pool, token));
  }

  /**
   * Counts and inserts in one transaction holding the user's cap lock: every other createWithinCap of the user waits,
   * and (READ COMMITTED) its count, a later statement, sees the rows the holder committed before releasing it.
   */
  createWithinCap(token: ApiToken, max: number): Promise<boolean> {
    return guarded('api token create', () => inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2::text))', [API_TOKEN_CAP_LOCK_SPACE, token.userId]);
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::bigint AS n FROM api_tokens WHERE user_id = $1 AND revoked_at IS NULL', [token.userId],
      );
      if (rows[0]!.n >= max) return false;
      await insertToken(client, token);
      return true;
    }));
  }

  listActiveByUser(userId: UserId): Promise<ApiToken[]> {
    return guarded('api token list', () => TOKENS.select(this.pool, 'user_id = $1 AND revoked_at IS NULL', [userId], 'id'));
  }

  markUsed(id: number, at: number): Promise<void> {
    return guarded('api token use', async () => {
      await this.pool.query(
        'UPDATE api_tokens SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)', [id, at],
      );
    });
  }

  setExpiry(id: number, expiresAt: number | null): Promise<ApiToken | null> {
    return guarded('api token expiry', async () => {
      await this.pool.query('UPDATE api_tokens SET expires_at = $2, review_since = NULL WHERE id = $1 AND revoked_at IS NULL', [id, expiresAt]);
      return TOKENS.first(this.pool, 'id = $1', [id]);
    });
  }

  markAllForReview(userId: UserId, at: number): Promise<number> {
    return guarded('api token review', async () => {
      const { rowCount } = await this.pool.query(
        'UPDATE api_tokens SET review_since = $2 WHERE user_id = $1 AND revoked_at IS NULL AND review_since IS NULL', [userId, at],
      );
      return rowCount ?? 0;
    });
  }

  findById(id: number): Promise<ApiToken | null> {
    return guarded('api token read', () => TOKENS.get(this.pool, id));
  }

  findByTokenHash(tokenHash: string): Promise<ApiToken | null> {
    return guarded('api token read', () => TOKENS.first(prepared(this.pool), 'token_hash = $1', [tokenHash]));
  }

  revoke(id: number, at: number): Promise<ApiToken | null> {
    return guarded('api token revoke', async () => {
      // Two statements on purpose: the read must take a snapshot after the update, so that a caller whose update
      // found the token already revoked (it waited for the winner's row lock) reads the winner's time.
      await this.pool.query('UPDATE api_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, at]);
      return TOKENS.first(this.pool, 'id = $1', [id]);
    });
  }
}

/** Inserts a token; a clash on the id or the hash is a caller bug (reuse), reported as ConcurrencyConflict. */
async function insertToken(q: Queryable, token: ApiToken): Promise<void> {
  try {
    await TOKENS.insert(q, token);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw new ConcurrencyConflict('api token', String(token.id));
  }
}
