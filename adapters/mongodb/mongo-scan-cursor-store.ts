import type { Collection, Db } from 'mongodb';
import type { ScanCheckpoint, ScanClaim, ScanCursorStore } from '../../core/ports/scan-cursor-store.port.js';
import { COLLECTIONS } from './collections.js';
import { fromStoredScanCheckpoint, toStoredScanCheckpoint, type StoredScanCheckpoint } from '../records/scan-checkpoint-record.js';
import { guarded, isDuplicateKey } from './mongo-support.js';

/** Collection of scanner cursors, one document per scanner name. */
export const SCAN_CURSORS_COLLECTION = COLLECTIONS.scanCursors;

interface ScanCursorDocument {
  _id: string;
  version?: number;
  owner?: string;
  until?: number;
  checkpoint?: StoredScanCheckpoint | null;
  /** A cursor written before checkpoints existed: only the last processed block number. */
  block?: number;
}

/**
 * Scanner checkpoints in MongoDB: one document per scanner name; a claim and a save are each one conditional
 * update (owner/expiry and version in the filter), so the lease and the version fence hold across processes.
 * The checkpoint is the shared record (amounts as decimal strings). A cursor from before checkpoints (`{block: n}`) resumes after block n.
 */
export class MongoScanCursorStore implements ScanCursorStore {
  private readonly cursors: Collection<ScanCursorDocument>;

  constructor(db: Db) {
    this.cursors = db.collection<ScanCursorDocument>(SCAN_CURSORS_COLLECTION);
  }

  claim(name: string, owner: string, now: number, until: number): Promise<ScanClaim> {
    return guarded('scan cursor claim', async () => {
      const free = { $or: [{ owner }, { until: { $lte: now } }, { until: { $exists: false } }] };
      let doc: ScanCursorDocument | null;
      try {
        doc = await this.cursors.findOneAndUpdate({ _id: name, ...free }, { $set: { owner, until }, $inc: { version: 1 } },
          { upsert: true, returnDocument: 'after' });
      } catch (error) {
        // The filter did not match an existing document, so the upsert collided with it: someone else holds the lease.
        if (!isDuplicateKey(error)) throw error;
        doc = null;
      }
      if (doc !== null) return { held: true, version: doc.version!, checkpoint: fromDocument(doc) };
      const holder = await this.cursors.findOne({ _id: name });
      if (holder === null) return this.claim(name, owner, now, until);
      return { held: false, owner: holder.owner ?? '', until: holder.until ?? 0 };
    });
  }

  genesisIds(): Promise<readonly string[]> {
    return guarded('scan cursor genesis ids', async () => {
      const ids = await this.cursors.distinct('checkpoint.genesis', { 'checkpoint.genesis': { $type: 'string' } });
      return ids.filter((id): id is string => typeof id === 'string');
    });
  }

  save(name: string, owner: string, version: number, checkpoint: ScanCheckpoint, until: number): Promise<number | null> {
    return guarded('scan cursor save', async () => {
      const result = await this.cursors.updateOne({ _id: name, owner, version },
        { $set: { checkpoint: toStoredScanCheckpoint(checkpoint), until }, $inc: { version: 1 }, $unset: { block: '' } });
      return result.matchedCount === 1 ? version + 1 : null;
    });
  }
}

function fromDocument(doc: ScanCursorDocument): ScanCheckpoint | null {
  const c = doc.checkpoint;
  if (c === undefined || c === null) {
    // The old forward-only cursor: resume after its block; no hash is known, so that block's successor is not checked.
    return typeof doc.block === 'number' ? { block: { number: doc.block, hash: '' }, recent: [], final: doc.block, unfinal: [], anchors: [] } : null;
  }
  return fromStoredScanCheckpoint(c);
}
