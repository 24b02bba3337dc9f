/**
 * Adapter-only: the owner indexes of the memory store (unrevoked API tokens and sessions by user, developer configs
 * with a URL waiting for review, unverified accounts by age) against the full scans they replaced, copied here as the
 * model. Random histories go through the repositories — inserts, clashing inserts, capped inserts, revocations,
 * uses, stale saves that must change nothing, approvals and withdrawals of pending URLs, sweeps — and through direct
 * deletes from the store (as a test poking it would); after every step each index must give what a scan of the
 * table gives, in the same order, as fresh copies. The unit of work never writes these tables (it commits commands,
 * tasks and events, and checks everything before it writes), so there is no rollback for them to survive.
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Account, ApiToken, DeveloperConfig, Session, UserId } from '../../core/domain/model/index.js';
import { aDeveloperConfig, anAccount, anApiToken, aSession } from '../../contracts-tests/support/fixtures.js';
import { outboundCopy } from './frozen-copy.js';
import { MemoryAccountRepository } from './memory-account-repository.js';
import { MemoryApiTokenRepository } from './memory-api-token-repository.js';
import { MemoryDeveloperConfigRepository } from './memory-developer-config-repository.js';
import { MemorySessionRepository } from './memory-session-repository.js';
import { MemoryStore } from './memory-store.js';

const USERS = [1, 2, 3, 4] as const;

// The scans the indexes replaced, verbatim.
function naiveActiveTokens(store: MemoryStore, userId: UserId): ApiToken[] {
  return [...store.apiTokens.values()].filter((t) => t.userId === userId && t.revokedAt === null);
}
function naiveListActive(store: MemoryStore, userId: UserId): ApiToken[] {
  return naiveActiveTokens(store, userId).sort((a, b) => a.id - b.id).map((t) => outboundCopy(t));
}
function naiveListPending(store: MemoryStore): DeveloperConfig[] {
  return [...store.developerConfigs.values()]
    .filter((c) => c.pendingUrl !== null)
    .sort((a, b) => (a.pendingSince ?? 0) - (b.pendingSince ?? 0))
    .map((c) => outboundCopy(c));
}
/** revokeAllOfUser as a scan: the sessions after it, and the count. */
function naiveRevokeAll(sessions: ReadonlyMap<string, Session>, userId: UserId, at: number): { after: Map<string, Session>; revoked: number } {
  const after = new Map(sessions);
  let revoked = 0;
  for (const [tokenHash, session] of sessions) {
    if (session.userId !== userId || session.revokedAt !== null) continue;
    after.set(tokenHash, { ...session, revokedAt: at });
    revoked++;
  }
  return { after, revoked };
}
/** deleteUnverifiedCreatedBefore as a scan: the ids that stay, and the count. */
function naiveSweep(accounts: ReadonlyMap<UserId, Account>, createdBefore: number): { kept: UserId[]; deleted: number } {
  const kept: UserId[] = [];
  let deleted = 0;
  for (const [id, account] of accounts) {
    if (account.verified || account.createdAt >= createdBefore) kept.push(id);
    else deleted++;
  }
  return { kept, deleted };
}

const hashOf = (n: number): string => n.toString(16).padStart(2, '0').repeat(32);
const user = fc.constantFrom<UserId>(...USERS);
const at = fc.integer({ min: 0, max: 20 });
const tokenId = fc.integer({ min: 1, max: 12 });
const pendingUrl = fc.option(fc.constantFrom('https://a.example.com', 'https://b.example.com'), { nil: null });
const pendingSince = fc.option(fc.integer({ min: 0, max: 4 }), { nil: null });

const opArb = fc.oneof(
  // API tokens
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('tokenCreate' as const), id: tokenId, userId: user, hash: tokenId }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('tokenCreateWithinCap' as const), id: tokenId, userId: user, hash: tokenId, max: fc.integer({ min: 0, max: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('tokenRevoke' as const), id: tokenId, at }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tokenMarkUsed' as const), id: tokenId, at }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tokenDelete' as const), id: tokenId }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tokenList' as const), userId: user }) },
  // Developer configs: a save sets, replaces, approves (url = pendingUrl, pendingUrl null) or withdraws a pending URL
  { weight: 5, arbitrary: fc.record({
    kind: fc.constant('configSave' as const), userId: user, pendingUrl, pendingSince, approve: fc.boolean(),
    stale: fc.constantFrom(0, 0, 0, -1, 1),
  }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('configDelete' as const), userId: user }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'configListPending' as const }) },
  // Sessions
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('sessionCreate' as const), n: fc.integer({ min: 0, max: 10 }), userId: user, revokedAt: fc.option(at, { nil: null, freq: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('sessionRevoke' as const), n: fc.integer({ min: 0, max: 10 }), at }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('sessionRevokeAll' as const), userId: user, at }) },
  // Accounts
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('accountCreate' as const), id: fc.integer({ min: 1, max: 8 }), email: fc.integer({ min: 0, max: 8 }), verified: fc.boolean(), createdAt: fc.integer({ min: 0, max: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('accountUpdate' as const), id: fc.integer({ min: 1, max: 8 }), verified: fc.boolean(), createdAt: fc.integer({ min: 0, max: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('accountSweep' as const), createdBefore: fc.integer({ min: 0, max: 8 }) }) },
);
type Op = typeof opArb extends fc.Arbitrary<infer O> ? O : never;

