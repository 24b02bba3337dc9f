import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { armor, Encrypter, generateIdentity, identityToRecipient } from 'age-encryption';
import { utils } from 'tronweb';
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore, MemoryWalletKeys } from '../../adapters/memory/index.js';
import { AesGcmKeyCipher } from '../../adapters/node/index.js';
import { ADDRESS_STATUS, ADDRESS_TYPE, type WalletAddress } from '../../core/domain/model/wallet.js';
import { keyIdOf, signBackup, signingKeyFrom, verifyKeyFrom } from './backup-signature.js';
import { exportKeys, KeyBackupError, tronAddressOf } from './key-backup.js';
import { applyImport, planImport, planView, type ImportOptions } from './key-import.js';

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

/** The operator's backup signing pair (Ed25519): keys:export signs with the private half, keys:import verifies with the public. */
const signingPair = () => generateKeyPairSync('ed25519');
const SIGNING = signingPair();

/** A plan, then its application: what `keys:import --apply` does. */
async function importKeys(
  keys: MemoryWalletKeys, cipher: AesGcmKeyCipher, signed: string, identity: string, options: ImportOptions = { restoreEmptyStore: false },
) {
  return applyImport(keys, cipher, await planImport(keys, cipher, signed, identity, SIGNING.publicKey, options));
}

