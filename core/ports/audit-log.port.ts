import type { AuditEntry } from '../domain/model/audit.js';
import type { UserId } from '../domain/model/common.js';
import type { Page, PageRequest } from './page.js';

/**
 * The store of the per-account audit chains (issue #26 item 5). Append-only: no method updates or deletes an entry.
 * It stores entries as given; sealing (seq, prevHash, hash) is the core's rule (core/domain/audit-chain.ts) and the
 * retry on a taken seq is AuditTrail's (core/application/audit-trail.ts). Record events through AuditTrail, not here.
 */
export interface AuditLog {
  /** The account's entry with the highest seq, or null before its first. */
  head(userId: UserId): Promise<AuditEntry | null>;
  /**
   * Writes the entry unless the account already holds one at `entry.seq`: true when written, false (nothing written)
   * when that seq is taken. Atomic across processes: of concurrent inserts at one (userId, seq), exactly one is true.
   */
  insert(entry: AuditEntry): Promise<boolean>;
  /** One page of the account's entries, newest (highest seq) first, with the account's total. */
  list(userId: UserId, page: PageRequest): Promise<Page<AuditEntry>>;
  /** The account's entries with seq > afterSeq in ascending seq order, at most `limit` (the verifier reads by pages). */
  readChain(userId: UserId, afterSeq: number, limit: number): Promise<AuditEntry[]>;
  /** Ids of the accounts holding at least one entry, ascending, those > afterUserId, at most `limit`. */
  listAccounts(afterUserId: UserId, limit: number): Promise<UserId[]>;
}
