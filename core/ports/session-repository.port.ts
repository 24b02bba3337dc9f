import type { Session } from '../domain/model/account.js';

export interface SessionRepository {
  create(session: Session): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<Session | null>;
  /** Marks the session revoked at `at`; no-op when unknown or already revoked. */
  revoke(tokenHash: string, at: number): Promise<void>;
}
