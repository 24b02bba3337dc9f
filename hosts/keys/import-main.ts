/**
 * `npm run keys:import -- --in keys.age --identity operator.agekey`: restores a keys:export file into the store
 * (STORE=postgres|mongodb, KEY_ENCRYPTION_KEY: keys are stored under this store's current KEK). The identity file
 * (`--identity` or KEY_BACKUP_IDENTITY_FILE) holds the age identity (AGE-SECRET-KEY-1…, as age-keygen writes it).
 * Every key is checked to derive its address first: one mismatch refuses the whole file. Idempotent: run it again
 * and the keys already there are `unchanged`. Prints a JSON report; never key material. Exit 0 done, 3 conflicts
 * (listed; nothing written for them), 1 failed (nothing written), 2 configuration.
 */
import { readFile } from 'node:fs/promises';
import { AesGcmKeyCipher } from '../../adapters/node/index.js';
import { ConfigError, loadConfig } from '../composition/config.js';
import { argValues, fail, openWalletKeys } from './key-backup-cli.js';
import { importKeys, KeyBackupError } from './key-backup.js';

const TOOL = 'keys:import';

async function readInput(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new KeyBackupError(`cannot read the ${what} ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

try {
  const argv = process.argv.slice(2);
  const input = argValues(argv, 'in')[0];
  const identityPath = argValues(argv, 'identity')[0] ?? process.env['KEY_BACKUP_IDENTITY_FILE'];
  if (input === undefined) throw new ConfigError('--in', 'is required: the age backup written by keys:export');
  if (identityPath === undefined) throw new ConfigError('--identity', 'is required (or KEY_BACKUP_IDENTITY_FILE): the age identity file');
  const config = loadConfig(process.env, { mode: 'production', role: 'worker' });
  const cipher = AesGcmKeyCipher.fromConfig(config.keyEncryptionKey!);
  const [armored, identities] = await Promise.all([readInput(input, 'backup'), readInput(identityPath, 'identity file')]);
  const { store, close } = await openWalletKeys(config, TOOL);
  try {
    const report = await importKeys(store, cipher, armored, identities);
    process.stdout.write(`${JSON.stringify(report)}\n`);
    process.exitCode = report.conflicts.length === 0 ? 0 : 3;
  } finally {
    await close();
  }
} catch (error) {
  fail(TOOL, error);
}
