import type pg from 'pg';
import type { Millis, Session, UserId } from '../../core/domain/model/index.js';
import type { SessionRepository } from '../../core/ports/session-repository.port.js';
import { fromStoredSession, toStoredSession, type StoredSession } from '../records/account-record.js';
import { prepared } from './pg-prepared.js';
import { guarded, type Row } from './pg-support.js';

/** Record -> row of `sessions`. */
function toRow(record: StoredSession): Row {
  return {
    token_hash: record.id, user_id: record.userId, created_at: record.createdAt, expires_at: record.expiresAt,
    revoked_at: record.revokedAt,
  };
}

/** Row of `sessions` -> record. */
function fromRow(row: Row): StoredSession {
  return {
    id: row['token_hash'] as string, userId: row['user_id'] as number, createdAt: row['created_at'] as number,
    expiresAt: row['expires_at'] as number, revokedAt: row['revoked_at'] as number | null,
  };
}

/** Sessions keyed by the SHA-256 of their token. */
export class PgSessionRepository implements SessionRepository {
  constructor(private readonly pool: pg.Pool) {}

  create(session: Session): Promise<void> {
    return guarded('session create', async () => {
      const row = toRow(toStoredSession(session));
      const columns = Object.keys(row);
      // A token hash names one session; writing the same one twice stores the latest, as the other stores do.
      await this.pool.query(
        `INSERT INTO sessions (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})
         ON CONFLICT (token_hash) DO UPDATE SET ${columns.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`,
        Object.values(row),
      );
    });
  }

  findByTokenHash(tokenHash: string): Promise<Session | null> {
    return guarded('session read', async () => {
      const { rows } = await prepared(this.pool).query(
        'SELECT token_hash, user_id, created_at, expires_at, revoked_at FROM sessions WHERE token_hash = $1', [tokenHash],
      );
      return rows.length === 0 ? null : fromStoredSession(fromRow(rows[0] as Row));
    });
  }

  revoke(tokenHash: string, at: number): Promise<void> {
    return guarded('session revoke', async () => {
      await this.pool.query('UPDATE sessions SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL', [tokenHash, at]);
    });
  }

  setExpiry(tokenHash: string, expiresAt: Millis): Promise<void> {
    return guarded('session expiry', async () => {
      await this.pool.query('UPDATE sessions SET expires_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL', [tokenHash, expiresAt]);
    });
  }

  revokeAllOfUser(userId: UserId, at: Millis): Promise<number> {
    return guarded('session revoke', async () => {
      const result = await this.pool.query('UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL', [userId, at]);
      return result.rowCount ?? 0;
    });
  }
}
