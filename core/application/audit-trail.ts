import { sealAuditEntry } from '../domain/audit-chain.js';
import { ConcurrencyConflict } from '../domain/errors.js';
import type { AuditEntry, AuditEvent } from '../domain/model/audit.js';
import type { ResolvedDeps } from './deps.js';

/** The ports AuditTrail touches. */
export type AuditTrailDeps = Pick<ResolvedDeps, 'auditLog' | 'clock'>;

/**
 * Tries before an append gives up: each failed try means another append of the same account won the seq in between,
 * so this many only runs out under a burst of that many simultaneous events of one account.
 */
const MAX_APPEND_TRIES = 50;

/**
 * Records security-relevant events in the account's hash-chained audit log (issue #26 item 5; decision 130).
 * An append reads the head, seals the next entry on it and inserts it at head.seq + 1; the store refuses a taken seq
 * atomically, so two appends at once never fork the chain: the loser reads the new head and seals again.
 * Call it after the action it records has happened (a refused action is recorded as such, e.g. auth.login_failed).
 */
export class AuditTrail {
  constructor(private readonly deps: AuditTrailDeps) {}

  /** Appends the event; returns the stored entry. Throws ConcurrencyConflict only after MAX_APPEND_TRIES lost races. */
  async record(event: AuditEvent): Promise<AuditEntry> {
    for (let attempt = 0; attempt < MAX_APPEND_TRIES; attempt += 1) {
      const head = await this.deps.auditLog.head(event.userId);
      const entry = sealAuditEntry(head, event, this.deps.clock.now());
      if (await this.deps.auditLog.insert(entry)) return entry;
    }
    throw new ConcurrencyConflict('audit log', String(event.userId));
  }
}
