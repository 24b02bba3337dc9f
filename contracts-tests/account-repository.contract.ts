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

    it('creates and finds by id and by email, case-insensitively', async () => {
      const { accounts } = subject();
      const account = anAccount({ email: 'Alice@Example.com' });
      expect(await accounts.create(account)).toBe(true);
      expect(await accounts.findById(1)).toEqual(account);
      expect(await accounts.findByEmail('alice@EXAMPLE.com')).toEqual(account);
      expect(await accounts.findById(2)).toBeNull();
      expect(await accounts.findByEmail('bob@example.com')).toBeNull();
    });

    it('refuses a taken email regardless of case and writes nothing', async () => {
      const { accounts } = subject();
      await accounts.create(anAccount({ id: 1, email: 'alice@example.com' }));
      expect(await accounts.create(anAccount({ id: 2, email: 'ALICE@example.com' }))).toBe(false);
      expect(await accounts.findById(2)).toBeNull();
      expect((await accounts.findByEmail('alice@example.com'))!.id).toBe(1);
    });

    it('of concurrent creates with one email exactly one succeeds', async () => {
      const { accounts } = subject();
      const results = await Promise.all(Array.from({ length: concurrency }, (_, i) =>
        accounts.create(anAccount({ id: i + 1, email: i % 2 === 0 ? 'race@example.com' : 'RACE@example.com' }))));
      expect(results.filter(Boolean)).toHaveLength(1);
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

    it('deleteUnverifiedCreatedBefore deletes only unverified accounts created strictly before, and frees their e-mail', async () => {
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
