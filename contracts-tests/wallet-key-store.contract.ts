import { describe, expect, it } from 'vitest';
import { aWallet, addressOf } from './support/fixtures.js';
import { type Closable, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import type { IdGenerator } from '../core/ports/id-generator.port.js';
import type { WalletKeyStore } from '../core/ports/wallet-key-store.port.js';

/** What the suite needs: an empty store. */
export interface WalletKeyStoreSubject extends Closable {
  readonly walletKeys: WalletKeyStore;
  /** The same store's id generator: a restore must leave its wallet sequence past the restored ids. */
  readonly ids: IdGenerator;
}

const OTHER_ENVELOPE = { keyId: 'k2', iv: 'aXYyaXYyaXYy', ciphertext: 'b3RoZXI=', tag: 'dGFndGFndGFndGFn' };

/**
 * The WalletKeyStore contract (core/ports/wallet-key-store.port.ts; keys:export and keys:import): pages of every
 * user's wallets by id, a restored record written with its id under the store's own rules, the wallet sequence moved
 * past it, and the key's compare-and-set.
 */
export function describeWalletKeyStoreContract(name: string, makeSubject: MakeSubject<WalletKeyStoreSubject>): void {
  describe(`WalletKeyStore contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('lists every user\'s wallets by id, in pages after an id', async () => {
      const { walletKeys } = subject();
      for (const [id, userId] of [[3, 1], [1, 2], [2, 1], [5, 9]] as const) {
        expect(await walletKeys.insert(aWallet({ id, userId, addressType: id === 1 ? 1 : 2 }))).toBe(true);
      }
      expect((await walletKeys.list(0, 3)).map((w) => w.id)).toEqual([1, 2, 3]);
      expect((await walletKeys.list(3, 3)).map((w) => w.id)).toEqual([5]);
      expect(await walletKeys.list(5, 3)).toEqual([]);
      expect(await walletKeys.list(0, 10)).toContainEqual(aWallet({ id: 5, userId: 9 }));
    });

    it('insert keeps the given id and record; a taken address, a taken id or a second main address writes nothing', async () => {
      const { walletKeys } = subject();
      const main = aWallet({ id: 7, userId: 4, addressType: 1, label: 'treasury' });
      expect(await walletKeys.insert(main)).toBe(true);
      expect(await walletKeys.findByAddress(main.address)).toEqual(main);
      expect(await walletKeys.insert(aWallet({ id: 8, userId: 5, address: main.address }))).toBe(false);
      expect(await walletKeys.insert(aWallet({ id: 7, userId: 4, address: addressOf(70) }))).toBe(false);
      expect(await walletKeys.insert(aWallet({ id: 9, userId: 4, addressType: 1, address: addressOf(90) }))).toBe(false);
      expect((await walletKeys.list(0, 10)).map((w) => w.id)).toEqual([7]);
      expect(await walletKeys.findByAddress(addressOf(90))).toBeNull();
    });

    it('a restored id moves the store\'s wallet sequence past it, never back', async () => {
      const { walletKeys, ids } = subject();
      expect(await walletKeys.insert(aWallet({ id: 41 }))).toBe(true);
      expect(await walletKeys.insert(aWallet({ id: 12, address: addressOf(12) }))).toBe(true);
      expect(await ids.nextInt('wallet_address')).toBe(42);
      expect(await ids.nextInt('user')).toBe(1);
    });

    it('replaceKey is a compare-and-set on the envelope and bumps the version', async () => {
      const { walletKeys } = subject();
      const wallet = aWallet({ id: 2 });
      await walletKeys.insert(wallet);
      expect(await walletKeys.replaceKey(2, OTHER_ENVELOPE, wallet.encryptedKey)).toBe(false);
      expect(await walletKeys.replaceKey(2, wallet.encryptedKey, OTHER_ENVELOPE)).toBe(true);
      expect(await walletKeys.findByAddress(wallet.address)).toEqual({ ...wallet, encryptedKey: OTHER_ENVELOPE, version: 2 });
      expect(await walletKeys.replaceKey(2, wallet.encryptedKey, wallet.encryptedKey)).toBe(false);
      expect(await walletKeys.replaceKey(99, wallet.encryptedKey, OTHER_ENVELOPE)).toBe(false);
    });
  });
}
