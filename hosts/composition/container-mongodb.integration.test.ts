import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, MongoAccountRepository, MongoIdempotencyStore, MongoWalletRepository } from '../../adapters/mongodb/index.js';
import { MongoScanCursorStore } from '../../adapters/mongodb/mongo-scan-cursor-store.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { MONGO_SKIP_MESSAGE, provisionMongo } from '../../contracts-tests/harness/mongodb.js';
import { startApiServer } from '../api/api-server.js';
import { loadConfig } from './config.js';
import { openComposition } from './container.js';
import { TOKENS } from './tokens.js';

// STORE=mongodb through openComposition against MONGODB_URL (else a mongo:7 container); skipped loudly without one.
const target = await provisionMongo();
if (target.kind === 'unavailable') console.warn(`${MONGO_SKIP_MESSAGE} (${target.reason})`);

describe.skipIf(target.kind === 'unavailable')('composition with STORE=mongodb', () => {
  const dbName = `test_composition_${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    if (target.kind === 'unavailable') return;
    const client = await MongoClient.connect(target.url);
    try {
      await client.db(dbName).dropDatabase();
    } finally {
      await client.close();
    }
    await target.stop();
  });

  it('opens the connection from MONGODB_URL/MONGODB_DB, binds the MongoDB adapters, and the API stores there', async () => {
    if (target.kind === 'unavailable') return;
    const config = loadConfig({ STORE: 'mongodb', MONGODB_URL: target.url, MONGODB_DB: dbName, TRON_FULL_HOST: 'http://127.0.0.1:1', KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') }, { mode: 'dev' });
    const composition = await openComposition(config, { logger: pino({ level: 'silent' }), hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }) });
    const server = await startApiServer(composition.container.get(TOKENS.ApiHost).h3, { port: 0 });
    try {
      const stores = composition.container.get(TOKENS.Stores);
      expect(stores.accounts).toBeInstanceOf(MongoAccountRepository);
      expect(stores.wallets).toBeInstanceOf(MongoWalletRepository);
      expect(stores.idempotency).toBeInstanceOf(MongoIdempotencyStore);
      expect(stores.scanCursors).toBeInstanceOf(MongoScanCursorStore);
      expect(await composition.container.get(TOKENS.Readiness)()).toContainEqual({ name: 'store', ok: true });
      const response = await fetch(`${server.url}/api/auth/register`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'm@example.com', password: 'correct horse battery' }),
      });
      expect(response.status).toBe(201);
      // Another client sees the account in the configured database.
      const client = await MongoClient.connect(target.url);
      try {
        expect(await client.db(dbName).collection(COLLECTIONS.accounts).findOne({ emailLower: 'm@example.com' })).not.toBeNull();
      } finally {
        await client.close();
      }
    } finally {
      await server.close();
      await composition.close();
    }
  });
});
