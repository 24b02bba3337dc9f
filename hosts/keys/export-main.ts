/**
 * `npm run keys:export -- --recipient age1… --out keys.age`: every wallet's private key with its address and record,
 * in one age file (ASCII armor) encrypted to the operator's offline age public key(s) (`--recipient`, repeatable, or
 * KEY_BACKUP_RECIPIENTS, comma-separated). Reads STORE=postgres|mongodb with KEY_ENCRYPTION_KEY. The file is created
 * (never overwritten) with mode 0600. Prints a JSON summary (count, file); never key material. Exit 0 written,
 * 1 failed (nothing written), 2 configuration. docs/operations.md, "Disaster recovery: key backup and restore".
 */
import { writeFile } from 'node:fs/promises';
import { AesGcmKeyCipher } from '../../adapters/node/index.js';
import { ConfigError, loadConfig } from '../composition/config.js';
import { argValues, fail, openWalletKeys } from './key-backup-cli.js';
import { exportKeys } from './key-backup.js';

const TOOL = 'keys:export';

try {
  const argv = process.argv.slice(2);
  const recipients = [...argValues(argv, 'recipient'), ...(process.env['KEY_BACKUP_RECIPIENTS'] ?? '').split(',')]
    .map((r) => r.trim()).filter((r) => r !== '');
  const out = argValues(argv, 'out')[0];
  if (out === undefined) throw new ConfigError('--out', 'is required: the file the age backup is written to');
  if (recipients.length === 0) throw new ConfigError('--recipient', 'is required (or KEY_BACKUP_RECIPIENTS): an age public key, age1…');
  const config = loadConfig(process.env, { mode: 'production', role: 'worker' });
  const cipher = AesGcmKeyCipher.fromConfig(config.keyEncryptionKey!);
  const { store, close } = await openWalletKeys(config, TOOL);
  try {
    const { armored, report } = await exportKeys(store, cipher, recipients, new Date());
    await writeFile(out, armored, { flag: 'wx', mode: 0o600 });
    process.stdout.write(`${JSON.stringify({ keys: report.keys, file: out, recipients: recipients.length })}\n`);
  } finally {
    await close();
  }
} catch (error) {
  fail(TOOL, error);
}
