import type { EncryptedEnvelope } from '../domain/model/common.js';

/**
 * AES-256-GCM envelope encryption for private keys and webhook secrets.
 * `aad` (additional authenticated data, e.g. the address) binds a ciphertext to its owner: opening it with
 * another aad fails. The key id in the envelope allows key rotation.
 */
export interface KeyCipher {
  /** Encrypts under the current key with a fresh 96-bit IV. */
  encrypt(plaintext: Uint8Array, aad: string): Promise<EncryptedEnvelope>;
  /** Opens an envelope made by any configured key id; throws when the tag, key id or aad does not match. */
  decrypt(envelope: EncryptedEnvelope, aad: string): Promise<Uint8Array>;
}
