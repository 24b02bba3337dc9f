import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { InfrastructureError } from '../../core/domain/errors.js';
import type { EncryptedEnvelope } from '../../core/domain/model/common.js';
import type { KeyCipher } from '../../core/ports/key-cipher.port.js';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_PATTERN = /^[A-Za-z0-9_.-]{1,32}$/;
const BASE64_PATTERN = /^[A-Za-z0-9+/]+={0,2}$/;

/** The key id given to a bare (single, id-less) key in configuration; name it explicitly when rotating later. */
export const DEFAULT_KEY_ID = 'default';

/** Keys by id; the current one encrypts, every one decrypts (rotation). */
export interface AesGcmKeyCipherOptions {
  readonly currentKeyId: string;
  readonly keys: Readonly<Record<string, Uint8Array>>;
}

function openFailed(reason: string, cause?: unknown): InfrastructureError {
  // Never name key bytes or plaintext; the reason is enough to diagnose a wrong aad or key id.
  return new InfrastructureError('INTERNAL-ERROR', `encrypted envelope could not be opened: ${reason}`, { transient: false, cause });
}

/**
 * AES-256-GCM with a fresh random 96-bit IV per encryption and a 128-bit tag; the key id travels beside the
 * ciphertext so older keys keep decrypting after rotation. Key bytes live in a private field (never inspected).
 */
export class AesGcmKeyCipher implements KeyCipher {
  readonly #keys: Map<string, Buffer>;
  readonly #currentKeyId: string;

  constructor(options: AesGcmKeyCipherOptions) {
    this.#keys = new Map();
    for (const [id, key] of Object.entries(options.keys)) {
      if (!KEY_ID_PATTERN.test(id)) throw new Error(`AesGcmKeyCipher: key id "${id}" must match ${KEY_ID_PATTERN}`);
      if (key.length !== KEY_BYTES) throw new Error(`AesGcmKeyCipher: key "${id}" must be ${KEY_BYTES} bytes`);
      this.#keys.set(id, Buffer.from(key));
    }
    if (!this.#keys.has(options.currentKeyId)) {
      throw new Error(`AesGcmKeyCipher: current key id "${options.currentKeyId}" is not among the keys`);
    }
    this.#currentKeyId = options.currentKeyId;
  }

  /**
   * Parses `base64` (one 32-byte key, id "default") or `id:base64,id2:base64` (first is current) from configuration.
   * Errors name the variable and the entry's position, never the value.
   */
  static fromConfig(value: string, variableName = 'KEY_ENCRYPTION_KEY'): AesGcmKeyCipher {
    const expected = `${variableName} must be a 32-byte key in base64, or "id:base64,id2:base64" (the first is current)`;
    const entries = value.split(',').map((entry) => entry.trim());
    if (value.trim() === '' || entries.some((entry) => entry === '')) throw new Error(`${expected}; it is empty`);
    const keys: Record<string, Buffer> = {};
    entries.forEach((entry, index) => {
      const separator = entry.indexOf(':');
      const id = separator === -1 ? DEFAULT_KEY_ID : entry.slice(0, separator);
      const encoded = separator === -1 ? entry : entry.slice(separator + 1);
      const where = `${variableName} entry ${index + 1}`;
      if (separator === -1 && entries.length > 1) throw new Error(`${expected}; ${where} has no id`);
      if (!KEY_ID_PATTERN.test(id)) throw new Error(`${expected}; ${where} has an invalid id`);
      if (id in keys) throw new Error(`${expected}; ${where} repeats a key id`);
      const bytes = BASE64_PATTERN.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
      if (bytes.length !== KEY_BYTES) throw new Error(`${expected}; ${where} is not 32 bytes of base64`);
      keys[id] = bytes;
    });
    const first = entries[0]!;
    const currentKeyId = first.includes(':') ? first.slice(0, first.indexOf(':')) : DEFAULT_KEY_ID;
    return new AesGcmKeyCipher({ currentKeyId, keys });
  }

  /** The id new envelopes are made under (the first of KEY_ENCRYPTION_KEY): what `keys:rotate` re-wraps to. */
  get currentKeyId(): string {
    return this.#currentKeyId;
  }

  async encrypt(plaintext: Uint8Array, aad: string): Promise<EncryptedEnvelope> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#keys.get(this.#currentKeyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return {
      keyId: this.#currentKeyId,
      iv: iv.toString('base64'),
      ciphertext: ciphertext.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
    };
  }

  async decrypt(envelope: EncryptedEnvelope, aad: string): Promise<Uint8Array> {
    const key = this.#keys.get(envelope.keyId);
    if (key === undefined) throw openFailed(`unknown key id "${envelope.keyId}"`);
    const iv = Buffer.from(envelope.iv, 'base64');
    const tag = Buffer.from(envelope.tag, 'base64');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw openFailed('malformed iv or tag');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(tag);
      const plaintext = Buffer.concat([decipher.update(Buffer.from(envelope.ciphertext, 'base64')), decipher.final()]);
      return new Uint8Array(plaintext);
    } catch (cause) {
      throw openFailed('authentication failed (wrong key, aad or tampered data)', cause);
    }
  }
}
