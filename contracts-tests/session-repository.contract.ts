import { describe, expect, it } from 'vitest';
import type { SessionRepository } from '../core/ports/session-repository.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { aSession, T0 } from './support/fixtures.js';

/** What the session contract needs: an empty repository. */
export interface SessionRepositorySubject extends Closable {
  readonly sessions: SessionRepository;
}

/** The SessionRepository contract (core/ports/session-repository.port.ts); a fresh, empty subject per test. */
export function describeSessionRepositoryContract(
  name: string,
  makeSubject: MakeSubject<SessionRepositorySubject>,
  options: ContractOptions<SessionRepositorySubject> = {},
): void {
  describe(`SessionRepository contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('creates and finds by token hash; unknown hashes are null', async () => {
      const { sessions } = subject();
      await sessions.create(aSession());
      await sessions.create(aSession({ tokenHash: 'ff'.repeat(32), userId: 2 }));
      expect(await sessions.findByTokenHash('a1'.repeat(32))).toEqual(aSession());
      expect((await sessions.findByTokenHash('ff'.repeat(32)))!.userId).toBe(2);
      expect(await sessions.findByTokenHash('00'.repeat(32))).toBeNull();
    });

    it('revoke sets revokedAt once; a second revoke keeps the first time', async () => {
      const { sessions } = subject();
      await sessions.create(aSession());
      await sessions.revoke('a1'.repeat(32), T0 + 5);
      await sessions.revoke('a1'.repeat(32), T0 + 9);
      expect((await sessions.findByTokenHash('a1'.repeat(32)))!.revokedAt).toBe(T0 + 5);
    });

    it('revoking an unknown session is a no-op', async () => {
      const { sessions } = subject();
      await expect(sessions.revoke('00'.repeat(32), T0)).resolves.toBeUndefined();
      expect(await sessions.findByTokenHash('00'.repeat(32))).toBeNull();
    });

    it('a revoked session is still found, with its revocation time (expiry and revocation are checked by the core)', async () => {
      const { sessions } = subject();
      await sessions.create(aSession({ expiresAt: T0 + 1 }));
      await sessions.revoke('a1'.repeat(32), T0 + 2);
      expect(await sessions.findByTokenHash('a1'.repeat(32))).toEqual(aSession({ expiresAt: T0 + 1, revokedAt: T0 + 2 }));
    });

    it('revokeAllOfUser revokes every live session of the user only, keeps earlier revocation times, counts the new ones', async () => {
      const { sessions } = subject();
      await sessions.create(aSession({ tokenHash: 'a1'.repeat(32), userId: 1 }));
      await sessions.create(aSession({ tokenHash: 'a2'.repeat(32), userId: 1 }));
      await sessions.create(aSession({ tokenHash: 'a3'.repeat(32), userId: 1, revokedAt: T0 + 1 }));
      await sessions.create(aSession({ tokenHash: 'b1'.repeat(32), userId: 2 }));
      expect(await sessions.revokeAllOfUser(1, T0 + 7)).toBe(2);
      expect((await sessions.findByTokenHash('a1'.repeat(32)))!.revokedAt).toBe(T0 + 7);
      expect((await sessions.findByTokenHash('a2'.repeat(32)))!.revokedAt).toBe(T0 + 7);
      expect((await sessions.findByTokenHash('a3'.repeat(32)))!.revokedAt).toBe(T0 + 1);
      expect((await sessions.findByTokenHash('b1'.repeat(32)))!.revokedAt).toBeNull();
      expect(await sessions.revokeAllOfUser(1, T0 + 9)).toBe(0);
      expect(await sessions.revokeAllOfUser(42, T0 + 9)).toBe(0);
    });

    it('setExpiry moves a live session\'s expiry either way; an unknown or revoked session is left alone (issue #38)', async () => {
      const { sessions } = subject();
      await sessions.create(aSession({ tokenHash: 'a1'.repeat(32), expiresAt: T0 + 100 }));
      await sessions.create(aSession({ tokenHash: 'a2'.repeat(32), expiresAt: T0 + 100, revokedAt: T0 + 1 }));
      await sessions.setExpiry('a1'.repeat(32), T0 + 30);
      expect(await sessions.findByTokenHash('a1'.repeat(32))).toEqual(aSession({ tokenHash: 'a1'.repeat(32), expiresAt: T0 + 30 }));
      await sessions.setExpiry('a1'.repeat(32), T0 + 60);
      expect((await sessions.findByTokenHash('a1'.repeat(32)))!.expiresAt).toBe(T0 + 60);
      await sessions.setExpiry('a2'.repeat(32), T0 + 500);
      expect((await sessions.findByTokenHash('a2'.repeat(32)))!.expiresAt).toBe(T0 + 100);
      await expect(sessions.setExpiry('00'.repeat(32), T0)).resolves.toBeUndefined();
      expect(await sessions.findByTokenHash('00'.repeat(32))).toBeNull();
    });

    options.extraTestsFn?.(makeSubject);
  });
}