async function outcome<T>(run: () => Promise<T>): Promise<T | 'conflict'> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof ConcurrencyConflict) return 'conflict';
    throw e;
  }
}

class Subject {
  readonly store = new MemoryStore();
  readonly tokens = new MemoryApiTokenRepository(this.store);
  readonly configs = new MemoryDeveloperConfigRepository(this.store);
  readonly sessions = new MemorySessionRepository(this.store);
  readonly accounts = new MemoryAccountRepository(this.store);

  async apply(op: Op): Promise<void> {
    const { store } = this;
    switch (op.kind) {
      case 'tokenCreate': {
        const clash = store.apiTokens.has(op.id) || [...store.apiTokens.values()].some((t) => t.tokenHash === hashOf(op.hash));
        const got = await outcome(() => this.tokens.create(anApiToken({ id: op.id, userId: op.userId, tokenHash: hashOf(op.hash) })));
        expect(got).toBe(clash ? 'conflict' : undefined);
        return;
      }
      case 'tokenCreateWithinCap': {
        const full = naiveActiveTokens(store, op.userId).length >= op.max;
        const clash = store.apiTokens.has(op.id) || [...store.apiTokens.values()].some((t) => t.tokenHash === hashOf(op.hash));
        const got = await outcome(() => this.tokens.createWithinCap(anApiToken({ id: op.id, userId: op.userId, tokenHash: hashOf(op.hash) }), op.max));
        expect(got).toBe(full ? false : clash ? 'conflict' : true);
        return;
      }
      case 'tokenRevoke': {
        const before = store.apiTokens.get(op.id);
        const expected = before === undefined ? null : { ...before, revokedAt: before.revokedAt ?? op.at };
        expect(await this.tokens.revoke(op.id, op.at)).toEqual(expected);
        return;
      }
      case 'tokenMarkUsed':
        await this.tokens.markUsed(op.id, op.at);
        return;
      case 'tokenDelete': {
        const token = store.apiTokens.get(op.id);
        if (token !== undefined) store.apiTokenIdsByHash.delete(token.tokenHash);
        store.apiTokens.delete(op.id);
        return;
      }
      case 'tokenList': {
        const listed = await this.tokens.listActiveByUser(op.userId);
        expect(listed).toEqual(naiveListActive(store, op.userId));
        // Fresh, mutable copies: changing one changes nothing stored.
        for (const t of listed) {
          expect(Object.isFrozen(t)).toBe(false);
          (t as { revokedAt: number | null }).revokedAt = 99;
        }
        expect(await this.tokens.listActiveByUser(op.userId)).toEqual(naiveListActive(store, op.userId));
        return;
      }
      case 'configSave': {
        const stored = store.developerConfigs.get(op.userId);
        const base = stored ?? aDeveloperConfig({ userId: op.userId, version: 0 });
        const next: DeveloperConfig = op.approve && base.pendingUrl !== null
          ? { ...base, url: base.pendingUrl, pendingUrl: null, pendingSince: null, verifiedAt: 7, version: base.version + 1 + op.stale }
          : { ...base, pendingUrl: op.pendingUrl, pendingSince: op.pendingSince, version: base.version + 1 + op.stale };
        const got = await outcome(() => this.configs.save(next));
        expect(got).toBe(op.stale !== 0 ? 'conflict' : undefined);
        expect(store.developerConfigs.get(op.userId)).toEqual(op.stale !== 0 ? stored : next);
        return;
      }
      case 'configDelete':
        store.developerConfigs.delete(op.userId);
        return;
      case 'configListPending': {
        const listed = await this.configs.listPending();
        expect(listed).toEqual(naiveListPending(store));
        for (const c of listed) {
          expect(Object.isFrozen(c)).toBe(false);
          (c as { pendingUrl: string | null }).pendingUrl = null;
        }
        expect(await this.configs.listPending()).toEqual(naiveListPending(store));
        return;
      }
      case 'sessionCreate':
        await this.sessions.create(aSession({ tokenHash: `s${op.n}`, userId: op.userId, revokedAt: op.revokedAt }));
        return;
      case 'sessionRevoke':
        await this.sessions.revoke(`s${op.n}`, op.at);
        return;
      case 'sessionRevokeAll': {
        const expected = naiveRevokeAll(new Map(store.sessions), op.userId, op.at);
        expect(await this.sessions.revokeAllOfUser(op.userId, op.at)).toBe(expected.revoked);
        expect(new Map(store.sessions)).toEqual(expected.after);
        return;
      }
      case 'accountCreate': {
        // Only a verified account owns its e-mail; pending registrations of one e-mail are many (issue #26 item 6).
        const taken = op.verified && [...store.accounts.values()].some((a) => a.verified && a.email === `u${op.email}@example.com`);
        const expected = taken ? false : store.accounts.has(op.id) ? 'conflict' : true;
        const account = anAccount({ id: op.id, email: `u${op.email}@example.com`, verified: op.verified, createdAt: op.createdAt });
        expect(await outcome(() => this.accounts.create(account))).toBe(expected);
        return;
      }
      case 'accountUpdate': {
        const stored = store.accounts.get(op.id);
        if (stored === undefined) return;
        const clash = op.verified && [...store.accounts.values()].some((a) => a.verified && a.id !== op.id && a.email === stored.email);
        expect(await outcome(() => this.accounts.update({ ...stored, verified: op.verified, createdAt: op.createdAt, version: stored.version + 1 })))
          .toBe(clash ? 'conflict' : undefined);
        return;
      }
      case 'accountSweep': {
        const expected = naiveSweep(new Map(store.accounts), op.createdBefore);
        expect(await this.accounts.deleteUnverifiedCreatedBefore(op.createdBefore)).toBe(expected.deleted);
        expect([...store.accounts.keys()]).toEqual(expected.kept);
        expect([...store.accountIdsByEmail.values()].sort()).toEqual(expected.kept.filter((id) => store.accounts.get(id)!.verified).sort());
        return;
      }
    }
  }

