/**
 * `npm run keys:export -- --recipient age1… --signing-key backup-signing.pem --out keys.age`: every wallet's private
 * key with its address and record, in one age file (ASCII armor) encrypted to the operator's offline age public
 * key(s) (`--recipient`, repeatable, or KEY_BACKUP_RECIPIENTS, comma-separated), signed with the operator's Ed25519
 * signing key (`--signing-key` or BACKUP_SIGNING_KEY_FILE, PEM; issue #35 item 6), so that keys:import can tell it
 * from a file anyone could encrypt to the public recipient. Reads STORE=postgres|mongodb with KEY_ENCRYPTION_KEY. The
 * file is created (never overwritten) with mode 0600. Prints a JSON summary (count, file, recipients, the signing
 * key's id); never key material. Exit 0 written, 1 failed (nothing written), 2 configuration. docs/operations.md,
 * "Disaster recovery: key backup and restore".
 */
import { writeFile } from 'node:fs/promises';
import { AesGcmKeyCipher } from '../../adapters/node/index.js';
import { ConfigError, loadConfig } from '../composition/config.js';
import { keyIdOf, signingKeyFrom } from './backup-signature.js';
import { argValues, fail, openWalletKeys, readInput } from './key-backup-cli.js';
import { exportKeys } from './key-backup.js';

const TOOL = 'keys:export';

try {
  const argv = process.argv.slice(2);
  const recipients = [...argValues(argv, 'recipient'), ...(process.env['KEY_BACKUP_RECIPIENTS'] ?? '').split(',')]
    .map((r) => r.trim()).filter((r) => r !== '');
  const out = argValues(argv, 'out')[0];
  const signingKeyPath = argValues(argv, 'signing-key')[0] ?? process.env['BACKUP_SIGNING_KEY_FILE'];
  if (out === undefined) throw new ConfigError('--out', 'is required: the file the age backup is written to');
  if (recipients.length === 0) throw new ConfigError('--recipient', 'is required (or KEY_BACKUP_RECIPIENTS): an age public key, age1…');
  if (signingKeyPath === undefined) {
    throw new ConfigError('--signing-key', 'is required (or BACKUP_SIGNING_KEY_FILE): the Ed25519 private key (PEM) keys:import checks the backup against');
  }
  const config = loadConfig(process.env, { mode: 'production', role: 'worker' });
  const cipher = AesGcmKeyCipher.fromConfig(config.keyEncryptionKey!);
  const signingKey = signingKeyFrom(await readInput(signingKeyPath, 'signing key file'));
  const { store, close } = await openWalletKeys(config, TOOL);
  try {
    const { armored, report } = await exportKeys(store, cipher, recipients, new Date(), signingKey);
    await writeFile(out, armored, { flag: 'wx', mode: 0o600 });
    process.stdout.write(`${JSON.stringify({ keys: report.keys, file: out, recipients: recipients.length, signing_key: keyIdOf(signingKey) })}\n`);
  } finally {
    await close();
  }
} catch (error) {
  fail(TOOL, error);
}
