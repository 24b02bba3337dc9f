import { describe, expect, it } from 'vitest';
import type { ApiTokenRepository } from '../core/ports/api-token-repository.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { anApiToken, T0 } from './support/fixtures.js';

/** What the API-token contract needs: an empty repository. */
export interface ApiTokenRepositorySubject extends Closable {
  readonly apiTokens: ApiTokenRepository;
}

/** The ApiTokenRepository contract (core/ports/api-token-repository.port.ts). */
export function describeApiTokenRepositoryContract(
  name: string,
  makeSubject: MakeSubject<ApiTokenRepositorySubject>,
  options: ContractOptions<ApiTokenRepositorySubject> = {},
): void {
  describe(`ApiTokenRepository contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('creates and finds by id and by token hash', async () => {
      const { apiTokens } = subject();
      await apiTokens.create(anApiToken());
      await apiTokens.create(anApiToken({ id: 2, tokenHash: 'd4'.repeat(32), name: 'other' }));
      expect(await apiTokens.findById(1)).toEqual(anApiToken());
      expect((await apiTokens.findByTokenHash('d4'.repeat(32)))!.id).toBe(2);
      expect(await apiTokens.findById(3)).toBeNull();
      expect(await apiTokens.findByTokenHash('00'.repeat(32))).toBeNull();
    });

    it('revoke sets revokedAt once and returns the stored token', async () => {
      const { apiTokens } = subject();
      await apiTokens.create(anApiToken());
      expect((await apiTokens.revoke(1, T0 + 5))!.revokedAt).toBe(T0 + 5);
      expect((await apiTokens.revoke(1, T0 + 9))!.revokedAt).toBe(T0 + 5);
      expect((await apiTokens.findByTokenHash('b2'.repeat(32)))!.revokedAt).toBe(T0 + 5);
    });

    it('revoke of an unknown id is null', async () => {
      expect(await subject().apiTokens.revoke(42, T0)).toBeNull();
    });

    it('keeps abilities as an independent list', async () => {
      const { apiTokens } = subject();
      const abilities = ['api:access'];
      await apiTokens.create(anApiToken({ abilities }));
      abilities.push('admin');
      expect((await apiTokens.findById(1))!.abilities).toEqual(['api:access']);
    });

    it('concurrent revokes all report the one stored revocation time', async () => {
      const { apiTokens } = subject();
      await apiTokens.create(anApiToken());
      const results = await Promise.all([5, 3, 9, 1].map((t) => apiTokens.revoke(1, T0 + t)));
      const stored = (await apiTokens.findById(1))!.revokedAt;
      expect([5, 3, 9, 1].map((t) => T0 + t)).toContain(stored);
      expect(results.map((r) => r!.revokedAt)).toEqual([stored, stored, stored, stored]);
    });

    it('createWithinCap: exactly max of max + k concurrent creations of one user; other users and revoked tokens do not count', async () => {
      const { apiTokens } = subject();
      await apiTokens.create(anApiToken({ id: 100, userId: 2, tokenHash: 'e0'.repeat(32) }));
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) =>
        apiTokens.createWithinCap(anApiToken({ id: i + 1, tokenHash: i.toString(16).padStart(2, '0').repeat(32) }), 5)));
      expect(results.filter(Boolean)).toHaveLength(5);
      const held = await apiTokens.listActiveByUser(1);
      expect(held).toHaveLength(5);
      expect(await apiTokens.createWithinCap(anApiToken({ id: 20, tokenHash: 'f1'.repeat(32) }), 5)).toBe(false);
      expect(await apiTokens.findById(20)).toBeNull();
      await apiTokens.revoke(held[0]!.id, T0 + 1);
      expect(await apiTokens.createWithinCap(anApiToken({ id: 21, tokenHash: 'f2'.repeat(32) }), 5)).toBe(true);
      expect(await apiTokens.createWithinCap(anApiToken({ id: 22, tokenHash: 'f3'.repeat(32) }), 5)).toBe(false);
    });

    it('listActiveByUser: the user\'s unrevoked tokens, lowest id first', async () => {
      const { apiTokens } = subject();
      await apiTokens.create(anApiToken({ id: 3, tokenHash: 'a3'.repeat(32) }));
      await apiTokens.create(anApiToken({ id: 1, tokenHash: 'a1'.repeat(32) }));
      await apiTokens.create(anApiToken({ id: 2, tokenHash: 'a2'.repeat(32) }));
      await apiTokens.create(anApiToken({ id: 4, userId: 9, tokenHash: 'a4'.repeat(32) }));
      await apiTokens.revoke(2, T0);
      expect((await apiTokens.listActiveByUser(1)).map((t) => t.id)).toEqual([1, 3]);
      expect(await apiTokens.listActiveByUser(7)).toEqual([]);
    });

    it('markUsed keeps the latest use and ignores unknown ids', async () => {
      const { apiTokens } = subject();
      await apiTokens.create(anApiToken());
      await apiTokens.markUsed(1, T0 + 50);
      await apiTokens.markUsed(1, T0 + 20);
      await apiTokens.markUsed(99, T0);
      expect((await apiTokens.findById(1))!.lastUsedAt).toBe(T0 + 50);
    });

    it('setExpiry sets or clears the expiry of a live token and clears its review mark; a revoked one stays as it is (issue #35)', async () => {
      const { apiTokens } = subject();
      await apiTokens.create(anApiToken({ reviewSince: T0 + 5 }));
      await apiTokens.create(anApiToken({ id: 2, tokenHash: 'd4'.repeat(32), revokedAt: T0 + 1 }));
      expect(await apiTokens.setExpiry(1, T0 + 3_600_000)).toEqual(anApiToken({ expiresAt: T0 + 3_600_000, reviewSince: null }));
      expect((await apiTokens.findByTokenHash('b2'.repeat(32)))!.expiresAt).toBe(T0 + 3_600_000);
      expect((await apiTokens.setExpiry(1, null))!.expiresAt).toBeNull();
      expect(await apiTokens.setExpiry(2, T0 + 9)).toEqual(anApiToken({ id: 2, tokenHash: 'd4'.repeat(32), revokedAt: T0 + 1 }));
      expect(await apiTokens.setExpiry(99, T0)).toBeNull();
    });

    it('markAllForReview marks the user\'s live tokens not marked yet, and says how many (issue #35)', async () => {
      const { apiTokens } = subject();
      await apiTokens.create(anApiToken());
      await apiTokens.create(anApiToken({ id: 2, tokenHash: 'd4'.repeat(32), reviewSince: T0 }));
      await apiTokens.create(anApiToken({ id: 3, tokenHash: 'e5'.repeat(32), revokedAt: T0 }));
      await apiTokens.create(anApiToken({ id: 4, tokenHash: 'f6'.repeat(32), userId: 2 }));
      expect(await apiTokens.markAllForReview(1, T0 + 7)).toBe(1);
      expect((await apiTokens.findById(1))!.reviewSince).toBe(T0 + 7);
      expect((await apiTokens.findById(2))!.reviewSince).toBe(T0);
      expect((await apiTokens.findById(3))!.reviewSince).toBeNull();
      expect((await apiTokens.findById(4))!.reviewSince).toBeNull();
      expect(await apiTokens.markAllForReview(1, T0 + 8)).toBe(0);
    });

    options.extraTestsFn?.(makeSubject);
  });
}