  /** After every step: every index answers what a scan of its table answers. */
  async check(): Promise<void> {
    const { store } = this;
    for (const userId of USERS) {
      expect(await this.tokens.listActiveByUser(userId)).toEqual(naiveListActive(store, userId));
      const active = [...store.sessions].filter(([, s]) => s.userId === userId && s.revokedAt === null).map(([h]) => h);
      expect([...store.sessions.activeByUser.keys(userId)].sort()).toEqual(active.sort());
    }
    expect(await this.configs.listPending()).toEqual(naiveListPending(store));
    const unverified = [...store.accounts.values()].filter((a) => !a.verified).sort((a, b) => a.createdAt - b.createdAt).map((a) => a.id);
    expect(store.accounts.unverified.keys(true)).toEqual(unverified);
    const verifiedIds = [...store.accounts.values()].filter((a) => a.verified).map((a) => a.id).sort();
    expect([...store.accountIdsByEmail.values()].sort()).toEqual(verifiedIds);
    for (const email of new Set([...store.accounts.values()].map((a) => a.email))) {
      const pending = [...store.accounts.values()].filter((a) => !a.verified && a.email === email)
        .sort((a, b) => a.createdAt - b.createdAt).map((a) => a.id);
      expect(store.accounts.pendingByEmail.keys(email)).toEqual(pending);
    }
  }
}

describe('memory owner indexes against the scans they replaced', () => {
  it('tokens by user, pending configs, sessions by user and unverified accounts answer what a scan would, after every step', async () => {
    await fc.assert(fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 200, size: 'max' }), async (ops) => {
      const subject = new Subject();
      for (const op of ops) {
        await subject.apply(op);
        await subject.check();
      }
    }), { numRuns: runs(300) });
  });

  it('listPending breaks pendingSince ties by first save, like the stable sort of the table did', async () => {
    const subject = new Subject();
    for (const userId of [3, 1, 2]) await subject.configs.save(aDeveloperConfig({ userId }));
    for (const userId of [1, 2, 3]) {
      await subject.configs.save(aDeveloperConfig({ userId, pendingUrl: 'https://a.example.com', pendingSince: 5, version: 2 }));
    }
    expect((await subject.configs.listPending()).map((c) => c.userId)).toEqual([3, 1, 2]);
    expect(await subject.configs.listPending()).toEqual(naiveListPending(subject.store));
  });
});
