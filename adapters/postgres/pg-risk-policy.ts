import type pg from 'pg';
import type { RiskEntry, RiskEntryKind, RiskPolicy, RiskSubject } from '../../core/ports/risk-policy.port.js';
import { RISK_ENTRY_RECORD } from '../records/risk-record.js';
import { guarded, type Row } from './pg-support.js';
import { PgTable } from './pg-table.js';

/** `risk_entries` from its descriptor; `inserted_seq` (the listing order, set by the first deny) is the table's own. */
const ENTRIES = new PgTable(RISK_ENTRY_RECORD);

/** The platform deny-list: a user id, the acting address or the destination address can be listed. */
export class PgRiskPolicy implements RiskPolicy {
  constructor(private readonly pool: pg.Pool) {}

  check(subject: RiskSubject): ReturnType<RiskPolicy['check']> {
    return guarded('risk check', async () => {
      const candidates: [RiskEntryKind, string][] = [['user', String(subject.userId)], ['address', subject.address]];
      if (subject.toAddress !== undefined) candidates.push(['address', subject.toAddress]);
      const { rows } = await this.pool.query(
        `SELECT ${ENTRIES.columns} FROM risk_entries WHERE (kind, value) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
        [candidates.map(([kind]) => kind), candidates.map(([, value]) => value)],
      );
      const found = (rows as Row[]).map((row) => ENTRIES.fromRow(row));
      // The first candidate in the other stores' order decides the reason.
      for (const [kind, value] of candidates) {
        const entry = found.find((e) => e.kind === kind && e.value === value);
        if (entry !== undefined) return { blocked: true, reason: entry.reason ?? `${entry.kind} is on the deny-list` } as const;
      }
      return { blocked: false } as const;
    });
  }

  deny(entry: RiskEntry): Promise<void> {
    return guarded('risk deny', async () => {
      // One upsert: concurrent first denies of one entry leave one row, and a repeated deny keeps its listing place.
      await this.pool.query(
        `INSERT INTO risk_entries (kind, value, reason) VALUES ($1, $2, $3)
         ON CONFLICT (kind, value) DO UPDATE SET reason = EXCLUDED.reason`,
        [entry.kind, entry.value, entry.reason],
      );
    });
  }

  allow(kind: RiskEntryKind, value: string): Promise<boolean> {
    return guarded('risk allow', () => ENTRIES.delete(this.pool, { kind, value }));
  }

  list(): Promise<RiskEntry[]> {
    return guarded('risk list', () => ENTRIES.select(this.pool, 'TRUE', [], 'inserted_seq'));
  }
}
