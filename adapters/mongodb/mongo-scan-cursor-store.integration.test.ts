import { afterAll, beforeAll, describe } from 'vitest';
import { MONGO_SKIP_MESSAGE, openTestDatabase, provisionMongo, type MongoTestDatabase } from '../../contracts-tests/harness/mongodb.js';
import { describeScanCursorStoreContract } from '../../contracts-tests/scan-cursor-store.contract.js';
import { MongoScanCursorStore, SCAN_CURSORS_COLLECTION } from './mongo-scan-cursor-store.js';

// The ScanCursorStore contract against MongoDB (MONGODB_URL, else a mongo:7 container); skipped loudly without one.
const target = await provisionMongo();
const unavailable = target.kind === 'unavailable';
if (target.kind === 'unavailable') console.warn(`${MONGO_SKIP_MESSAGE} (${target.reason})`);

describe.skipIf(unavailable)('MongoDB scan cursors', () => {
  let database: MongoTestDatabase | undefined;
  beforeAll(async () => {
    if (target.kind !== 'unavailable') database = await openTestDatabase(target.url, 'scan_cursors');
  });
  afterAll(async () => {
    await database?.drop();
    if (target.kind !== 'unavailable') await target.stop();
  });

  describeScanCursorStoreContract('mongodb', async () => {
    if (database === undefined) throw new Error('the MongoDB test database is not open');
    // The cursor collection is not among COLLECTIONS yet, so `clear` does not empty it: do it here.
    await database.connection.db.collection(SCAN_CURSORS_COLLECTION).deleteMany({});
    return { cursors: new MongoScanCursorStore(database.connection.db) };
  }, { numRuns: 15 });
});
