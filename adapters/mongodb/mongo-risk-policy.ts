import type { Db } from 'mongodb';
import type { RiskEntry, RiskEntryKind, RiskPolicy, RiskSubject } from '../../core/ports/risk-policy.port.js';
import { RISK_ENTRY_RECORD } from '../records/risk-record.js';
import { guarded, insertionStamp, isDuplicateKey } from './mongo-support.js';
import { MongoTable, type MongoTableOf } from './mongo-table.js';

/**
 * The platform deny-list: a user id, the acting address or the destination address can be listed. `risk_entries`
 * from its descriptor (`_id` is `kind:value`); `insertedSeq` keeps the listing in the order entries were first added.
 */
export class MongoRiskPolicy implements RiskPolicy {
  private readonly entries: MongoTableOf<typeof RISK_ENTRY_RECORD>;

  constructor(db: Db) {
    this.entries = new MongoTable(db, RISK_ENTRY_RECORD);
  }

  check(subject: RiskSubject): ReturnType<RiskPolicy['check']> {
    return guarded('risk check', async () => {
      const candidates: RiskEntry[] = [
        { kind: 'user', value: String(subject.userId), reason: null }, { kind: 'address', value: subject.address, reason: null },
      ];
      if (subject.toAddress !== undefined) candidates.push({ kind: 'address', value: subject.toAddress, reason: null });
      const found = await this.entries.find({ _id: { $in: candidates.map((c) => this.entries.idOf(c)) } });
      // The first candidate in the memory adapter's order decides the reason.
      for (const { kind, value } of candidates) {
        const entry = found.find((e) => e.kind === kind && e.value === value);
        if (entry !== undefined) return { blocked: true, reason: entry.reason ?? `${entry.kind} is on the deny-list` } as const;
      }
      return { blocked: false } as const;
    });
  }

  deny(entry: RiskEntry): Promise<void> {
    return guarded('risk deny', async () => {
      // An upsert that keeps the first deny's place: the descriptor's document, with insertedSeq set on insert only.
      const { _id, ...fields } = this.entries.toDocument(entry);
      const write = () => this.entries.collection.updateOne(
        { _id }, { $set: fields, $setOnInsert: { insertedSeq: insertionStamp() } }, { upsert: true },
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
    return guarded('risk allow', () => this.entries.delete({ kind, value }));
  }

  list(): Promise<RiskEntry[]> {
    return guarded('risk list', () => this.entries.find({}, { insertedSeq: 1 }));
  }
}
