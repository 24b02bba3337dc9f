import { randomBytes } from 'node:crypto';
import { generateIdentity, identityToRecipient } from 'age-encryption';
import { utils } from 'tronweb';
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../adapters/memory/memory-store.js';
import { AesGcmKeyCipher } from '../../adapters/node/index.js';
import { ADDRESS_STATUS, ADDRESS_TYPE, type WalletAddress } from '../../core/domain/model/wallet.js';
import { exportKeys, importKeys, KeyBackupError, tronAddressOf } from './key-backup.js';
import { MemoryWalletKeys } from './wallet-key-stores.js';

const kek = (): AesGcmKeyCipher => AesGcmKeyCipher.fromConfig(randomBytes(32).toString('base64'));

/** A store holding `count` wallets of user 1 (the first the main address), keys under `cipher`. */
async function storeWith(cipher: AesGcmKeyCipher, count: number): Promise<{ keys: MemoryWalletKeys; privateKeys: string[] }> {
  const keys = new MemoryWalletKeys(new MemoryStore());
  const privateKeys: string[] = [];
  for (let id = 1; id <= count; id += 1) {
    const account = utils.accounts.generateAccount();
    const privateKey = account.privateKey.toLowerCase();
    privateKeys.push(privateKey);
    const wallet: WalletAddress = {
      id, userId: 1, networkCode: 'TRON', address: account.address.base58, addressType: id === 1 ? ADDRESS_TYPE.MAIN : ADDRESS_TYPE.SUB,
      label: null, status: ADDRESS_STATUS.ACTIVE, createdAt: 1_700_000_000_000 + id, version: 1,
      encryptedKey: await cipher.encrypt(new TextEncoder().encode(privateKey), account.address.base58),
    };
    expect(await keys.insert(wallet)).toBe(true);
  }
  return { keys, privateKeys };
}

describe('key backup (issue #26 item 4)', () => {
  let identity: string;
  let recipient: string;
  beforeAll(async () => {
    identity = await generateIdentity();
    recipient = await identityToRecipient(identity);
  });

  it('tronweb derives the address of a key and refuses what is not one', () => {
    const account = utils.accounts.generateAccount();
    expect(tronAddressOf(account.privateKey)).toBe(account.address.base58);
    expect(tronAddressOf('zz'.repeat(32))).toBeNull();
    expect(tronAddressOf('')).toBeNull();
  });

  it('the database kept, its KEK lost: an import wraps every key again under the new KEK, then changes nothing', async () => {
    const oldKek = kek();
    const { keys, privateKeys } = await storeWith(oldKek, 3);
    const { armored, report } = await exportKeys(keys, oldKek, [recipient], new Date(0));
    expect(report).toEqual({ keys: 3 });
    for (const key of privateKeys) expect(armored.toLowerCase()).not.toContain(key);
    const newKek = kek();
    expect(await importKeys(keys, newKek, armored, identity)).toEqual({ restored: 0, unchanged: 0, rewrapped: 3, conflicts: [] });
    expect(await importKeys(keys, newKek, armored, identity)).toEqual({ restored: 0, unchanged: 3, rewrapped: 0, conflicts: [] });
    for (const [i, wallet] of (await keys.list(0, 10)).entries()) {
      expect(new TextDecoder().decode(await newKek.decrypt(wallet.encryptedKey, wallet.address))).toBe(privateKeys[i]);
    }
  });

  it('another key stored for an address, or the address held by another wallet, is a conflict and never overwritten', async () => {
    const cipher = kek();
    const { keys } = await storeWith(cipher, 2);
    const { armored } = await exportKeys(keys, cipher, [recipient], new Date(0));
    const other = await storeWith(cipher, 0);
    const [first, second] = await keys.list(0, 10);
    // The same addresses, stored with other keys (a wrong restore target) or under other wallet ids.
    const foreignKey = utils.accounts.generateAccount().privateKey.toLowerCase();
    await other.keys.insert({ ...first!, encryptedKey: await cipher.encrypt(new TextEncoder().encode(foreignKey), first!.address) });
    await other.keys.insert({ ...second!, id: 40 });
    const report = await importKeys(other.keys, cipher, armored, identity);
    expect(report).toEqual({
      restored: 0, unchanged: 0, rewrapped: 0,
      conflicts: [
        { address: first!.address, reason: 'the store holds another key for this address' },
        { address: second!.address, reason: 'stored as wallet 40 of user 1, the backup says wallet 2 of user 1' },
      ],
    });
    expect(JSON.stringify(report)).not.toContain(foreignKey);
  });

  it('an export refuses a store key that does not open or does not derive its address, and needs a recipient', async () => {
    const cipher = kek();
    const { keys } = await storeWith(cipher, 2);
    await expect(exportKeys(keys, kek(), [recipient], new Date(0))).rejects.toThrow(/does not open with the configured KEK/);
    await expect(exportKeys(keys, cipher, [], new Date(0))).rejects.toBeInstanceOf(KeyBackupError);
    await expect(exportKeys(keys, cipher, ['AGE-SECRET-KEY-1XYZ'], new Date(0))).rejects.toThrow(/not an age recipient/);
    const [first] = await keys.list(0, 1);
    const swapped = utils.accounts.generateAccount().privateKey.toLowerCase();
    await keys.replaceKey(first!.id, first!.encryptedKey, await cipher.encrypt(new TextEncoder().encode(swapped), first!.address));
    await expect(exportKeys(keys, cipher, [recipient], new Date(0))).rejects.toThrow(`the stored key of ${first!.address} does not derive its address`);
  });

  it('a file that is not an age backup, or an identity file without an identity, fails clearly', async () => {
    const cipher = kek();
    const { keys } = await storeWith(cipher, 1);
    await expect(importKeys(keys, cipher, 'hello', identity)).rejects.toThrow(/not an age file in ASCII armor/);
    const { armored } = await exportKeys(keys, cipher, [recipient], new Date(0));
    await expect(importKeys(keys, cipher, armored, '# only a comment\n')).rejects.toThrow(/holds no age identity/);
    await expect(importKeys(keys, cipher, armored, await generateIdentity())).rejects.toThrow(/does not open this backup/);
  });
});
