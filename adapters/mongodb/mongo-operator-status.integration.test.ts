import { afterAll, beforeAll, describe } from 'vitest';
import { MONGO_SKIP_MESSAGE, openTestDatabase, provisionMongo, type MongoTestDatabase } from '../../contracts-tests/harness/mongodb.js';
import { describeOperatorStatusStoreContract } from '../../contracts-tests/operator-status-store.contract.js';
import { MongoOperatorStatusStore, OPERATOR_STATUS_COLLECTION } from './mongo-operator-status-store.js';

// The OperatorStatusStore contract against MongoDB (MONGODB_URL, else a mongo:7 container); skipped loudly without one.
const target = await provisionMongo();
const unavailable = target.kind === 'unavailable';
if (target.kind === 'unavailable') console.warn(`${MONGO_SKIP_MESSAGE} (${target.reason})`);

describe.skipIf(unavailable)('MongoDB operator status', () => {
  let database: MongoTestDatabase | undefined;
  beforeAll(async () => {
    if (target.kind !== 'unavailable') database = await openTestDatabase(target.url, 'operator_status');
  });
  afterAll(async () => {
    await database?.drop();
    if (target.kind !== 'unavailable') await target.stop();
  });

  describeOperatorStatusStoreContract('mongodb', async () => {
    if (database === undefined) throw new Error('the MongoDB test database is not open');
    // Not among COLLECTIONS, so `clear` does not empty it: do it here.
    await database.connection.db.collection(OPERATOR_STATUS_COLLECTION).deleteMany({});
    return { status: new MongoOperatorStatusStore(database.connection.db) };
  }, { numRuns: 15 });
});
