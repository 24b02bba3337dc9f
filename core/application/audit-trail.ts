import { sealAuditEntry } from '../domain/audit-chain.js';
import { ConcurrencyConflict } from '../domain/errors.js';
import type { AuditEntry, AuditEvent } from '../domain/model/audit.js';
import type { ResolvedDeps } from './deps.js';
import { actingMember, requestOrigin } from './acting-member.js';

/** The ports AuditTrail touches; `recordWith` needs the unit of work (every use case that records an action has one). */
export type AuditTrailDeps = Pick<ResolvedDeps, 'auditLog' | 'clock'> & Partial<Pick<ResolvedDeps, 'uow' | 'members'>>;

/**
 * Tries before an append gives up: each failed try means another append of the same account won the seq in between,
 * so this many only runs out under a burst of that many simultaneous events of one account.
 */
const MAX_APPEND_TRIES = 50;

/**
 * Records security-relevant events in the account's hash-chained audit log (issue #26 item 5; decision 130).
 * An append reads the head, seals the next entry on it and inserts it at head.seq + 1; the store refuses a taken seq
 * atomically, so two appends at once never fork the chain: the loser reads the new head and seals again.
 *
 * An action that writes to the store is recorded with `recordWith`: the action's writes and its entries land in one
 * atomic scope of the store (UnitOfWork.atomically; decision 144), so a crash never leaves an action without its
 * entry nor an entry without its action. `record` alone is for events whose entry is their only write (a refused
 * login, a refused withdrawal) and for the worker's approval events, appended before the step's outcome is saved.
 */
export class AuditTrail {
  constructor(private readonly deps: AuditTrailDeps) {}

  /**
   * Runs `action`, then appends the events `eventsOf` makes from its result, all in one atomic scope of the store:
   * either the action's writes and its entries are stored, or none of them. A throw of the action, or of an append,
   * leaves nothing on a durable store. Keep `action` to store writes (no mail, no outbound call): it holds a
   * connection in a transaction.
   */
  recordWith<T>(action: () => Promise<T>, eventsOf: (result: T) => AuditEvent | readonly AuditEvent[]): Promise<T> {
    const uow = this.deps.uow;
    if (uow === undefined) throw new TypeError('AuditTrail.recordWith needs the unit of work (deps.uow)');
    return uow.atomically(async () => {
      const result = await action();
      const events = eventsOf(result);
      for (const event of Array.isArray(events) ? events : [events as AuditEvent]) await this.record(event);
      return result;
    });
  }

  /**
   * Appends the event; returns the stored entry. Throws ConcurrencyConflict only after MAX_APPEND_TRIES lost races.
   * A team member's own sign-in and second-factor entries (`auth.*`) are also appended to the account's log, naming
   * the member as the actor (issue #35 item 8), so the account sees who signed in as whom; in the same scope.
   */
  async record(given: AuditEvent): Promise<AuditEntry> {
    // In a team account the member acting names the entry (issue #35 item 1): a session's entry says which person it was.
    const event = withOrigin(given);
    const entry = await this.append(event);
    const standing = event.action.startsWith('auth.') ? await this.deps.members?.standingOf(event.userId) : undefined;
    if (standing != null && standing.accountId !== event.userId) {
      await this.append({ ...event, userId: standing.accountId, actor: { kind: 'user', id: String(event.userId) }, detail: { ...event.detail, member_role: standing.role } });
    }
    return entry;
  }

  private async append(event: AuditEvent): Promise<AuditEntry> {
    for (let attempt = 0; attempt < MAX_APPEND_TRIES; attempt += 1) {
      const head = await this.deps.auditLog.head(event.userId);
      const entry = sealAuditEntry(head, event, this.deps.clock.now());
      if (await this.deps.auditLog.insert(entry)) return entry;
    }
    throw new ConcurrencyConflict('audit log', String(event.userId));
  }
}

/**
 * The event as the request that caused it tells it (issue #35 item 8): a session's entry names the member acting (in a
 * team) or the caller the host authenticated (a solo session's user, an API token), where the call site left the
 * actor as an anonymous user; and the request's client address and user agent join the detail (the hash encoding
 * covers the detail, so they are sealed with the rest; a key the call site set itself wins).
 */
function withOrigin(given: AuditEvent): AuditEvent {
  const member = actingMember();
  const origin = requestOrigin();
  const anonymous = given.actor.kind === 'user' && given.actor.id === null;
  const actor = !anonymous ? given.actor
    : member !== undefined ? { kind: 'user' as const, id: String(member.userId) }
      : origin?.actor ?? given.actor;
  if (origin === undefined) return actor === given.actor ? given : { ...given, actor };
  return { ...given, actor, detail: { client_address: origin.clientAddress, user_agent: origin.userAgent, ...given.detail } };
}