describe('key backup (issue #26 item 4, issue #35 item 6)', () => {
  let identity: string;
  let recipient: string;
  beforeAll(async () => {
    identity = await generateIdentity();
    recipient = await identityToRecipient(identity);
  });
  const exported = (keys: MemoryWalletKeys, cipher: AesGcmKeyCipher) => exportKeys(keys, cipher, [recipient], new Date(0), SIGNING.privateKey);

  it('tronweb derives the address of a key and refuses what is not one', () => {
    const account = utils.accounts.generateAccount();
    expect(tronAddressOf(account.privateKey)).toBe(account.address.base58);
    expect(tronAddressOf('zz'.repeat(32))).toBeNull();
    expect(tronAddressOf('')).toBeNull();
  });

  it('the database kept, its KEK lost: an import wraps every key again under the new KEK, then changes nothing', async () => {
    const oldKek = kek();
    const { keys, privateKeys } = await storeWith(oldKek, 3);
    const { armored, report } = await exported(keys, oldKek);
    expect(report).toEqual({ keys: 3 });
    for (const key of privateKeys) expect(armored.toLowerCase()).not.toContain(key);
    const newKek = kek();
    // The dry run shows the diff and writes nothing.
    const plan = await planImport(keys, newKek, armored, identity, SIGNING.publicKey, { restoreEmptyStore: false });
    const wallets = await keys.list(0, 10);
    expect(planView(plan, false)).toEqual({ dry_run: true, restore: [], rewrap: wallets.map((w) => w.address), unchanged: 0, refused: [] });
    expect(JSON.stringify(planView(plan, false))).not.toMatch(/[0-9a-f]{64}/);
    expect(await keys.list(0, 10)).toEqual(wallets);
    expect(await importKeys(keys, newKek, armored, identity)).toEqual({ restored: 0, unchanged: 0, rewrapped: 3, conflicts: [] });
    expect(await importKeys(keys, newKek, armored, identity)).toEqual({ restored: 0, unchanged: 3, rewrapped: 0, conflicts: [] });
    for (const [i, wallet] of (await keys.list(0, 10)).entries()) {
      expect(new TextDecoder().decode(await newKek.decrypt(wallet.encryptedKey, wallet.address))).toBe(privateKeys[i]);
    }
  });

  it('another key stored for an address, or the address held by another wallet, is refused and never overwritten', async () => {
    const cipher = kek();
    const { keys } = await storeWith(cipher, 2);
    const { armored } = await exported(keys, cipher);
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

  it('a signed backup of an address the store does not know restores nothing, unless a whole empty store is restored', async () => {
    const cipher = kek();
    const { keys } = await storeWith(cipher, 2);
    const { armored } = await exported(keys, cipher);
    const [first] = await keys.list(0, 1);
    // A store that knows the first wallet only.
    const partial = await storeWith(cipher, 0);
    await partial.keys.insert(first!);
    const report = await importKeys(partial.keys, cipher, armored, identity);
    expect(report.unchanged).toBe(1);
    expect(report.restored).toBe(0);
    expect(report.conflicts).toHaveLength(1);
    expect(report.conflicts[0]!.reason).toMatch(/^the store holds no wallet at this address .* only into an empty store \(--restore-empty-store\)$/);
    expect(await partial.keys.list(0, 10)).toHaveLength(1);
    // The whole-store restore is refused into a store that holds a wallet, and restores everything into an empty one.
    await expect(importKeys(partial.keys, cipher, armored, identity, { restoreEmptyStore: true })).rejects.toThrow(/holds no wallet, and this one holds some/);
    const empty = await storeWith(cipher, 0);
    expect(await importKeys(empty.keys, cipher, armored, identity, { restoreEmptyStore: true })).toEqual({ restored: 2, unchanged: 0, rewrapped: 0, conflicts: [] });
    expect((await empty.keys.list(0, 10)).map((w) => w.address)).toEqual((await keys.list(0, 10)).map((w) => w.address));
  });

  it('a forged backup (encrypted to the public recipient) is refused: unsigned, signed by another key, or changed after signing', async () => {
    const cipher = kek();
    const { keys } = await storeWith(cipher, 1);
    const thief = utils.accounts.generateAccount();
    const encrypter = new Encrypter();
    encrypter.addRecipient(recipient);
    const forgedAge = armor.encode(await encrypter.encrypt(JSON.stringify({
      format: 'custody-hub-key-backup', version: 1, exported_at: '2026-01-01T00:00:00.000Z',
      keys: [{ address: thief.address.base58, private_key: thief.privateKey.toLowerCase(), wallet: { id: 9, user_id: 1, network_code: 'TRON', address_type: 2, label: null, status: 1, created_at: 1 } }],
    })));
    const empty = await storeWith(cipher, 0);
    for (const options of [{ restoreEmptyStore: false }, { restoreEmptyStore: true }]) {
      await expect(importKeys(empty.keys, cipher, forgedAge, identity, options)).rejects.toThrow(/^the backup is not signed/);
      const otherKey = signingPair();
      await expect(importKeys(empty.keys, cipher, signBackup(forgedAge, otherKey.privateKey), identity, options))
        .rejects.toThrow(`the backup names signing key ${keyIdOf(otherKey.publicKey)}, and its signature does not verify with the configured verify key ${keyIdOf(SIGNING.publicKey)}`);
    }
    // A genuine backup whose age part was swapped for the forged one keeps its signature block, which no longer verifies.
    const { armored } = await exported(keys, cipher);
    const block = armored.slice(armored.indexOf('-----BEGIN CUSTODY HUB BACKUP SIGNATURE-----'));
    await expect(importKeys(empty.keys, cipher, `${forgedAge.trimEnd()}\n${block}`, identity, { restoreEmptyStore: true })).rejects.toThrow(/was changed after it was signed, or forged/);
    await expect(importKeys(empty.keys, cipher, armored.replace(/key [0-9a-f]{16}/, 'key 0000'), identity)).rejects.toThrow(/signature block is malformed/);
    expect(await empty.keys.list(0, 10)).toEqual([]);
    // The genuine file restores.
    expect((await importKeys(empty.keys, cipher, armored, identity, { restoreEmptyStore: true })).restored).toBe(1);
  });

  it('signing and verify keys: Ed25519 PEM only, and a private key is never taken as the verify key', () => {
    const pem = SIGNING.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(keyIdOf(signingKeyFrom(pem))).toBe(keyIdOf(SIGNING.publicKey));
    expect(() => verifyKeyFrom(pem)).toThrow(/is a private key/);
    expect(() => signingKeyFrom('not a key')).toThrow(KeyBackupError);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(() => signingKeyFrom(rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string)).toThrow(/not an Ed25519 key/);
    expect(() => verifyKeyFrom(rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string)).toThrow(/not an Ed25519 key/);
    try { signingKeyFrom(`${pem.slice(0, 60)}garbage`); } catch (e) { expect((e as Error).message).not.toContain(pem.slice(30, 60)); }
  });

  it('an export refuses a store key that does not open or does not derive its address, and needs a recipient', async () => {
    const cipher = kek();
    const { keys } = await storeWith(cipher, 2);
    await expect(exportKeys(keys, kek(), [recipient], new Date(0), SIGNING.privateKey)).rejects.toThrow(/does not open with the configured KEK/);
    await expect(exportKeys(keys, cipher, [], new Date(0), SIGNING.privateKey)).rejects.toBeInstanceOf(KeyBackupError);
    await expect(exportKeys(keys, cipher, ['AGE-SECRET-KEY-1XYZ'], new Date(0), SIGNING.privateKey)).rejects.toThrow(/not an age recipient/);
    const [first] = await keys.list(0, 1);
    const swapped = utils.accounts.generateAccount().privateKey.toLowerCase();
    await keys.replaceKey(first!.id, first!.encryptedKey, await cipher.encrypt(new TextEncoder().encode(swapped), first!.address));
    await expect(exported(keys, cipher)).rejects.toThrow(`the stored key of ${first!.address} does not derive its address`);
  });

  it('a file that is not a signed age backup, or an identity file without an identity, fails clearly', async () => {
    const cipher = kek();
    const { keys } = await storeWith(cipher, 1);
    await expect(importKeys(keys, cipher, 'hello', identity)).rejects.toThrow(/not signed/);
    await expect(importKeys(keys, cipher, signBackup('hello', SIGNING.privateKey), identity)).rejects.toThrow(/not signed/);
    const { armored } = await exported(keys, cipher);
    await expect(importKeys(keys, cipher, armored, '# only a comment\n')).rejects.toThrow(/holds no age identity/);
    await expect(importKeys(keys, cipher, armored, await generateIdentity())).rejects.toThrow(/does not open this backup/);
  });
});
