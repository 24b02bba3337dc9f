import type { Collection, Db } from 'mongodb';
import type { BalanceChange, BlockTransfer } from '../../core/ports/block-source.port.js';
import type { ScanCheckpoint, ScanClaim, ScanCursorStore } from '../../core/ports/scan-cursor-store.port.js';
import { COLLECTIONS } from './collections.js';
import { decodeMoney, encodeMoney, guarded, isDuplicateKey } from './mongo-support.js';

/** Collection of scanner cursors, one document per scanner name. */
export const SCAN_CURSORS_COLLECTION = COLLECTIONS.scanCursors;

type Stored<T> = { [K in keyof T]: T[K] extends bigint ? string : T[K] };
interface CheckpointDocument {
  block: { number: number; hash: string };
  recent: { number: number; hash: string }[];
  final: number;
  unfinal: { number: number; hash: string; changes: Stored<BalanceChange>[]; deposits: Stored<BlockTransfer>[]; uncertain?: string[] }[];
  anchors: { address: string; at: number; balances: { contract: string | null; amount: string }[] }[];
}

interface ScanCursorDocument {
  _id: string;
  version?: number;
  owner?: string;
  until?: number;
  checkpoint?: CheckpointDocument | null;
  /** A cursor written before checkpoints existed: only the last processed block number. */
  block?: number;
}

/**
 * Scanner checkpoints in MongoDB: one document per scanner name; a claim and a save are each one conditional
 * update (owner/expiry and version in the filter), so the lease and the version fence hold across processes.
 * Amounts are decimal strings. A cursor from before checkpoints (`{block: n}`) resumes after block n.
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

  save(name: string, owner: string, version: number, checkpoint: ScanCheckpoint, until: number): Promise<number | null> {
    return guarded('scan cursor save', async () => {
      const result = await this.cursors.updateOne({ _id: name, owner, version },
        { $set: { checkpoint: toDocument(checkpoint), until }, $inc: { version: 1 }, $unset: { block: '' } });
      return result.matchedCount === 1 ? version + 1 : null;
    });
  }
}

function toDocument(c: ScanCheckpoint): CheckpointDocument {
  return {
    block: { number: c.block.number, hash: c.block.hash },
    recent: c.recent.map((b) => ({ number: b.number, hash: b.hash })),
    final: c.final,
    unfinal: c.unfinal.map((u) => ({
      number: u.number,
      hash: u.hash,
      changes: u.changes.map((ch) => ({ address: ch.address, contract: ch.contract, delta: encodeMoney(ch.delta) })),
      deposits: u.deposits.map((d) => ({ ...d, amount: encodeMoney(d.amount) })),
      uncertain: [...u.uncertain],
    })),
    anchors: c.anchors.map((a) => ({ address: a.address, at: a.at, balances: a.balances.map((b) => ({ contract: b.contract, amount: encodeMoney(b.amount) })) })),
  };
}

function fromDocument(doc: ScanCursorDocument): ScanCheckpoint | null {
  const c = doc.checkpoint;
  if (c === undefined || c === null) {
    // The old forward-only cursor: resume after its block; no hash is known, so that block's successor is not checked.
    return typeof doc.block === 'number' ? { block: { number: doc.block, hash: '' }, recent: [], final: doc.block, unfinal: [], anchors: [] } : null;
  }
  return {
    block: { number: c.block.number, hash: c.block.hash },
    recent: c.recent.map((b) => ({ number: b.number, hash: b.hash })),
    final: c.final,
    unfinal: c.unfinal.map((u) => ({
      number: u.number,
      hash: u.hash,
      changes: u.changes.map((ch) => ({ address: ch.address, contract: ch.contract, delta: decodeMoney(ch.delta, 'scan change') })),
      deposits: u.deposits.map((d) => ({
        id: d.id, txid: d.txid, contract: d.contract, internal: d.internal, from: d.from, to: d.to, amount: decodeMoney(d.amount, 'scan deposit'),
      })),
      uncertain: u.uncertain ?? [],
    })),
    anchors: c.anchors.map((a) => ({
      address: a.address, at: a.at, balances: a.balances.map((b) => ({ contract: b.contract, amount: decodeMoney(b.amount, 'scan anchor') })),
    })),
  };
}
