import { DomainError } from '../domain/errors.js';
import { parsePageQuery, toItemsPage, type ItemsPage } from '../domain/pagination.js';
import { formatIsoTime } from '../domain/time.js';
import type { AuditActor, AuditDetail, AuditEntry } from '../domain/model/audit.js';
import type { UserId } from '../domain/model/common.js';
import { verifyStoredAuditChain } from './audit-verifier.js';
import type { ResolvedDeps } from './deps.js';
import { fieldsOf, parseIdParam } from './input.js';

/** One audit entry on the wire (GET /audit-log): the chain fields too, so a client can check the chain itself. */
export interface AuditEntryView {
  readonly seq: number;
  readonly at: string;
  readonly action: string;
  readonly actor: AuditActor;
  readonly detail: AuditDetail;
  readonly prev_hash: string;
  readonly hash: string;
}

/** The check of one account's chain (GET /audit-log/verify): its head, or the first entry that breaks it. */
export interface AuditVerificationView {
  readonly valid: boolean;
  readonly entries: number;
  /** The newest entry's seq and hash when valid (note them: a later check against them shows a truncation). */
  readonly head_seq: number | null;
  readonly head_hash: string | null;
  /** When not valid: the seq of the first entry that breaks the chain, and why. */
  readonly broken_at: number | null;
  readonly reason: string | null;
}

/** The account's audit log (issue #26 item 5): its own through a session, any account's through the admin API. */
export interface AuditService {
  /** query {page?, per_page?}: the caller's entries, newest first (paginated like GET /commands). */
  list(userId: UserId, query: unknown): Promise<ItemsPage<AuditEntryView>>;
  /** Checks the caller's whole chain. */
  verify(userId: UserId): Promise<AuditVerificationView>;
  /** As `list` for any account (admin); BIZ-USER-NOT-FOUND when the id names no account. */
  listOfUser(userId: string, query: unknown): Promise<ItemsPage<AuditEntryView>>;
  /** As `verify` for any account (admin); BIZ-USER-NOT-FOUND when the id names no account. */
  verifyOfUser(userId: string): Promise<AuditVerificationView>;
}

/** The ports the audit reads touch. */
export type AuditDeps = Pick<ResolvedDeps, 'auditLog' | 'accounts'>;

export function toAuditEntryView(entry: AuditEntry): AuditEntryView {
  return {
    seq: entry.seq, at: formatIsoTime(entry.at), action: entry.action, actor: { kind: entry.actor.kind, id: entry.actor.id },
    detail: { ...entry.detail }, prev_hash: entry.prevHash, hash: entry.hash,
  };
}

/** Reads and checks the audit chains; writing is AuditTrail's. */
export class AuditUseCases implements AuditService {
  constructor(private readonly deps: AuditDeps) {}

  async list(userId: UserId, query: unknown): Promise<ItemsPage<AuditEntryView>> {
    const page = parsePageQuery(fieldsOf(query, 'query'), 'standard');
    const found = await this.deps.auditLog.list(userId, page);
    return toItemsPage(found.items.map(toAuditEntryView), found.total, page.page, page.perPage);
  }

  async verify(userId: UserId): Promise<AuditVerificationView> {
    const report = await verifyStoredAuditChain(this.deps.auditLog, userId);
    return report.ok
      ? {
        valid: true, entries: report.count, head_seq: report.count === 0 ? null : report.head.seq,
        head_hash: report.count === 0 ? null : report.head.hash, broken_at: null, reason: null,
      }
      : { valid: false, entries: report.checked, head_seq: null, head_hash: null, broken_at: report.seq, reason: report.reason };
  }

  async listOfUser(userId: string, query: unknown): Promise<ItemsPage<AuditEntryView>> {
    return this.list(await this.existingUser(userId), query);
  }

  async verifyOfUser(userId: string): Promise<AuditVerificationView> {
    return this.verify(await this.existingUser(userId));
  }

  private async existingUser(raw: string): Promise<UserId> {
    const id = parseIdParam(raw, 'user_id');
    if (id === null || (await this.deps.accounts.findById(id)) === null) throw new DomainError('BIZ-USER-NOT-FOUND');
    return id;
  }
}
