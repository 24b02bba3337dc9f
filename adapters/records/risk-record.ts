import type { RiskEntry, RiskEntryKind } from '../../core/ports/risk-policy.port.js';
import { describeRecord } from './record-descriptor.js';
import { nullable } from './record-support.js';

/** A deny-list entry as stored (key: kind + value). */
export interface StoredRiskEntry {
  kind: RiskEntryKind;
  value: string;
  reason: string | null;
}

export function toStoredRiskEntry(entry: RiskEntry): StoredRiskEntry {
  return { kind: entry.kind, value: entry.value, reason: entry.reason };
}

export function fromStoredRiskEntry(doc: StoredRiskEntry): RiskEntry {
  return { kind: doc.kind, value: doc.value, reason: nullable(doc.reason) };
}

/**
 * The platform deny-list, keyed by kind and value (the table's primary key, in its order); MongoDB's `_id` joins
 * them as `kind:value`, as the collection stored it before descriptors. The listing order (PostgreSQL's
 * `inserted_seq`, MongoDB's `insertedSeq`) is each store's own, set on the first deny only, outside the descriptor.
 */
export const RISK_ENTRY_RECORD = describeRecord({
  name: 'risk entry', table: 'risk_entries', collection: 'risk_entries',
  encode: toStoredRiskEntry, decode: fromStoredRiskEntry,
  key: ['kind', 'value'], documentId: ({ kind, value }) => `${kind}:${value}`,
  fields: { kind: 'kind', value: 'value', reason: 'reason' },
});
