/**
 * API and session tokens remembered in the process (issue #37), so that authenticating a request costs no store read
 * once its token is known; shared by the durable stores, each with its own way of vouching for the cache. The
 * decorators own the cache and when it forgets: on every change the vouch hears (PostgreSQL's PgTokenListener: any
 * process, within 1 s), whenever the vouch lapses (nothing cached is answered then), at the entries' maximum age
 * (MongoDB's: 750 ms, its only bound), and on this process's own revocations at once. Unknown tokens are never
 * cached: a token made by another process is found by the next lookup. Expiry needs nothing here: the use cases judge
 * a session's expiresAt on every request.
 */
import type { ApiToken, Millis, Session, UserId } from '../../core/domain/model/index.js';
import type { ApiTokenRepository } from '../../core/ports/api-token-repository.port.js';
import type { SessionRepository } from '../../core/ports/session-repository.port.js';

/** What vouches for a token cache: whether it may answer now, and the changes it hears. */
export interface TokenVouch {
  /** Whether a cached token may answer now (a call counts as a use of the cache). */
  trusted(): boolean;
  /** Changes whenever something may have changed unheard-of or was heard: a lookup that saw it change is not kept. */
  readonly epoch: number;
  /** Registers what to forget on a change (a token hash, or null: everything); returns how to unregister. */
  onForget(forget: (tokenHash: string | null) => void): () => void;
}

/** A vouch that hears nothing: the entries' age is the only bound (MongoDB: maxAgeMs well under a second). */
export const AGE_ONLY: TokenVouch = { trusted: () => true, epoch: 0, onForget: () => () => undefined };

/** How many tokens a process remembers (the least recently looked up go first), and for how long at most by default. */
const MAX_ENTRIES = 10_000;
const DEFAULT_MAX_AGE_MS = 5 * 60_000;
/**
 * How long this process's own revocation keeps the matching tokens out of the cache: until the revoking transaction
 * has surely committed (the store ends a transaction idle for 60 s) and its notification been heard.
 */
const HOLD_MS = 65_000;

interface Entry<T> {
  value: T;
  readonly at: number;
}

interface Hold<T> {
  readonly matches: (value: T) => boolean;
  readonly until: number;
}

/** Token hash -> record, valid while its vouch trusts it and for at most maxAgeMs; see the file's comment. */
export class TokenCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private holds: Array<Hold<T>> = [];

  constructor(private readonly vouch: TokenVouch, private readonly maxAgeMs = DEFAULT_MAX_AGE_MS) {
    vouch.onForget((tokenHash) => {
      if (tokenHash === null) this.entries.clear();
      else this.entries.delete(tokenHash);
    });
  }

  /** The cached record of `tokenHash`, else `load`'s answer, remembered when nothing may have changed meanwhile. */
  async get(tokenHash: string, load: () => Promise<T | null>): Promise<T | null> {
    const trusted = this.vouch.trusted();
    const now = performance.now();
    if (trusted) {
      const hit = this.entries.get(tokenHash);
      if (hit !== undefined && now - hit.at < this.maxAgeMs) {
        // Map order is insertion order: re-inserting keeps the least recently used first.
        this.entries.delete(tokenHash);
        this.entries.set(tokenHash, hit);
        return hit.value;
      }
    }
    const epoch = this.vouch.epoch;
    const value = await load();
    if (value !== null && trusted && this.vouch.epoch === epoch && this.vouch.trusted() && !this.held(value)) {
      this.entries.delete(tokenHash);
      this.entries.set(tokenHash, { value, at: now });
      if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    }
    return value;
  }

  /** Changes the cached records `matches` picks in place (a change that ends no use, such as a use's time). */
  updateWhere(matches: (value: T) => boolean, change: (value: T) => T): void {
    for (const entry of this.entries.values()) if (matches(entry.value)) entry.value = change(entry.value);
  }

  /**
   * Around this process's own write that may end the use of the records `matches` picks: forgets them, and keeps them
   * from being cached until the write has surely committed and been heard (a read between the write and its commit
   * still sees the old row).
   */
  async revoking<R>(matches: (value: T) => boolean, write: () => Promise<R>): Promise<R> {
    const now = performance.now();
    this.holds = [...this.holds.filter((h) => h.until > now), { matches, until: now + HOLD_MS }];
    this.forgetWhere(matches);
    try {
      return await write();
    } finally {
      this.forgetWhere(matches);
    }
  }

  private held(value: T): boolean {
    if (this.holds.length === 0) return false;
    const now = performance.now();
    this.holds = this.holds.filter((h) => h.until > now);
    return this.holds.some((h) => h.matches(value));
  }

  private forgetWhere(matches: (value: T) => boolean): void {
    for (const [hash, entry] of this.entries) if (matches(entry.value)) this.entries.delete(hash);
  }
}

