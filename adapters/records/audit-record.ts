import type { AuditAction, AuditActor, AuditDetail, AuditEntry } from '../../core/domain/model/audit.js';
import { describeRecord } from './record-descriptor.js';

/** An audit entry as the durable stores keep it (PostgreSQL columns, MongoDB fields). */
export interface StoredAuditEntry {
  readonly userId: number;
  readonly seq: number;
  readonly at: number;
  readonly action: string;
  readonly actorKind: string;
  readonly actorId: string | null;
  readonly detail: Record<string, string | number | boolean | null>;
  readonly prevHash: string;
  readonly hash: string;
}

export function toStoredAuditEntry(entry: AuditEntry): StoredAuditEntry {
  return {
    userId: entry.userId, seq: entry.seq, at: entry.at, action: entry.action, actorKind: entry.actor.kind,
    actorId: entry.actor.id, detail: { ...entry.detail }, prevHash: entry.prevHash, hash: entry.hash,
  };
}

/**
 * Stored -> domain without validating the action or actor kind: a tampered value must still be read so that the
 * chain check reports it (hash-mismatch) instead of the read failing.
 */
export function fromStoredAuditEntry(record: StoredAuditEntry): AuditEntry {
  return {
    userId: record.userId, seq: record.seq, at: record.at, action: record.action as AuditAction,
    actor: { kind: record.actorKind as AuditActor['kind'], id: record.actorId ?? null },
    detail: { ...record.detail } as AuditDetail, prevHash: record.prevHash, hash: record.hash,
  };
}

/**
 * Audit entries, keyed by account and seq (the primary key, in its order); MongoDB's `_id` is `userId:seq`, as the
 * collection stored it before descriptors. Only the plain part is derived: the mapping, the append as an insert-once
 * at the next seq, the reads. The chain (head -> seal -> append) is the core's, and MongoDB's account lock beside the
 * append stays hand-written. The table is append-only: no replace, no delete.
 */
export const AUDIT_ENTRY_RECORD = describeRecord({
  name: 'audit entry', table: 'audit_entries', collection: 'audit_entries',
  encode: toStoredAuditEntry, decode: fromStoredAuditEntry,
  key: ['userId', 'seq'], documentId: ({ userId, seq }) => `${userId}:${seq}`,
  fields: {
    userId: 'user_id', seq: 'seq', at: 'at', action: 'action', actorKind: 'actor_kind', actorId: 'actor_id',
    detail: { column: 'detail', codec: 'jsonb' }, prevHash: 'prev_hash', hash: 'hash',
  },
});
