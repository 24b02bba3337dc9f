import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../core/domain/errors.js';
import type { EncryptedEnvelope } from '../core/domain/model/common.js';
import type { AccountRepository } from '../core/ports/account-repository.port.js';
import type { DeveloperConfigRepository } from '../core/ports/developer-config-repository.port.js';
import type { EncryptedRecord, EncryptedRecordStore } from '../core/ports/encrypted-record-store.port.js';
import type { WalletRepository } from '../core/ports/wallet-repository.port.js';
import { type Closable, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { aDeveloperConfig, anAccount, aWallet } from './support/fixtures.js';

/**
 * What the suite drives: an empty store's records, and the same store's repositories, which write the secrets as the
 * service does and read the replaced envelopes back.
 */
export interface EncryptedRecordStoreSubject extends Closable {
  readonly records: EncryptedRecordStore;
  readonly wallets: WalletRepository;
  readonly developerConfigs: DeveloperConfigRepository;
  readonly accounts: AccountRepository;
}

const envelope = (keyId: string, n: number): EncryptedEnvelope => ({ keyId, iv: `aXY${n}`, ciphertext: `Y3Q${n}`, tag: `dGFn${n}` });

/**
 * Wallets 2 and 10 (numeric order differs from text order), webhook secrets of users 3 and 12 and a configuration
 * without one (user 4), TOTP secrets of accounts 5 and 11 and an account without two-factor (6).
 */
async function seed(s: EncryptedRecordStoreSubject): Promise<EncryptedRecord[]> {
  for (const id of [10, 2]) expect(await s.wallets.insert(aWallet({ id, encryptedKey: envelope('k1', id) }), { maxSubAddresses: -1 })).toBe('created');
  for (const userId of [12, 3]) await s.developerConfigs.save(aDeveloperConfig({ userId, secret: envelope('k1', 100 + userId) }));
  await s.developerConfigs.save(aDeveloperConfig({ userId: 4, secret: null }));
  for (const id of [11, 5, 6]) {
    const account = anAccount({ id, email: `u${id}@example.com`, verified: true });
    expect(await s.accounts.create(account)).toBe(true);
    if (id === 6) continue;
    const twoFactor = { secret: envelope('k1', 200 + id), enabledAt: 1, lastUsedStep: 7, recoveryCodeHashes: ['ab'.repeat(32)], stepUp: null };
    await s.accounts.update({ ...account, twoFactor, version: 2 });
  }
  const wallet = (id: number): EncryptedRecord => ({ kind: 'wallet-key', id: String(id), aad: aWallet({ id }).address, envelope: envelope('k1', id) });
  const config = (id: number): EncryptedRecord => ({ kind: 'webhook-secret', id: String(id), aad: `webhook-secret:${id}`, envelope: envelope('k1', 100 + id) });
  const totp = (id: number): EncryptedRecord => ({ kind: 'totp-secret', id: String(id), aad: `totp:${id}`, envelope: envelope('k1', 200 + id) });
  return [wallet(2), wallet(10), config(3), config(12), totp(5), totp(11)];
}

/**
 * The EncryptedRecordStore contract (core/ports/encrypted-record-store.port.ts; keys:rotate): every stored secret
 * listed in (kind, numeric id) order with the aad its owner binds it to, in pages that resume across kinds, and a
 * replace that is a compare-and-set the repositories read back, bumping the row's version.
 */
export function describeEncryptedRecordStoreContract(name: string, makeSubject: MakeSubject<EncryptedRecordStoreSubject>): void {
  describe(`EncryptedRecordStore contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('lists wallet keys, webhook secrets and TOTP secrets, each kind by numeric id; rows without a secret are not listed', async () => {
      const s = subject();
      const expected = await seed(s);
      expect(await s.records.list(null, 100)).toEqual(expected);
    });

    it('pages resume after their cursor, across kinds, and an empty page is the end', async () => {
      const s = subject();
      const expected = await seed(s);
      for (const size of [1, 2, 4]) {
        const seen: EncryptedRecord[] = [];
        for (let cursor = null as EncryptedRecord | null; ;) {
          const page = await s.records.list(cursor === null ? null : { kind: cursor.kind, id: cursor.id }, size);
          if (page.length === 0) break;
          expect(page.length).toBeLessThanOrEqual(size);
          seen.push(...page);
          cursor = page[page.length - 1]!;
        }
        expect(seen).toEqual(expected);
      }
    });

    it('replace is a compare-and-set on the envelope: the repositories read the new one, the version moved, other fields kept', async () => {
      const s = subject();
      const [wallet, , config, , totp] = await seed(s);
      const stale = { ...envelope('k1', 99) };
      for (const record of [wallet!, config!, totp!]) {
        expect(await s.records.replace({ ...record, envelope: stale }, envelope('k2', 1))).toBe(false);
        expect(await s.records.replace(record, envelope('k2', Number(record.id)))).toBe(true);
        // The same change redone: the record no longer holds the old envelope.
        expect(await s.records.replace(record, envelope('k3', 1))).toBe(false);
      }
      expect(await s.wallets.findById(2)).toEqual(aWallet({ id: 2, encryptedKey: envelope('k2', 2), version: 2 }));
      expect(await s.developerConfigs.get(3)).toEqual(aDeveloperConfig({ userId: 3, secret: envelope('k2', 3), version: 2 }));
      const account = await s.accounts.findById(5);
      expect(account?.twoFactor).toEqual({ secret: envelope('k2', 5), enabledAt: 1, lastUsedStep: 7, recoveryCodeHashes: ['ab'.repeat(32)], stepUp: null });
      expect(account?.version).toBe(3);
      const listed = await s.records.list(null, 100);
      expect(listed.filter((r) => r.envelope.keyId === 'k2').map((r) => `${r.kind}:${r.id}`)).toEqual(['wallet-key:2', 'webhook-secret:3', 'totp-secret:5']);
      expect(await s.records.replace({ kind: 'wallet-key', id: '77', aad: 'nobody', envelope: envelope('k1', 77) }, envelope('k2', 77))).toBe(false);
    });

    it('a save that read the row before the replace fails its version check instead of writing the old envelope back', async () => {
      const s = subject();
      const [, , config] = await seed(s);
      const read = (await s.developerConfigs.get(3))!;
      expect(await s.records.replace(config!, envelope('k2', 3))).toBe(true);
      await expect(s.developerConfigs.save({ ...read, reviewNote: 'edited meanwhile', version: read.version + 1 })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect((await s.developerConfigs.get(3))!.secret).toEqual(envelope('k2', 3));
    });
  });
}
