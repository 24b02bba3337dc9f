// The token cache's own rules, on the memory store (what MongoDB's composition runs: AGE_ONLY, a short age). The
// PostgreSQL listener's rules are tested against a server in adapters/postgres/pg-token-cache.integration.test.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { describeApiTokenRepositoryContract } from '../../contracts-tests/api-token-repository.contract.js';
import { describeSessionRepositoryContract } from '../../contracts-tests/session-repository.contract.js';
import { anApiToken, aSession, T0 } from '../../contracts-tests/support/fixtures.js';
import { createMemoryAdapters } from '../memory/create-memory-adapters.js';
import { ManualClock } from '../memory/manual-clock.js';
import { AGE_ONLY, CachedApiTokenRepository, CachedSessionRepository } from './cached-tokens.js';

const cachedStore = () => {
  const stores = createMemoryAdapters({ clock: new ManualClock() });
  return {
    ...stores, apiTokens: new CachedApiTokenRepository(stores.apiTokens, AGE_ONLY, 750),
    sessions: new CachedSessionRepository(stores.sessions, AGE_ONLY, 750),
  };
};
describeApiTokenRepositoryContract('memory, cached by age', cachedStore);
describeSessionRepositoryContract('memory, cached by age', cachedStore);

describe('token cache by age (AGE_ONLY)', () => {
  it('answers a known token from memory until its age, then reads the store again; never caches an unknown one', async () => {
    const store = createMemoryAdapters({ clock: new ManualClock() }).apiTokens;
    let lookups = 0;
    const counted = Object.create(store) as typeof store;
    counted.findByTokenHash = (hash) => {
      lookups += 1;
      return store.findByTokenHash(hash);
    };
    const cached = new CachedApiTokenRepository(counted, AGE_ONLY, 100);
    const hash = anApiToken().tokenHash;
    expect(await cached.findByTokenHash(hash)).toBeNull();
    await store.create(anApiToken());
    expect(await cached.findByTokenHash(hash)).not.toBeNull();
    expect(lookups).toBe(2);
    // Revoked by "another process" (the store itself): still answered from memory within the age, not after it.
    await store.revoke(anApiToken().id, T0 + 1);
    expect((await cached.findByTokenHash(hash))!.revokedAt).toBeNull();
    expect(lookups).toBe(2);
    await sleep(120);
    expect((await cached.findByTokenHash(hash))!.revokedAt).toBe(T0 + 1);
    expect(lookups).toBe(3);
  });

  it('this process\'s revocations end the cached sessions at once: one by its hash, all of a user\'s', async () => {
    const cached = new CachedSessionRepository(createMemoryAdapters({ clock: new ManualClock() }).sessions, AGE_ONLY, 60_000);
    const a = aSession({ tokenHash: 'a1'.repeat(32), userId: 1 });
    const b = aSession({ tokenHash: 'b1'.repeat(32), userId: 1 });
    for (const s of [a, b]) {
      await cached.create(s);
      expect((await cached.findByTokenHash(s.tokenHash))!.revokedAt).toBeNull();
    }
    await cached.revoke(a.tokenHash, T0 + 1);
    expect((await cached.findByTokenHash(a.tokenHash))!.revokedAt).toBe(T0 + 1);
    expect((await cached.findByTokenHash(b.tokenHash))!.revokedAt).toBeNull();
    await cached.revokeAllOfUser(1, T0 + 2);
    expect((await cached.findByTokenHash(b.tokenHash))!.revokedAt).toBe(T0 + 2);
  });
});
