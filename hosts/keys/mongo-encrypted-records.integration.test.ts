import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MONGO_SKIP_MESSAGE, openTestDatabase, provisionMongo, type MongoTestDatabase } from '../../contracts-tests/harness/mongodb.js';
import { COLLECTIONS, MongoEncryptedRecords } from '../../adapters/mongodb/index.js';
import { AesGcmKeyCipher } from '../../adapters/node/index.js';
import { rotateKeys, type EncryptedRecordStore } from './key-rotation.js';

// keys:rotate over a real MongoDB (MONGODB_URL, else a mongo:7 container); skipped loudly without one. The documents
// carry only the fields the rotation reads and writes (the repositories' mappers own the rest).
const target = await provisionMongo();
const unavailable = target.kind === 'unavailable';
if (target.kind === 'unavailable') console.warn(`${MONGO_SKIP_MESSAGE} (${target.reason})`);

const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('base64');
const before = AesGcmKeyCipher.fromConfig(`k1:${OLD}`);
const during = (): AesGcmKeyCipher => AesGcmKeyCipher.fromConfig(`k2:${NEW},k1:${OLD}`);
const retired = AesGcmKeyCipher.fromConfig(`k2:${NEW}`);

describe.skipIf(unavailable)('MongoEncryptedRecords (keys:rotate on MongoDB)', () => {
  let database: MongoTestDatabase | undefined;
  beforeAll(async () => {
    if (target.kind !== 'unavailable') database = await openTestDatabase(target.url, 'key_rotation');
  });
  afterAll(async () => {
    await database?.drop();
    if (target.kind !== 'unavailable') await target.stop();
  });

  it('re-wraps wallet keys and webhook secrets under the newest KEK across a crash, and a re-run changes nothing', async () => {
    const db = database!.connection.db;
    const plain = new Map<string, string>();
    for (let id = 1; id <= 5; id++) {
      const address = `TAddr${id}`;
      const secret = randomBytes(32).toString('hex');
      plain.set(`wallet-key:${id}`, secret);
      await db.collection(COLLECTIONS.wallets).insertOne({ _id: id as never, address, encryptedKey: await before.encrypt(new TextEncoder().encode(secret), address) });
    }
    for (let id = 1; id <= 3; id++) {
      const secret = `whsec-${id}`;
      plain.set(`webhook-secret:${id}`, secret);
      await db.collection(COLLECTIONS.developerConfigs).insertOne({ _id: id as never, secret: await before.encrypt(new TextEncoder().encode(secret), `webhook-secret:${id}`) });
    }
    await db.collection(COLLECTIONS.developerConfigs).insertOne({ _id: 4 as never, secret: null });
    const store = new MongoEncryptedRecords(db);
    let writes = 0;
    const crashing: EncryptedRecordStore = {
      list: (after, limit) => store.list(after, limit),
      async replace(record, next) {
        if (++writes === 4) throw new Error('crash');
        return store.replace(record, next);
      },
    };
    await expect(rotateKeys(crashing, during(), { batch: 2 })).rejects.toThrow('crash');
    expect(await rotateKeys(store, during(), { batch: 2 })).toEqual({ rewrapped: 5, current: 3, raced: 0, unreadable: [] });
    expect(await rotateKeys(store, during(), { batch: 2 })).toEqual({ rewrapped: 0, current: 8, raced: 0, unreadable: [] });
    const all = await store.list(null, 100);
    expect(all).toHaveLength(8);
    for (const r of all) {
      expect(r.envelope.keyId).toBe('k2');
      expect(new TextDecoder().decode(await retired.decrypt(r.envelope, r.aad))).toBe(plain.get(`${r.kind}:${r.id}`));
    }
    // Compare-and-set: a stale envelope is not written over a newer one.
    const [first] = all;
    expect(await store.replace({ ...first!, envelope: { ...first!.envelope, iv: 'stale' } }, first!.envelope)).toBe(false);
  }, 60_000);
});
