/**
 * `npm run keys:rotate`: re-wraps every stored private key and webhook secret under the newest KEK (the first id of
 * KEY_ENCRYPTION_KEY or KEY_ENCRYPTION_KEY_FILE), verified by decrypting, compare-and-set, resumable and idempotent:
 * run it again after any interruption. Needs a persistent store, STORE=postgres or STORE=mongodb (a memory store
 * holds nothing across restarts). Exit 0 when every secret is under the newest KEK (the old one may then be retired);
 * 3 when some raced or are unreadable.
 */
import { connectMongo, MongoEncryptedRecords } from '../../adapters/mongodb/index.js';
import { AesGcmKeyCipher } from '../../adapters/node/index.js';
import { connectPostgres, PgEncryptedRecords } from '../../adapters/postgres/index.js';
import { ConfigError, loadConfig } from '../composition/config.js';
import { rotateKeys, type EncryptedRecordStore } from './key-rotation.js';

/** The store's secrets, and how to close the connection they came from. */
async function openRecords(config: ReturnType<typeof loadConfig>): Promise<{ records: EncryptedRecordStore; close(): Promise<void> }> {
  if (config.store === 'postgres') {
    const connection = await connectPostgres(config.databaseUrl!, { poolSize: 2 });
    return { records: new PgEncryptedRecords(connection.pool), close: () => connection.close() };
  }
  if (config.store === 'mongodb') {
    const connection = await connectMongo(config.mongodbUrl!, config.mongodbDb === null ? {} : { dbName: config.mongodbDb });
    return { records: new MongoEncryptedRecords(connection.db), close: () => connection.close() };
  }
  throw new ConfigError('STORE', 'must be postgres or mongodb: keys:rotate re-wraps the secrets of a persistent store');
}

try {
  const config = loadConfig(process.env, { mode: 'production', role: 'worker' });
  const cipher = AesGcmKeyCipher.fromConfig(config.keyEncryptionKey!);
  const { records, close } = await openRecords(config);
  try {
    const report = await rotateKeys(records, cipher);
    process.stdout.write(`${JSON.stringify({ currentKeyId: cipher.currentKeyId, ...report })}\n`);
    process.exitCode = report.raced === 0 && report.unreadable.length === 0 ? 0 : 3;
  } finally {
    await close();
  }
} catch (error) {
  process.stderr.write(error instanceof ConfigError ? `${error.message}\n` : `keys:rotate failed: ${(error as Error).message}\n`);
  process.exitCode = error instanceof ConfigError ? 2 : 1;
}
