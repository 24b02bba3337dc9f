import { timingSafeEqual } from 'node:crypto';
import type { EncryptedEnvelope } from '../../core/domain/model/common.js';
import type { EncryptedRecordStore, RecordCursor } from '../../core/ports/encrypted-record-store.port.js';
import type { KeyCipher } from '../../core/ports/key-cipher.port.js';

/** The port the rotation walks (core/ports/encrypted-record-store.port.ts), for the tool's callers and tests. */
export type { EncryptedRecord, EncryptedRecordStore, RecordCursor } from '../../core/ports/encrypted-record-store.port.js';

/** What one run did. */
export interface RotationReport {
  /** Re-wrapped under the current key, verified by decrypting the new envelope before it was written. */
  readonly rewrapped: number;
  /** Already under the current key (a previous, possibly interrupted, run did them). */
  readonly current: number;
  /** Changed by someone else between read and write; a re-run picks them up. */
  readonly raced: number;
  /** Records that could not be opened with any configured key: listed, never written. */
  readonly unreadable: readonly { readonly kind: string; readonly id: string; readonly keyId: string }[];
}

/**
 * Re-wraps every stored secret under the cipher's current key id. Each record is decrypted with its old key,
 * encrypted under the current one, the new envelope decrypted again and compared with the plaintext, and only then
 * written, compare-and-set. Idempotent and resumable: records already under the current key are skipped, and a run
 * stopped at any point leaves each record either old or new, both readable while the old KEK stays configured.
 * Retire an old KEK only after a run reports nothing raced or unreadable (docs/operations.md).
 */
export async function rotateKeys(
  store: EncryptedRecordStore, cipher: KeyCipher & { readonly currentKeyId: string }, options: { readonly batch?: number } = {},
): Promise<RotationReport> {
  const batch = options.batch ?? 200;
  let rewrapped = 0;
  let current = 0;
  let raced = 0;
  const unreadable: { kind: string; id: string; keyId: string }[] = [];
  let cursor: RecordCursor | null = null;
  for (;;) {
    const page = await store.list(cursor, batch);
    if (page.length === 0) break;
    for (const record of page) {
      if (record.envelope.keyId === cipher.currentKeyId) {
        current += 1;
        continue;
      }
      let plaintext: Uint8Array;
      try {
        plaintext = await cipher.decrypt(record.envelope, record.aad);
      } catch {
        unreadable.push({ kind: record.kind, id: record.id, keyId: record.envelope.keyId });
        continue;
      }
      const next = await cipher.encrypt(plaintext, record.aad);
      const check = await cipher.decrypt(next, record.aad);
      if (check.length !== plaintext.length || !timingSafeEqual(check, plaintext)) {
        throw new Error(`re-wrapped ${record.kind} ${record.id} did not decrypt to its plaintext: nothing written`);
      }
      if (await store.replace(record, next)) rewrapped += 1;
      else raced += 1;
    }
    const last = page[page.length - 1]!;
    cursor = { kind: last.kind, id: last.id };
  }
  return { rewrapped, current, raced, unreadable };
}
