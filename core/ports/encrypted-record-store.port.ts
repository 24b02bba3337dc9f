import type { EncryptedEnvelope } from '../domain/model/common.js';

/**
 * One stored secret: a wallet's private key (aad: its address), a developer's webhook secret (aad:
 * webhook-secret:<user>) or an account's TOTP secret (aad: totp:<user>, issue #26).
 */
export interface EncryptedRecord {
  readonly kind: 'wallet-key' | 'webhook-secret' | 'totp-secret';
  /** Unique within its kind; records are listed in (kind, id) order. */
  readonly id: string;
  readonly aad: string;
  readonly envelope: EncryptedEnvelope;
}

/** Where a listing resumes. */
export interface RecordCursor {
  readonly kind: EncryptedRecord['kind'];
  readonly id: string;
}

/**
 * The stored secrets as key rotation (`keys:rotate`, hosts/keys/key-rotation.ts) sees them. Adapters:
 * MemoryEncryptedRecords, PgEncryptedRecords, MongoEncryptedRecords; contract:
 * contracts-tests/encrypted-record-store.contract.ts. Only the operator tool walks every secret.
 */
export interface EncryptedRecordStore {
  /**
   * Records after `after` (null: from the start), at most `limit`: the kinds in the order wallet-key, webhook-secret,
   * totp-secret, each by numeric id; an empty page is the end. Rows without a secret of the kind are not listed.
   */
  list(after: RecordCursor | null, limit: number): Promise<EncryptedRecord[]>;
  /**
   * Replaces the record's envelope with `next` only while it still holds `record.envelope` (compare-and-set on key
   * id, iv and ciphertext); false when it changed meanwhile (the next run takes it). The row's version is bumped where
   * the record has one, so a save that read the row before fails its version check instead of writing the old
   * envelope back.
   */
  replace(record: EncryptedRecord, next: EncryptedEnvelope): Promise<boolean>;
}
