import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { ApiToken, UserId } from '../../core/domain/model/index.js';
import type { ApiTokenRepository } from '../../core/ports/api-token-repository.port.js';
import { fromStoredApiToken, toStoredApiToken, type StoredApiToken } from '../records/account-record.js';
import { prepared } from './pg-prepared.js';
import { guarded, inTransaction, insertRow, isUniqueViolation, type Queryable, type Row } from './pg-support.js';

/** Every column fromRow reads, named (never `*`): a column added later is not read by accident. */
const COLUMNS = 'id, user_id, name, token_hash, abilities, created_at, revoked_at, last_used_at, expires_at, review_since';

/**
 * First key of the two-key advisory locks of the token cap (the second is the user id hashed to 32 bits). Two-key
 * locks never meet the one-key ones (the migrations'), and a hash collision only makes two users wait for each other.
 */
export const API_TOKEN_CAP_LOCK_SPACE = 0x61706974; // "apit"

/** Record -> row of `api_tokens`. */
function toRow(record: StoredApiToken): Row {
  return {
    id: record.id, user_id: record.userId, name: record.name, token_hash: record.tokenHash, abilities: record.abilities,
    created_at: record.createdAt, revoked_at: record.revokedAt, last_used_at: record.lastUsedAt ?? null,
    expires_at: record.expiresAt ?? null, review_since: record.reviewSince ?? null,
  };
}

/** Row of `api_tokens` -> record. */
function fromRow(row: Row): StoredApiToken {
  return {
    id: row['id'] as number, userId: row['user_id'] as number, name: row['name'] as string,
    tokenHash: row['token_hash'] as string, abilities: row['abilities'] as string[], createdAt: row['created_at'] as number,
    revokedAt: row['revoked_at'] as number | null, lastUsedAt: row['last_used_at'] as number | null,
    expiresAt: row['expires_at'] as number | null, reviewSince: row['review_since'] as number | null,
  };
}

function decode(rows: readonly unknown[]): ApiToken | null {
  return rows.length === 0 ? null : fromStoredApiToken(fromRow(rows[0] as Row));
}

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
    return guarded('api token list', async () => {
      const { rows } = await this.pool.query(`SELECT ${COLUMNS} FROM api_tokens WHERE user_id = $1 AND revoked_at IS NULL ORDER BY id`, [userId]);
      return (rows as Row[]).map((row) => fromStoredApiToken(fromRow(row)));
    });
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
      return decode((await this.pool.query(`SELECT ${COLUMNS} FROM api_tokens WHERE id = $1`, [id])).rows);
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
    return guarded('api token read', async () => decode((await prepared(this.pool).query(`SELECT ${COLUMNS} FROM api_tokens WHERE id = $1`, [id])).rows));
  }

  findByTokenHash(tokenHash: string): Promise<ApiToken | null> {
    return guarded('api token read', async () =>
      decode((await prepared(this.pool).query(`SELECT ${COLUMNS} FROM api_tokens WHERE token_hash = $1`, [tokenHash])).rows));
  }

  revoke(id: number, at: number): Promise<ApiToken | null> {
    return guarded('api token revoke', async () => {
      // Two statements on purpose: the read must take a snapshot after the update, so that a caller whose update
      // found the token already revoked (it waited for the winner's row lock) reads the winner's time.
      await this.pool.query('UPDATE api_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, at]);
      return decode((await this.pool.query(`SELECT ${COLUMNS} FROM api_tokens WHERE id = $1`, [id])).rows);
    });
  }
}

/** Inserts a token; a clash on the id or the hash is a caller bug (reuse), reported as ConcurrencyConflict. */
async function insertToken(q: Queryable, token: ApiToken): Promise<void> {
  try {
    await insertRow(q, 'api_tokens', toRow(toStoredApiToken(token)));
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw new ConcurrencyConflict('api token', String(token.id));
  }
}
