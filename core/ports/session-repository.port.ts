import type { Session } from '../domain/model/account.js';
import type { Millis, UserId } from '../domain/model/common.js';

export interface SessionRepository {
  create(session: Session): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<Session | null>;
  /** Marks the session revoked at `at`; no-op when unknown or already revoked. */
  revoke(tokenHash: string, at: number): Promise<void>;
  /** Marks every unrevoked session of the user revoked at `at` (already revoked ones keep their time); returns how many. */
  revokeAllOfUser(userId: UserId, at: Millis): Promise<number>;
  /**
   * Moves an unrevoked session's expiry to `expiresAt` (earlier or later; the console's idle timeout, issue #38); no-op
   * when unknown or revoked.
   */
  setExpiry(tokenHash: string, expiresAt: Millis): Promise<void>;
}
