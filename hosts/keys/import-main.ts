/**
 * `npm run keys:import -- --in keys.age --identity operator.agekey --verify-key backup-verify.pem [--apply]
 * [--restore-empty-store]`: restores a keys:export file into the store (STORE=postgres|mongodb, KEY_ENCRYPTION_KEY:
 * keys are stored under this store's current KEK). The identity file (`--identity` or KEY_BACKUP_IDENTITY_FILE) holds
 * the age identity (AGE-SECRET-KEY-1…, as age-keygen writes it); the verify key (`--verify-key` or
 * BACKUP_VERIFY_KEY_FILE) is the public half of the operator's signing key (issue #35 item 6).
 *
 * A file whose signature does not verify is refused before it is decrypted. Every key is then checked to derive its
 * address: one mismatch refuses the whole file. Only wallets the store holds are touched (rewrapped under the current
 * KEK, or unchanged); a key for an address, wallet or user the store does not know is refused, unless
 * `--restore-empty-store` restores a whole backup into a store that holds no wallet. The plan (the dry-run diff) is
 * always printed first as one JSON line; nothing is written without `--apply`, which then prints the report as a
 * second line. Never key material. Exit 0 done (or a dry run with nothing refused), 3 refusals or conflicts (listed;
 * nothing written for them), 1 failed (nothing written), 2 configuration.
 */
import { AesGcmKeyCipher } from '../../adapters/node/index.js';
import { ConfigError, loadConfig } from '../composition/config.js';
import { verifyKeyFrom } from './backup-signature.js';
import { argValues, fail, hasFlag, openWalletKeys, readInput } from './key-backup-cli.js';
import { applyImport, planImport, planView } from './key-import.js';

const TOOL = 'keys:import';

try {
  const argv = process.argv.slice(2);
  const input = argValues(argv, 'in')[0];
  const identityPath = argValues(argv, 'identity')[0] ?? process.env['KEY_BACKUP_IDENTITY_FILE'];
  const verifyKeyPath = argValues(argv, 'verify-key')[0] ?? process.env['BACKUP_VERIFY_KEY_FILE'];
  const applying = hasFlag(argv, 'apply');
  const restoreEmptyStore = hasFlag(argv, 'restore-empty-store');
  if (input === undefined) throw new ConfigError('--in', 'is required: the age backup written by keys:export');
  if (identityPath === undefined) throw new ConfigError('--identity', 'is required (or KEY_BACKUP_IDENTITY_FILE): the age identity file');
  if (verifyKeyPath === undefined) {
    throw new ConfigError('--verify-key', 'is required (or BACKUP_VERIFY_KEY_FILE): the public key (PEM) of the signing key keys:export used');
  }
  const config = loadConfig(process.env, { mode: 'production', role: 'worker' });
  const cipher = AesGcmKeyCipher.fromConfig(config.keyEncryptionKey!);
  const [signed, identities, verifyPem] = await Promise.all([
    readInput(input, 'backup'), readInput(identityPath, 'identity file'), readInput(verifyKeyPath, 'verify key file'),
  ]);
  const verifyKey = verifyKeyFrom(verifyPem);
  const { store, close } = await openWalletKeys(config, TOOL);
  try {
    const plan = await planImport(store, cipher, signed, identities, verifyKey, { restoreEmptyStore });
    process.stdout.write(`${JSON.stringify(planView(plan, applying))}\n`);
    if (!applying) {
      process.exitCode = plan.refused.length === 0 ? 0 : 3;
    } else {
      const report = await applyImport(store, cipher, plan);
      process.stdout.write(`${JSON.stringify(report)}\n`);
      process.exitCode = report.conflicts.length === 0 ? 0 : 3;
    }
  } finally {
    await close();
  }
} catch (error) {
  fail(TOOL, error);
}
