import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../core/domain/errors.js';
import type { AccountRepository } from '../core/ports/account-repository.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { anAccount } from './support/fixtures.js';

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

    options.extraTestsFn?.(makeSubject);
  });
}
