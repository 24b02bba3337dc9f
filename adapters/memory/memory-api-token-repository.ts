import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { ApiToken, UserId } from '../../core/domain/model/index.js';
import type { ApiTokenRepository } from '../../core/ports/api-token-repository.port.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

/**
 * Developer API tokens by id, with an index by hash (the lookup of every authenticated request) and the table's index
 * of unrevoked tokens by user (the list and the cap read only the user's own tokens).
 */
export class MemoryApiTokenRepository implements ApiTokenRepository {
  constructor(private readonly store: MemoryStore) {}

  async create(token: ApiToken): Promise<void> {
    const clash = this.store.apiTokens.has(token.id) || this.store.apiTokenIdsByHash.has(token.tokenHash);
    if (clash) throw new ConcurrencyConflict('api token', String(token.id));
    this.store.apiTokens.set(token.id, storedCopy(token));
    this.store.apiTokenIdsByHash.set(token.tokenHash, token.id);
  }

  async createWithinCap(token: ApiToken, max: number): Promise<boolean> {
    // No await between the count and the insert: atomic on the event loop.
    if (this.store.apiTokens.activeByUser.slice(token.userId, 0, 0).total >= max) return false;
    await this.create(token);
    return true;
  }

  async listActiveByUser(userId: UserId): Promise<ApiToken[]> {
    return this.store.apiTokens.activeByUser.keys(userId).map((id) => outboundCopy(this.store.apiTokens.get(id)!));
  }

  async markUsed(id: number, at: number): Promise<void> {
    const token = this.store.apiTokens.get(id);
    if (token !== undefined && (token.lastUsedAt === null || token.lastUsedAt < at)) {
      this.store.apiTokens.set(id, storedCopy({ ...token, lastUsedAt: at }));
    }
  }

  async setExpiry(id: number, expiresAt: number | null): Promise<ApiToken | null> {
    const token = this.store.apiTokens.get(id);
    if (token === undefined) return null;
    if (token.revokedAt === null) this.store.apiTokens.set(id, storedCopy({ ...token, expiresAt, reviewSince: null }));
    return outboundCopy(this.store.apiTokens.get(id)!);
  }

  async markAllForReview(userId: UserId, at: number): Promise<number> {
    let marked = 0;
    for (const id of this.store.apiTokens.activeByUser.keys(userId)) {
      const token = this.store.apiTokens.get(id)!;
      if (token.reviewSince != null) continue;
      this.store.apiTokens.set(id, storedCopy({ ...token, reviewSince: at }));
      marked += 1;
    }
    return marked;
  }

  async findById(id: number): Promise<ApiToken | null> {
    const token = this.store.apiTokens.get(id);
    return token === undefined ? null : outboundCopy(token);
  }

  async findByTokenHash(tokenHash: string): Promise<ApiToken | null> {
    const id = this.store.apiTokenIdsByHash.get(tokenHash);
    const token = id === undefined ? undefined : this.store.apiTokens.get(id);
    return token === undefined ? null : outboundCopy(token);
  }

  async revoke(id: number, at: number): Promise<ApiToken | null> {
    const token = this.store.apiTokens.get(id);
    if (token === undefined) return null;
    if (token.revokedAt === null) this.store.apiTokens.set(id, storedCopy({ ...token, revokedAt: at }));
    return outboundCopy(this.store.apiTokens.get(id)!);
  }
}