/** ApiTokenRepository with findByTokenHash remembered (TokenCache); every other method goes to the store. */
export class CachedApiTokenRepository implements ApiTokenRepository {
  private readonly cache: TokenCache<ApiToken>;

  constructor(private readonly store: ApiTokenRepository, vouch: TokenVouch, maxAgeMs?: number) {
    this.cache = new TokenCache(vouch, maxAgeMs);
  }

  create(token: ApiToken): Promise<void> {
    return this.store.create(token);
  }

  createWithinCap(token: ApiToken, max: number): Promise<boolean> {
    return this.store.createWithinCap(token, max);
  }

  findById(id: number): Promise<ApiToken | null> {
    return this.store.findById(id);
  }

  findByTokenHash(tokenHash: string): Promise<ApiToken | null> {
    return this.cache.get(tokenHash, () => this.store.findByTokenHash(tokenHash));
  }

  listActiveByUser(userId: UserId): Promise<ApiToken[]> {
    return this.store.listActiveByUser(userId);
  }

  revoke(id: number, at: number): Promise<ApiToken | null> {
    return this.cache.revoking((token) => token.id === id, () => this.store.revoke(id, at));
  }

  /** A new expiry must not wait for the cache: this process forgets the token at once (others hear the change). */
  setExpiry(id: number, expiresAt: number | null): Promise<ApiToken | null> {
    return this.cache.revoking((token) => token.id === id, () => this.store.setExpiry(id, expiresAt));
  }

  /** The mark changes nothing authentication reads: nothing to forget. */
  markAllForReview(userId: UserId, at: number): Promise<number> {
    return this.store.markAllForReview(userId, at);
  }

  /** Also moves the cached lastUsedAt, so that the use case's once-a-minute rule sees the write it just made. */
  async markUsed(id: number, at: number): Promise<void> {
    await this.store.markUsed(id, at);
    this.cache.updateWhere((t) => t.id === id, (t) => (t.lastUsedAt !== null && t.lastUsedAt >= at ? t : { ...t, lastUsedAt: at }));
  }
}

/** SessionRepository with findByTokenHash remembered (TokenCache); every other method goes to the store. */
export class CachedSessionRepository implements SessionRepository {
  private readonly cache: TokenCache<Session>;

  constructor(private readonly store: SessionRepository, vouch: TokenVouch, maxAgeMs?: number) {
    this.cache = new TokenCache(vouch, maxAgeMs);
  }

  /** A new token's hash is cached nowhere (unknown tokens never are). */
  create(session: Session): Promise<void> {
    return this.store.create(session);
  }

  findByTokenHash(tokenHash: string): Promise<Session | null> {
    return this.cache.get(tokenHash, () => this.store.findByTokenHash(tokenHash));
  }

  revoke(tokenHash: string, at: number): Promise<void> {
    return this.cache.revoking((s) => s.tokenHash === tokenHash, () => this.store.revoke(tokenHash, at));
  }

  revokeAllOfUser(userId: UserId, at: Millis): Promise<number> {
    return this.cache.revoking((s) => s.userId === userId, () => this.store.revokeAllOfUser(userId, at));
  }

  /** Also moves the cached expiry, so that this process judges the new one at once (others hear the change). */
  async setExpiry(tokenHash: string, expiresAt: Millis): Promise<void> {
    await this.store.setExpiry(tokenHash, expiresAt);
    this.cache.updateWhere((s) => s.tokenHash === tokenHash && s.revokedAt === null, (s) => ({ ...s, expiresAt }));
  }
}
