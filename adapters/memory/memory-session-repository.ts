import type { Millis, Session, UserId } from '../../core/domain/model/index.js';
import type { SessionRepository } from '../../core/ports/session-repository.port.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

/** Sessions keyed by the SHA-256 of their token. */
export class MemorySessionRepository implements SessionRepository {
  constructor(private readonly store: MemoryStore) {}

  async create(session: Session): Promise<void> {
    this.store.sessions.set(session.tokenHash, storedCopy(session));
  }

  async findByTokenHash(tokenHash: string): Promise<Session | null> {
    const session = this.store.sessions.get(tokenHash);
    return session === undefined ? null : outboundCopy(session);
  }

  async revoke(tokenHash: string, at: number): Promise<void> {
    const session = this.store.sessions.get(tokenHash);
    if (session === undefined || session.revokedAt !== null) return;
    this.store.sessions.set(tokenHash, storedCopy({ ...session, revokedAt: at }));
  }

  async setExpiry(tokenHash: string, expiresAt: Millis): Promise<void> {
    const session = this.store.sessions.get(tokenHash);
    if (session === undefined || session.revokedAt !== null) return;
    this.store.sessions.set(tokenHash, storedCopy({ ...session, expiresAt }));
  }

  async revokeAllOfUser(userId: UserId, at: Millis): Promise<number> {
    // Only the user's unrevoked sessions (the table's index); each revocation leaves the index, so copy the keys first.
    const active = [...this.store.sessions.activeByUser.keys(userId)];
    for (const tokenHash of active) {
      this.store.sessions.set(tokenHash, storedCopy({ ...this.store.sessions.get(tokenHash)!, revokedAt: at }));
    }
    return active.length;
  }
}
