import type { Db, Filter, Document } from 'mongodb';
import type { EncryptedEnvelope } from '../../core/domain/model/common.js';
import type { EncryptedRecord, EncryptedRecordStore, RecordCursor } from '../../core/ports/encrypted-record-store.port.js';
import { COLLECTIONS } from './collections.js';

/** Where each kind of secret lives: collection, envelope field and the aad its owner binds it to. */
const SOURCES = {
  'wallet-key': { collection: COLLECTIONS.wallets, field: 'encryptedKey', aad: (doc: Document) => String(doc['address']) },
  'webhook-secret': { collection: COLLECTIONS.developerConfigs, field: 'secret', aad: (doc: Document) => `webhook-secret:${String(doc['_id'])}` },
  'totp-secret': { collection: COLLECTIONS.accounts, field: 'twoFactor.secret', aad: (doc: Document) => `totp:${String(doc['_id'])}` },
} as const;
const KINDS = ['wallet-key', 'webhook-secret', 'totp-secret'] as const;

/** The value at a dotted path of a document (`twoFactor.secret`). */
function at(doc: Document, path: string): unknown {
  return path.split('.').reduce<unknown>((value, part) => (value as Document | null | undefined)?.[part], doc);
}

/**
 * The EncryptedRecordStore port on MongoDB (keys:rotate; contract: contracts-tests/encrypted-record-store.contract.ts).
 * Lists `wallet_addresses.encryptedKey`, `developer_configs.secret`, then `accounts.twoFactor.secret` by `_id`; a
 * replace is one `updateOne` filtered on the old envelope's key id, iv and ciphertext (compare-and-set; majority write
 * concern from the client) that bumps the document's version, as on PostgreSQL: a save that read the document before
 * the re-wrap then fails its version check instead of writing the old envelope back.
 */
export class MongoEncryptedRecords implements EncryptedRecordStore {
  constructor(private readonly db: Db) {}

  async list(after: RecordCursor | null, limit: number): Promise<EncryptedRecord[]> {
    const out: EncryptedRecord[] = [];
    for (const kind of KINDS) {
      if (after !== null && KINDS.indexOf(kind) < KINDS.indexOf(after.kind)) continue;
      const source = SOURCES[kind];
      const filter: Filter<Document> = { [source.field]: { $type: 'object' } };
      if (after !== null && after.kind === kind) filter['_id'] = { $gt: idOf(after.id) } as never;
      const docs = await this.db.collection(source.collection).find(filter).sort({ _id: 1 }).limit(limit - out.length).toArray();
      for (const doc of docs) {
        const envelope = at(doc, source.field) as EncryptedEnvelope;
        out.push({ kind, id: String(doc['_id']), aad: source.aad(doc), envelope: { keyId: envelope.keyId, iv: envelope.iv, ciphertext: envelope.ciphertext, tag: envelope.tag } });
      }
      if (out.length >= limit) break;
    }
    return out;
  }

  async replace(record: EncryptedRecord, next: EncryptedEnvelope): Promise<boolean> {
    const { collection, field } = SOURCES[record.kind];
    const result = await this.db.collection(collection).updateOne(
      {
        _id: idOf(record.id) as never, [`${field}.keyId`]: record.envelope.keyId, [`${field}.iv`]: record.envelope.iv,
        [`${field}.ciphertext`]: record.envelope.ciphertext,
      },
      { $set: { [field]: { keyId: next.keyId, iv: next.iv, ciphertext: next.ciphertext, tag: next.tag } }, $inc: { version: 1 } },
    );
    return result.modifiedCount === 1;
  }
}

/** Every collection here keys by integer `_id` (wallet id, user id). */
function idOf(id: string): number {
  return Number(id);
}
