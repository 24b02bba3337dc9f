import type { Collection, Db } from 'mongodb';
import type { OperatorStatusKind, OperatorStatusRecord, OperatorStatusStore } from '../../core/ports/operator-status-store.port.js';
import { guarded, isDuplicateKey } from './mongo-support.js';

/** Collection of the operator status, one document per kind. */
export const OPERATOR_STATUS_COLLECTION = 'operator_status';

interface OperatorStatusDocument {
  _id: OperatorStatusKind;
  /** The body as JSON text: its keys are the worker's, kept exactly (no field-name rules of MongoDB apply). */
  body: string;
  at: number;
}

/**
 * The operator status in MongoDB: a put is one conditional upsert (`at` not newer in the filter); when the stored
 * document is newer the upsert collides with it on `_id` and nothing changes.
 */
export class MongoOperatorStatusStore implements OperatorStatusStore {
  private readonly records: Collection<OperatorStatusDocument>;

  constructor(db: Db) {
    this.records = db.collection<OperatorStatusDocument>(OPERATOR_STATUS_COLLECTION);
  }

  put(kind: OperatorStatusKind, body: OperatorStatusRecord['body'], at: number): Promise<boolean> {
    return guarded('operator status put', async () => {
      try {
        await this.records.updateOne({ _id: kind, at: { $lte: at } }, { $set: { body: JSON.stringify(body), at } }, { upsert: true });
        return true;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // Another writer inserted the document first: updated when it is not newer, else this write is the older one.
        const again = await this.records.updateOne({ _id: kind, at: { $lte: at } }, { $set: { body: JSON.stringify(body), at } });
        return again.matchedCount === 1;
      }
    });
  }

  /**
   * An insert that collides on `_id` with an existing document (expected null), else an update filtered on the stored
   * text: the expected body was read from it (JSON.parse), so its JSON text is the stored one.
   */
  replace(kind: OperatorStatusKind, body: OperatorStatusRecord['body'], at: number, expected: OperatorStatusRecord['body'] | null): Promise<boolean> {
    return guarded('operator status replace', async () => {
      if (expected === null) {
        try {
          await this.records.insertOne({ _id: kind, body: JSON.stringify(body), at });
          return true;
        } catch (error) {
          if (isDuplicateKey(error)) return false;
          throw error;
        }
      }
      const updated = await this.records.updateOne({ _id: kind, body: JSON.stringify(expected) }, { $set: { body: JSON.stringify(body), at } });
      return updated.matchedCount === 1;
    });
  }

  get(kind: OperatorStatusKind): Promise<OperatorStatusRecord | null> {
    return guarded('operator status get', async () => {
      const doc = await this.records.findOne({ _id: kind });
      return doc === null ? null : { kind, body: JSON.parse(doc.body) as OperatorStatusRecord['body'], at: doc.at };
    });
  }
}
