import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { KeyBackupError } from './key-backup-error.js';

/**
 * The operator's signature on a key backup (issue #35 item 6). The age recipient a backup is encrypted to is public,
 * so anyone can write a file keys:import would open; the signature says the file is what this operator's keys:export
 * wrote. Ed25519 (node:crypto), over a context string and the age file's ASCII armor exactly as written; the signature
 * block follows the armor in the same file:
 *
 *     -----BEGIN AGE ENCRYPTED FILE-----
 *     …
 *     -----END AGE ENCRYPTED FILE-----
 *     -----BEGIN CUSTODY HUB BACKUP SIGNATURE-----
 *     key <key id>
 *     <base64 of the 64-byte signature>
 *     -----END CUSTODY HUB BACKUP SIGNATURE-----
 *
 * The key id (the first 16 hex digits of SHA-256 of the public key's SPKI DER) only names the key in messages; the
 * signature alone decides. Keys are PEM files as `openssl genpkey -algorithm ed25519` (private, PKCS#8) and
 * `openssl pkey -pubout` (public, SPKI) write them.
 */
const CONTEXT = 'custody-hub-key-backup-signature-v1\n';
const BEGIN = '-----BEGIN CUSTODY HUB BACKUP SIGNATURE-----';
const END = '-----END CUSTODY HUB BACKUP SIGNATURE-----';
const AGE_END = '-----END AGE ENCRYPTED FILE-----';

/** The private signing key from its PEM; never echoed, whatever is wrong with it. */
export function signingKeyFrom(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new KeyBackupError('the signing key is not a private key in PEM (openssl genpkey -algorithm ed25519 writes one)');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new KeyBackupError('the signing key is not an Ed25519 key');
  return key;
}

/** The public verify key from its PEM. A private key is refused: it belongs with keys:export only. */
export function verifyKeyFrom(pem: string): KeyObject {
  if (/PRIVATE KEY/.test(pem)) throw new KeyBackupError('the verify key is a private key: give keys:import the public key (openssl pkey -pubout)');
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new KeyBackupError('the verify key is not a public key in PEM (openssl pkey -in signing.pem -pubout writes one)');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new KeyBackupError('the verify key is not an Ed25519 key');
  return key;
}

/** The short name of a key in messages: the first 16 hex digits of SHA-256 of its public SPKI DER. */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
}

function message(armored: string): Buffer {
  return Buffer.from(`${CONTEXT}${armored}`, 'utf8');
}

/** The armored age file followed by its signature block: what keys:export writes. */
export function signBackup(armored: string, signingKey: KeyObject): string {
  const body = armored.endsWith('\n') ? armored : `${armored}\n`;
  const signature = sign(null, message(body), signingKey).toString('base64');
  return `${body}${BEGIN}\nkey ${keyIdOf(signingKey)}\n${signature}\n${END}\n`;
}

/**
 * The armored age file of a signed backup, once its signature verifies with `verifyKey`; KeyBackupError (nothing to
 * import) for a file with no signature block, a malformed one, or a signature this key did not make over this file.
 */
export function openSignedBackup(text: string, verifyKey: KeyObject): string {
  const at = text.indexOf(`${AGE_END}\n${BEGIN}\n`);
  if (at < 0) {
    throw new KeyBackupError('the backup is not signed (no signature block after the age file): keys:import restores only a file '
      + 'keys:export signed; nothing imported');
  }
  const armored = text.slice(0, at + AGE_END.length + 1);
  const block = text.slice(at + AGE_END.length + 1).trimEnd().split('\n');
  const [begin, keyLine, signature, end] = block;
  if (block.length !== 4 || begin !== BEGIN || end !== END || !/^key [0-9a-f]{16}$/.test(keyLine ?? '') || !/^[A-Za-z0-9+/]{86}==$/.test(signature ?? '')) {
    throw new KeyBackupError('the backup\'s signature block is malformed; nothing imported');
  }
  if (!verify(null, message(armored), verifyKey, Buffer.from(signature!, 'base64'))) {
    const named = keyLine!.slice(4);
    const expected = keyIdOf(verifyKey);
    throw new KeyBackupError(named === expected
      ? `the backup's signature does not verify with key ${expected}: the file was changed after it was signed, or forged; nothing imported`
      : `the backup names signing key ${named}, and its signature does not verify with the configured verify key ${expected}; nothing imported`);
  }
  return armored;
}
