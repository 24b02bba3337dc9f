import { createHash } from 'node:crypto';
import type { AuditDetail, AuditEntry, AuditEvent } from './model/audit.js';
import type { Millis } from './model/common.js';

/** The prevHash of an account's first entry. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);
/** Names the encoding below: a change of encoding is a new tag, so old entries still verify under theirs. */
const ENCODING_TAG = 'custody-audit-v1';

function sortedDetail(detail: AuditDetail): [string, string | number | boolean | null][] {
  return Object.keys(detail).sort().map((key) => [key, detail[key] ?? null]);
}

/**
 * The canonical encoding an entry's hash covers: a JSON array of every field but `hash`, in a fixed order, with the
 * detail's keys sorted (code-unit order). Arrays keep the fields apart, so no two different entries share an encoding.
 */
export function canonicalAuditEncoding(entry: Omit<AuditEntry, 'hash'>): string {
  return JSON.stringify([
    ENCODING_TAG, entry.userId, entry.seq, entry.at, entry.action, entry.actor.kind, entry.actor.id,
    sortedDetail(entry.detail), entry.prevHash,
  ]);
}

/** SHA-256 (lower-case hex) of the canonical encoding. */
export function auditEntryHash(entry: Omit<AuditEntry, 'hash'>): string {
  return createHash('sha256').update(canonicalAuditEncoding(entry), 'utf8').digest('hex');
}

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text every store keeps exactly (no U+0000, no lone surrogate: each becomes U+FFFD), so what was hashed is what is read. */
function storableText(value: string): string {
  return value.replace(UNSTORABLE, '\uFFFD');
}

function sealedDetail(detail: AuditDetail): Record<string, string | number | boolean | null> {
  const sealed: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(detail)) {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`audit detail ${key} is not a finite number`);
    sealed[storableText(key)] = typeof value === 'string' ? storableText(value) : value;
  }
  return sealed;
}

/**
 * The entry that follows `head` (null: the account's first) for the event, at time `at`. Text is made storable
 * first (see storableText); a non-finite number in the detail is a TypeError (it has no JSON form).
 */
export function sealAuditEntry(head: AuditEntry | null, event: AuditEvent, at: Millis): AuditEntry {
  const unsealed = {
    userId: event.userId,
    seq: head === null ? 1 : head.seq + 1,
    at,
    action: event.action,
    actor: { kind: event.actor.kind, id: event.actor.id === null ? null : storableText(event.actor.id) },
    detail: sealedDetail(event.detail ?? {}),
    prevHash: head === null ? AUDIT_GENESIS_HASH : head.hash,
  };
  return { ...unsealed, hash: auditEntryHash(unsealed) };
}

/** Why a chain does not verify, at the first entry that shows it. */
export type AuditBreak =
  | 'wrong-account' // an entry of another account inside this chain
  | 'sequence-gap' // seq is not the previous seq + 1 (a deletion, an insertion or a reorder)
  | 'broken-link' // prevHash is not the previous entry's hash
  | 'hash-mismatch' // the entry's own fields do not hash to its hash (a field was changed)
  | 'head-mismatch'; // the chain ends before or after the anchored head (a truncation)

export type AuditVerdict =
  | { readonly ok: true; readonly count: number; readonly headSeq: number; readonly headHash: string }
  | { readonly ok: false; readonly seq: number; readonly reason: AuditBreak };

/** The state of a chain read so far: checking one entry at a time lets a verifier stream a long chain. */
export interface AuditCursor {
  readonly seq: number;
  readonly hash: string;
}
export const AUDIT_CHAIN_START: AuditCursor = { seq: 0, hash: AUDIT_GENESIS_HASH };

/** Checks the next entry of account `userId` after `cursor`: the new cursor, or why the chain breaks there. */
export function checkNextAuditEntry(
  userId: number, cursor: AuditCursor, entry: AuditEntry,
): AuditCursor | { readonly seq: number; readonly reason: AuditBreak } {
  if (entry.userId !== userId) return { seq: entry.seq, reason: 'wrong-account' };
  if (entry.seq !== cursor.seq + 1) return { seq: entry.seq, reason: 'sequence-gap' };
  if (entry.prevHash !== cursor.hash) return { seq: entry.seq, reason: 'broken-link' };
  if (auditEntryHash(entry) !== entry.hash) return { seq: entry.seq, reason: 'hash-mismatch' };
  return { seq: entry.seq, hash: entry.hash };
}

/**
 * Verifies an account's whole chain in stored order. Without an anchor, only removing the newest entries goes
 * unseen (every other deletion leaves a gap); with `anchor` (a head noted earlier, e.g. by `npm run audit:verify`)
 * a truncation shows as head-mismatch too.
 */
export function verifyAuditChain(
  userId: number, entries: readonly AuditEntry[], anchor?: AuditCursor,
): AuditVerdict {
  let cursor = AUDIT_CHAIN_START;
  for (const entry of entries) {
    const next = checkNextAuditEntry(userId, cursor, entry);
    if ('reason' in next) return { ok: false, seq: next.seq, reason: next.reason };
    cursor = next;
  }
  if (anchor !== undefined) {
    const covered = entries[anchor.seq - 1];
    if (anchor.seq > cursor.seq || covered === undefined || covered.hash !== anchor.hash) {
      return { ok: false, seq: Math.min(anchor.seq, cursor.seq + 1), reason: 'head-mismatch' };
    }
  }
  return { ok: true, count: entries.length, headSeq: cursor.seq, headHash: cursor.hash };
}
