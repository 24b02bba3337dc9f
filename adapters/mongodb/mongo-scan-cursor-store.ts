import type { Collection, Db } from 'mongodb';
import type { ScanCursorStore } from '../../core/ports/scan-cursor-store.port.js';
import { COLLECTIONS } from './collections.js';
import { guarded, isDuplicateKey } from './mongo-support.js';

/** Collection of scanner cursors, one document per scanner name. */
export const SCAN_CURSORS_COLLECTION = COLLECTIONS.scanCursors;

interface ScanCursorDocument {
  _id: string;
  block: number;
}

/** Scanner cursors in MongoDB; `$max` keeps every advance forward-only and atomic across workers. */
export class MongoScanCursorStore implements ScanCursorStore {
  private readonly cursors: Collection<ScanCursorDocument>;

  constructor(db: Db) {
    this.cursors = db.collection<ScanCursorDocument>(SCAN_CURSORS_COLLECTION);
  }

  get(name: string): Promise<number | null> {
    return guarded('scan cursor read', async () => {
      const doc = await this.cursors.findOne({ _id: name });
      return doc === null ? null : doc.block;
    });
  }

  advance(name: string, block: number): Promise<void> {
    if (!Number.isSafeInteger(block) || block < 0) throw new RangeError(`scan cursor must be a block number, got ${block}`);
    return guarded('scan cursor write', async () => {
      try {
        await this.cursors.updateOne({ _id: name }, { $max: { block } }, { upsert: true });
      } catch (error) {
        // Two first advances racing on the upsert: the loser's value is applied by retrying once as an update.
        if (!isDuplicateKey(error)) throw error;
        await this.cursors.updateOne({ _id: name }, { $max: { block } });
      }
    });
  }
}
