import type pg from 'pg';
import type { Millis, Session, UserId } from '../../core/domain/model/index.js';
import type { SessionRepository } from '../../core/ports/session-repository.port.js';
import { SESSION_RECORD } from '../records/account-record.js';
import { guarded } from './pg-support.js';
import { PgTable } from './pg-table.js';

/** The `sessions` table, from the record's descriptor. */
const SESSIONS = new PgTable(SESSION_RECORD);

/** Sessions keyed by the SHA-256 of their token. */
export class PgSessionRepository implements SessionRepository {
  constructor(private readonly pool: pg.Pool) {}

  create(session: Session): Promise<void> {
    return guarded('session create', async () => {
      const row = SESSIONS.toRow(session);
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
    // The hot read of every session request: one named statement.
    return guarded('session read', () => SESSIONS.get(this.pool, tokenHash));
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
