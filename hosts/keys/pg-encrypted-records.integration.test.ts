import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { AesGcmKeyCipher } from '../../adapters/node/index.js';
import { ManualClock } from '../../adapters/memory/index.js';
import { createPostgresAdapters, PgEncryptedRecords, type PostgresAdapters } from '../../adapters/postgres/index.js';
import { openPgTestStore, type PgTestStore } from '../../adapters/postgres/testing/pg-test-store.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { anAccount, aWallet } from '../../contracts-tests/support/fixtures.js';
import { rotateKeys, type EncryptedRecordStore } from './key-rotation.js';

const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('base64');
const before = AesGcmKeyCipher.fromConfig(`k1:${OLD}`);
const during = (): AesGcmKeyCipher => AesGcmKeyCipher.fromConfig(`k2:${NEW},k1:${OLD}`);
const retired = AesGcmKeyCipher.fromConfig(`k2:${NEW}`);
const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

// keys:rotate over a real PostgreSQL: the secrets are written by the store's own repositories, so the rotation meets
// exactly the rows the service writes, and the repositories read the rotated envelopes back.
describeWithPostgres('PgEncryptedRecords (keys:rotate on PostgreSQL)', (serverUrl) => {
  let store: PgTestStore | undefined;
  let stores: PostgresAdapters;
  beforeAll(async () => {
    store = await openPgTestStore(serverUrl, 'key_rotation');
    stores = createPostgresAdapters({ connection: store.connection, clock: new ManualClock() });
  });
  afterAll(async () => {
    await store?.drop();
  });

  it('re-wraps wallet keys and webhook secrets under the newest KEK across a crash, and a re-run changes nothing', async () => {
    const plain = new Map<string, string>();
    for (let id = 1; id <= 5; id++) {
      const wallet = aWallet({ id, addressType: 2 });
      const secret = randomBytes(32).toString('hex');
      plain.set(`wallet-key:${id}`, secret);
      expect(await stores.wallets.insert({ ...wallet, encryptedKey: await before.encrypt(encode(secret), wallet.address) }, { maxSubAddresses: -1 })).toBe('created');
    }
    for (let userId = 1; userId <= 4; userId++) {
      const secret = `whsec-${userId}`;
      if (userId <= 3) plain.set(`webhook-secret:${userId}`, secret);
      await stores.developerConfigs.save({
        userId, url: null, pendingUrl: null, pendingSince: null, verifiedAt: null, reviewNote: null, previousSecret: null, minCollectAmounts: {},
        secret: userId <= 3 ? await before.encrypt(encode(secret), `webhook-secret:${userId}`) : null, version: 1,
      });
    }
    // Two accounts with a TOTP secret (issue #26), one without two-factor.
    for (let userId = 1; userId <= 3; userId++) {
      const account = anAccount({ id: userId, email: `u${userId}@example.com`, verified: true });
      await stores.accounts.create(account);
      if (userId === 3) continue;
      const secret = `totp-${userId}`;
      plain.set(`totp-secret:${userId}`, secret);
      const twoFactor = { secret: await before.encrypt(encode(secret), `totp:${userId}`), enabledAt: 1, lastUsedStep: 7, recoveryCodeHashes: ['ab'.repeat(32)], stepUp: null };
      await stores.accounts.update({ ...account, twoFactor, version: 2 });
    }
    const records = new PgEncryptedRecords(store!.connection.pool);
    let writes = 0;
    const crashing: EncryptedRecordStore = {
      list: (after, limit) => records.list(after, limit),
      async replace(record, next) {
        if (++writes === 4) throw new Error('crash');
        return records.replace(record, next);
      },
    };
    await expect(rotateKeys(crashing, during(), { batch: 2 })).rejects.toThrow('crash');
    expect(await rotateKeys(records, during(), { batch: 2 })).toEqual({ rewrapped: 7, current: 3, raced: 0, unreadable: [] });
    expect(await rotateKeys(records, during(), { batch: 2 })).toEqual({ rewrapped: 0, current: 10, raced: 0, unreadable: [] });
    const all = await records.list(null, 100);
    expect(all).toHaveLength(10);
    for (const r of all) {
      expect(r.envelope.keyId).toBe('k2');
      expect(new TextDecoder().decode(await retired.decrypt(r.envelope, r.aad))).toBe(plain.get(`${r.kind}:${r.id}`));
    }
    // The repositories read the rotated envelopes.
    const wallet = (await stores.wallets.findById(3))!;
    expect(new TextDecoder().decode(await retired.decrypt(wallet.encryptedKey, wallet.address))).toBe(plain.get('wallet-key:3'));
    const config = (await stores.developerConfigs.get(2))!;
    expect(new TextDecoder().decode(await retired.decrypt(config.secret!, 'webhook-secret:2'))).toBe('whsec-2');
    const account = (await stores.accounts.findById(2))!;
    expect(new TextDecoder().decode(await retired.decrypt(account.twoFactor!.secret, 'totp:2'))).toBe('totp-2');
    expect(account.twoFactor).toMatchObject({ enabledAt: 1, lastUsedStep: 7, recoveryCodeHashes: ['ab'.repeat(32)] });
    // Compare-and-set: a stale envelope is not written over a newer one.
    const [first] = all;
    expect(await records.replace({ ...first!, envelope: { ...first!.envelope, iv: 'stale' } }, first!.envelope)).toBe(false);
  }, 60_000);

  it('a configuration save that read the row before the re-wrap fails its version check instead of writing the old envelope back', async () => {
    await store!.clear();
    const userId = 9;
    await stores.developerConfigs.save({
      userId, url: null, pendingUrl: null, pendingSince: null, verifiedAt: null, reviewNote: null, previousSecret: null, minCollectAmounts: {},
      secret: await before.encrypt(encode('whsec-9'), `webhook-secret:${userId}`), version: 1,
    });
    const stale = (await stores.developerConfigs.get(userId))!;
    expect(await rotateKeys(new PgEncryptedRecords(store!.connection.pool), during())).toMatchObject({ rewrapped: 1, raced: 0 });
    await expect(stores.developerConfigs.save({ ...stale, reviewNote: 'edited meanwhile', version: stale.version + 1 })).rejects.toBeInstanceOf(ConcurrencyConflict);
    expect((await stores.developerConfigs.get(userId))!.secret!.keyId).toBe('k2');
  });
});
