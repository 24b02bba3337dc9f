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

  async revokeAllOfUser(userId: UserId, at: Millis): Promise<number> {
    let revoked = 0;
    for (const [tokenHash, session] of this.store.sessions) {
      if (session.userId !== userId || session.revokedAt !== null) continue;
      this.store.sessions.set(tokenHash, storedCopy({ ...session, revokedAt: at }));
      revoked++;
    }
    return revoked;
  }
}
