import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { ApiToken } from '../../core/domain/model/index.js';
import type { ApiTokenRepository } from '../../core/ports/api-token-repository.port.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

/** Developer API tokens by id; lookups by hash scan, which is fine for the embedded store's sizes. */
export class MemoryApiTokenRepository implements ApiTokenRepository {
  constructor(private readonly store: MemoryStore) {}

  async create(token: ApiToken): Promise<void> {
    const clash = this.store.apiTokens.has(token.id) ||
      [...this.store.apiTokens.values()].some((stored) => stored.tokenHash === token.tokenHash);
    if (clash) throw new ConcurrencyConflict('api token', String(token.id));
    this.store.apiTokens.set(token.id, storedCopy(token));
  }

  async findById(id: number): Promise<ApiToken | null> {
    const token = this.store.apiTokens.get(id);
    return token === undefined ? null : outboundCopy(token);
  }

  async findByTokenHash(tokenHash: string): Promise<ApiToken | null> {
    for (const token of this.store.apiTokens.values()) {
      if (token.tokenHash === tokenHash) return outboundCopy(token);
    }
    return null;
  }

  async revoke(id: number, at: number): Promise<ApiToken | null> {
    const token = this.store.apiTokens.get(id);
    if (token === undefined) return null;
    if (token.revokedAt === null) this.store.apiTokens.set(id, storedCopy({ ...token, revokedAt: at }));
    return outboundCopy(this.store.apiTokens.get(id)!);
  }
}
