import type { Collection, Db } from 'mongodb';
import type { RiskEntry, RiskEntryKind, RiskPolicy, RiskSubject } from '../../core/ports/risk-policy.port.js';
import { COLLECTIONS } from './collections.js';
import { guarded, insertionStamp, isDuplicateKey, nullable } from './mongo-support.js';

/** `risk_entries`: `_id` is `${kind}:${value}`; `insertedSeq` keeps the listing in the order entries were added. */
export interface RiskEntryDocument {
  _id: string;
  kind: RiskEntryKind;
  value: string;
  reason: string | null;
  insertedSeq: number;
}

/** The `_id` of a deny-list entry: one per (kind, value). */
export function riskEntryKey(kind: RiskEntryKind, value: string): string {
  return `${kind}:${value}`;
}

/** Stored entry -> port value. */
export function fromRiskEntryDocument(doc: RiskEntryDocument): RiskEntry {
  return { kind: doc.kind, value: doc.value, reason: nullable(doc.reason) };
}

/** The platform deny-list: a user id, the acting address or the destination address can be listed. */
export class MongoRiskPolicy implements RiskPolicy {
  private readonly entries: Collection<RiskEntryDocument>;

  constructor(db: Db) {
    this.entries = db.collection<RiskEntryDocument>(COLLECTIONS.riskEntries);
  }

  check(subject: RiskSubject): ReturnType<RiskPolicy['check']> {
    return guarded('risk check', async () => {
      const candidates = [riskEntryKey('user', String(subject.userId)), riskEntryKey('address', subject.address)];
      if (subject.toAddress !== undefined) candidates.push(riskEntryKey('address', subject.toAddress));
      const found = await this.entries.find({ _id: { $in: candidates } }).toArray();
      // The first candidate in the memory adapter's order decides the reason.
      for (const candidate of candidates) {
        const entry = found.find((doc) => doc._id === candidate);
        if (entry !== undefined) return { blocked: true, reason: entry.reason ?? `${entry.kind} is on the deny-list` } as const;
      }
      return { blocked: false } as const;
    });
  }

  deny(entry: RiskEntry): Promise<void> {
    return guarded('risk deny', async () => {
      const _id = riskEntryKey(entry.kind, entry.value);
      const write = () => this.entries.updateOne(
        { _id },
        { $set: { kind: entry.kind, value: entry.value, reason: entry.reason }, $setOnInsert: { insertedSeq: insertionStamp() } },
        { upsert: true },
      );
      try {
        await write();
      } catch (error) {
        // Two first-time upserts of one entry: the loser's update now finds the document.
        if (!isDuplicateKey(error)) throw error;
        await write();
      }
    });
  }

  allow(kind: RiskEntryKind, value: string): Promise<boolean> {
    return guarded('risk allow', async () => (await this.entries.deleteOne({ _id: riskEntryKey(kind, value) })).deletedCount === 1);
  }

  list(): Promise<RiskEntry[]> {
    return guarded('risk list', async () =>
      (await this.entries.find({}).sort({ insertedSeq: 1 }).toArray()).map(fromRiskEntryDocument));
  }
}
