import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../core/domain/errors.js';
import type { AccountRepository } from '../core/ports/account-repository.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { anAccount, MINUTE, T0 } from './support/fixtures.js';

/** What the account contract needs: an empty repository. */
export interface AccountRepositorySubject extends Closable {
  readonly accounts: AccountRepository;
}

/** The AccountRepository contract (core/ports/account-repository.port.ts); a fresh, empty subject per test. */
export function describeAccountRepositoryContract(
  name: string,
  makeSubject: MakeSubject<AccountRepositorySubject>,
  options: ContractOptions<AccountRepositorySubject> = {},
): void {
  const concurrency = options.concurrency ?? 50;
  describe(`AccountRepository contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('creates and finds by id, and a verified account by email, case-insensitively', async () => {
      const { accounts } = subject();
      const account = anAccount({ email: 'Alice@Example.com', verified: true, verificationCodeHash: null });
      expect(await accounts.create(account)).toBe(true);
      expect(await accounts.findById(1)).toEqual(account);
      expect(await accounts.findByEmail('alice@EXAMPLE.com')).toEqual(account);
      expect(await accounts.findById(2)).toBeNull();
      expect(await accounts.findByEmail('bob@example.com')).toBeNull();
    });

    it('refuses a verified account on a verified e-mail regardless of case and writes nothing', async () => {
      const { accounts } = subject();
      await accounts.create(anAccount({ id: 1, email: 'alice@example.com', verified: true }));
      expect(await accounts.create(anAccount({ id: 2, email: 'ALICE@example.com', verified: true }))).toBe(false);
      expect(await accounts.findById(2)).toBeNull();
      expect((await accounts.findByEmail('alice@example.com'))!.id).toBe(1);
    });

    it('of concurrent verified creates with one email exactly one succeeds', async () => {
      const { accounts } = subject();
      const results = await Promise.all(Array.from({ length: concurrency }, (_, i) =>
        accounts.create(anAccount({ id: i + 1, email: i % 2 === 0 ? 'race@example.com' : 'RACE@example.com', verified: true }))));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('pending registrations of one e-mail are many, block nothing, and are listed oldest first (issue #26 item 6)', async () => {
      const { accounts } = subject();
      expect(await accounts.create(anAccount({ id: 1, email: 'pat@example.com', createdAt: T0 + MINUTE }))).toBe(true);
      expect(await accounts.create(anAccount({ id: 2, email: 'PAT@example.com', createdAt: T0 }))).toBe(true);
      expect(await accounts.create(anAccount({ id: 3, email: 'other@example.com' }))).toBe(true);
      expect(await accounts.findByEmail('pat@example.com')).toBeNull();
      expect((await accounts.listPendingByEmail('Pat@Example.com')).map((a) => a.id)).toEqual([2, 1]);
      // A verified account of the e-mail may exist beside them; it is not listed as pending.
      expect(await accounts.create(anAccount({ id: 4, email: 'pat@example.com', verified: true }))).toBe(true);
      expect((await accounts.listPendingByEmail('pat@example.com')).map((a) => a.id)).toEqual([2, 1]);
      expect(await accounts.create(anAccount({ id: 5, email: 'pat@example.com' }))).toBe(true);
      expect(await accounts.listPendingByEmail('nobody@example.com')).toEqual([]);
    });

    it('an id already stored is a ConcurrencyConflict, pending or not', async () => {
      const { accounts } = subject();
      await accounts.create(anAccount({ id: 1, email: 'a@example.com' }));
      await expect(accounts.create(anAccount({ id: 1, email: 'b@example.com' }))).rejects.toBeInstanceOf(ConcurrencyConflict);
    });

    it('promote verifies one registration and voids every other of its e-mail, and no other', async () => {
      const { accounts } = subject();
      await accounts.create(anAccount({ id: 1, email: 'pat@example.com' }));
      await accounts.create(anAccount({ id: 2, email: 'PAT@example.com' }));
      await accounts.create(anAccount({ id: 3, email: 'other@example.com' }));
      const winner = anAccount({ id: 2, email: 'PAT@example.com', verified: true, version: 2 });
      expect(await accounts.promote(winner)).toBe(true);
      expect(await accounts.findByEmail('pat@example.com')).toEqual(winner);
      expect(await accounts.findById(1)).toBeNull();
      expect(await accounts.listPendingByEmail('pat@example.com')).toEqual([]);
      expect(await accounts.findById(3)).not.toBeNull();
      // The voided one cannot be promoted any more.
      await expect(accounts.promote(anAccount({ id: 1, email: 'pat@example.com', verified: true, version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      // A later registration of the owned e-mail cannot take it either.
      await accounts.create(anAccount({ id: 4, email: 'pat@example.com' }));
      expect(await accounts.promote(anAccount({ id: 4, email: 'pat@example.com', verified: true, version: 2 }))).toBe(false);
      expect((await accounts.findById(4))!.verified).toBe(false);
      expect((await accounts.findByEmail('pat@example.com'))!.id).toBe(2);
    });

    it('promote with a stale version is a ConcurrencyConflict and writes nothing', async () => {
      const { accounts } = subject();
      await accounts.create(anAccount({ id: 1 }));
      await accounts.create(anAccount({ id: 2 }));
      await expect(accounts.promote(anAccount({ id: 1, verified: true, version: 3 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect((await accounts.listPendingByEmail('alice@example.com')).map((a) => a.id)).toEqual([1, 2]);
    });

    it('of concurrent promotions of the registrations of one e-mail exactly one wins; the others are void', async () => {
      const { accounts } = subject();
      const n = Math.min(concurrency, 12);
      for (let i = 1; i <= n; i++) await accounts.create(anAccount({ id: i, email: i % 2 === 0 ? 'race@example.com' : 'RACE@example.com' }));
      const outcomes = await Promise.allSettled(Array.from({ length: n }, (_, i) =>
        accounts.promote(anAccount({ id: i + 1, email: (i + 1) % 2 === 0 ? 'race@example.com' : 'RACE@example.com', verified: true, version: 2 }))));
      expect(outcomes.filter((o) => o.status === 'fulfilled' && o.value)).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(ConcurrencyConflict);
      const owner = (await accounts.findByEmail('race@example.com'))!;
      expect(owner.verified).toBe(true);
      expect(await accounts.listPendingByEmail('race@example.com')).toEqual([]);
      for (let i = 1; i <= n; i++) if (i !== owner.id) expect(await accounts.findById(i)).toBeNull();
    });

    it('update refuses to make a second verified account of one e-mail', async () => {
      const { accounts } = subject();
      await accounts.create(anAccount({ id: 1, verified: true }));
      await accounts.create(anAccount({ id: 2 }));
      await expect(accounts.update(anAccount({ id: 2, verified: true, version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect((await accounts.findById(2))!.verified).toBe(false);
    });

    it('stores the TOTP two-factor state and clears it (issue #26 item 3)', async () => {
      const { accounts } = subject();
      await accounts.create(anAccount({ verified: true }));
      const twoFactor = {
        secret: { keyId: 'k1', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' }, enabledAt: T0 + MINUTE, lastUsedStep: 58_000_000,
        recoveryCodeHashes: ['c1'.repeat(32), 'c2'.repeat(32)], stepUp: { sessionHash: 'a1'.repeat(32), proofHash: 'b1'.repeat(32), at: T0 + MINUTE, scope: 'POST /api/api-tokens' },
        failedCodes: 3, lockedAt: T0 + 2 * MINUTE,
      };
      await accounts.update(anAccount({ verified: true, twoFactor, version: 2 }));
      expect((await accounts.findById(1))!.twoFactor).toEqual(twoFactor);
      expect((await accounts.findByEmail('alice@example.com'))!.twoFactor).toEqual(twoFactor);
      await accounts.update(anAccount({ verified: true, twoFactor: { ...twoFactor, stepUp: null, recoveryCodeHashes: [] }, version: 3 }));
      expect((await accounts.findById(1))!.twoFactor).toEqual({ ...twoFactor, stepUp: null, recoveryCodeHashes: [] });
      await accounts.update(anAccount({ verified: true, twoFactor: null, version: 4 }));
      expect((await accounts.findById(1))!.twoFactor ?? null).toBeNull();
    });

    it('update replaces when the version follows the stored one', async () => {
      const { accounts } = subject();
      await accounts.create(anAccount());
      const verified = anAccount({ verified: true, verificationCodeHash: null, version: 2 });
      await accounts.update(verified);
      expect(await accounts.findById(1)).toEqual(verified);
    });

    it('update with a stale or skipped version, or of an unknown account, throws ConcurrencyConflict', async () => {
      const { accounts } = subject();
      await accounts.create(anAccount());
      await accounts.update(anAccount({ verified: true, version: 2 }));
      await expect(accounts.update(anAccount({ verificationAttempts: 3, version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(accounts.update(anAccount({ version: 4 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(accounts.update(anAccount({ id: 9, email: 'x@example.com', version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect((await accounts.findById(1))!.verified).toBe(true);
    });

    it('of concurrent updates from the same version exactly one wins', async () => {
      const { accounts } = subject();
      await accounts.create(anAccount());
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) =>
        accounts.update(anAccount({ verificationAttempts: i + 1, version: 2 }))));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 'rejected').every((o) => (o as PromiseRejectedResult).reason instanceof ConcurrencyConflict)).toBe(true);
    });

    it('returns copies: changing a returned or inserted object does not change the stored one', async () => {
      const { accounts } = subject();
      const inserted = { ...anAccount() };
      await accounts.create(inserted);
      (inserted as { verified: boolean }).verified = true;
      const found = (await accounts.findById(1))!;
      expect(found.verified).toBe(false);
      try { (found as { verified: boolean }).verified = true; } catch { /* a frozen copy is fine too */ }
      expect((await accounts.findById(1))!.verified).toBe(false);
    });

    it('stores a pending password reset and clears it (issue #14)', async () => {
      const { accounts } = subject();
      await accounts.create(anAccount({ verified: true }));
      const pending = anAccount({ verified: true, passwordReset: { codeHash: 'cd'.repeat(32), expiresAt: T0 + 30 * MINUTE, attempts: 2 }, version: 2 });
      await accounts.update(pending);
      expect(await accounts.findByEmail('alice@example.com')).toEqual(pending);
      await accounts.update(anAccount({ verified: true, passwordReset: null, version: 3 }));
      expect((await accounts.findById(1))!.passwordReset).toBeNull();
    });

    it('deleteUnverifiedCreatedBefore deletes only unverified accounts created strictly before', async () => {
      const { accounts } = subject();
      await accounts.create(anAccount({ id: 1, email: 'old@example.com', createdAt: T0 }));
      await accounts.create(anAccount({ id: 2, email: 'edge@example.com', createdAt: T0 + MINUTE }));
      await accounts.create(anAccount({ id: 3, email: 'verified@example.com', createdAt: T0, verified: true }));
      await accounts.create(anAccount({ id: 4, email: 'new@example.com', createdAt: T0 + 2 * MINUTE }));
      expect(await accounts.deleteUnverifiedCreatedBefore(T0 + MINUTE)).toBe(1);
      expect(await accounts.findById(1)).toBeNull();
      expect(await accounts.findByEmail('old@example.com')).toBeNull();
      expect((await accounts.findById(2))!.email).toBe('edge@example.com');
      expect((await accounts.findById(3))!.verified).toBe(true);
      expect(await accounts.findById(4)).not.toBeNull();
      expect(await accounts.create(anAccount({ id: 5, email: 'OLD@example.com' }))).toBe(true);
      expect(await accounts.deleteUnverifiedCreatedBefore(T0)).toBe(0);
    });

    it('an account verified before the expiry runs is kept; an update of a deleted one is a ConcurrencyConflict', async () => {
      const { accounts } = subject();
      await accounts.create(anAccount({ id: 1, email: 'a@example.com' }));
      await accounts.create(anAccount({ id: 2, email: 'b@example.com' }));
      await accounts.update(anAccount({ id: 1, email: 'a@example.com', verified: true, version: 2 }));
      expect(await accounts.deleteUnverifiedCreatedBefore(T0 + MINUTE)).toBe(1);
      expect((await accounts.findById(1))!.verified).toBe(true);
      await expect(accounts.update(anAccount({ id: 2, email: 'b@example.com', verified: true, version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
    });

    options.extraTestsFn?.(makeSubject);
  });
}
