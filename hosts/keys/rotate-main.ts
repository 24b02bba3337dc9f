/**
 * `npm run keys:rotate`: re-wraps every stored private key and webhook secret under the newest KEK (the first id of
 * KEY_ENCRYPTION_KEY or KEY_ENCRYPTION_KEY_FILE), verified by decrypting, compare-and-set, resumable and idempotent:
 * run it again after any interruption. Needs STORE=mongodb (a memory store holds nothing across restarts). Exit 0
 * when every secret is under the newest KEK (the old one may then be retired); 3 when some raced or are unreadable.
 */
import { connectMongo } from '../../adapters/mongodb/index.js';
import { AesGcmKeyCipher } from '../../adapters/node/index.js';
import { ConfigError, loadConfig } from '../composition/config.js';
import { rotateKeys } from './key-rotation.js';
import { MongoEncryptedRecords } from './mongo-encrypted-records.js';

try {
  const config = loadConfig(process.env, { mode: 'production', role: 'worker' });
  if (config.store !== 'mongodb') throw new ConfigError('STORE', 'must be mongodb: keys:rotate re-wraps the secrets of a persistent store');
  const cipher = AesGcmKeyCipher.fromConfig(config.keyEncryptionKey!);
  const connection = await connectMongo(config.mongodbUrl, config.mongodbDb === null ? {} : { dbName: config.mongodbDb });
  try {
    const report = await rotateKeys(new MongoEncryptedRecords(connection.db), cipher);
    process.stdout.write(`${JSON.stringify({ currentKeyId: cipher.currentKeyId, ...report })}\n`);
    process.exitCode = report.raced === 0 && report.unreadable.length === 0 ? 0 : 3;
  } finally {
    await connection.close();
  }
} catch (error) {
  process.stderr.write(error instanceof ConfigError ? `${error.message}\n` : `keys:rotate failed: ${(error as Error).message}\n`);
  process.exitCode = error instanceof ConfigError ? 2 : 1;
}
