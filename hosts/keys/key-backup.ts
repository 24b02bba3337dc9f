import type { KeyObject } from 'node:crypto';
import { armor, Decrypter, Encrypter } from 'age-encryption';
import { TronWeb } from 'tronweb';
import type { EncryptedEnvelope } from '../../core/domain/model/common.js';
import type { WalletAddress } from '../../core/domain/model/wallet.js';
import type { KeyCipher } from '../../core/ports/key-cipher.port.js';
import type { WalletKeyStore } from '../../core/ports/wallet-key-store.port.js';
import { signBackup } from './backup-signature.js';
import { KeyBackupError } from './key-backup-error.js';

export { KeyBackupError };

/** What the age file holds once decrypted. */
export const BACKUP_FORMAT = 'custody-hub-key-backup';
export interface BackupWallet {
  readonly id: number;
  readonly user_id: number;
  readonly network_code: string;
  readonly address_type: number;
  readonly label: string | null;
  readonly status: number;
  readonly created_at: number;
}
export interface BackupEntry {
  readonly address: string;
  readonly private_key: string;
  readonly wallet: BackupWallet;
}
export interface BackupFile {
  readonly format: typeof BACKUP_FORMAT;
  readonly version: 1;
  readonly exported_at: string;
  readonly keys: readonly BackupEntry[];
}

/** The base58 address a private key (64 hex digits) controls, through tronweb; null for anything that is not a key. */
export function tronAddressOf(privateKey: string): string | null {
  if (!/^[0-9a-fA-F]{64}$/.test(privateKey)) return null;
  try {
    const address = TronWeb.address.fromPrivateKey(privateKey);
    return typeof address === 'string' && address !== '' ? address : null;
  } catch {
    return null;
  }
}

const PAGE = 200;
const decoder = new TextDecoder();

async function* allWallets(store: Pick<WalletKeyStore, 'list'>): AsyncGenerator<WalletAddress> {
  for (let after = 0; ;) {
    const page = await store.list(after, PAGE);
    if (page.length === 0) return;
    yield* page;
    after = page[page.length - 1]!.id;
  }
}

export async function openKey(cipher: KeyCipher, wallet: WalletAddress): Promise<string | null> {
  try {
    return decoder.decode(await cipher.decrypt(wallet.encryptedKey, wallet.address));
  } catch {
    return null;
  }
}

/** What `keys:export` wrote. */
export interface ExportReport {
  readonly keys: number;
}

/**
 * Every wallet's private key with its address and record, as one age file (ASCII armor) encrypted to `recipients`
 * (`age1…` public keys; the matching identities stay offline), signed with the operator's `signingKey` (issue #35
 * item 6, backup-signature.ts). Each key is opened with the store's KEK and checked to derive its address before
 * anything is written; a key that cannot be opened or does not derive its address fails the export (KeyBackupError
 * naming the address): a backup that cannot be restored is worse than none.
 */
export async function exportKeys(
  store: Pick<WalletKeyStore, 'list'>, cipher: KeyCipher, recipients: readonly string[], now: Date, signingKey: KeyObject,
): Promise<{ readonly armored: string; readonly report: ExportReport }> {
  if (recipients.length === 0) throw new KeyBackupError('no age recipient given: the backup would be readable by nobody');
  const encrypter = new Encrypter();
  for (const recipient of recipients) {
    if (!/^age1[0-9a-z]+$/.test(recipient)) throw new KeyBackupError(`not an age recipient (age1…): ${recipient.slice(0, 12)}…`);
    encrypter.addRecipient(recipient);
  }
  const keys: BackupEntry[] = [];
  for await (const wallet of allWallets(store)) {
    const privateKey = await openKey(cipher, wallet);
    if (privateKey === null) throw new KeyBackupError(`the key of ${wallet.address} does not open with the configured KEK: nothing exported`);
    if (tronAddressOf(privateKey) !== wallet.address) throw new KeyBackupError(`the stored key of ${wallet.address} does not derive its address: nothing exported`);
    keys.push({
      address: wallet.address, private_key: privateKey,
      wallet: {
        id: wallet.id, user_id: wallet.userId, network_code: wallet.networkCode, address_type: wallet.addressType,
        label: wallet.label, status: wallet.status, created_at: wallet.createdAt,
      },
    });
  }
  const file: BackupFile = { format: BACKUP_FORMAT, version: 1, exported_at: now.toISOString(), keys };
  const armored = signBackup(armor.encode(await encrypter.encrypt(JSON.stringify(file))), signingKey);
  return { armored, report: { keys: keys.length } };
}

function parseIdentities(text: string): string[] {
  const identities = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  if (identities.length === 0 || identities.some((line) => !line.startsWith('AGE-SECRET-KEY-'))) {
    throw new KeyBackupError('the identity file holds no age identity (AGE-SECRET-KEY-1… lines)');
  }
  return identities;
}

export async function openBackup(armored: string, identityFile: string): Promise<BackupFile> {
  let ciphertext: Uint8Array;
  try {
    ciphertext = armor.decode(armored);
  } catch {
    throw new KeyBackupError('not an age file in ASCII armor (-----BEGIN AGE ENCRYPTED FILE-----)');
  }
  const decrypter = new Decrypter();
  for (const identity of parseIdentities(identityFile)) decrypter.addIdentity(identity);
  let plaintext: string;
  try {
    plaintext = await decrypter.decrypt(ciphertext, 'text');
  } catch {
    throw new KeyBackupError('the age identity does not open this backup (it was encrypted to another recipient, or the file is damaged)');
  }
  const file = JSON.parse(plaintext) as Partial<BackupFile>;
  if (file.format !== BACKUP_FORMAT || file.version !== 1 || !Array.isArray(file.keys)) {
    throw new KeyBackupError(`not a ${BACKUP_FORMAT} version 1 file`);
  }
  return file as BackupFile;
}

