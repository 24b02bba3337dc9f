import type { Millis, UserId } from './common.js';

/**
 * What an audit entry records (issue #26 item 5). The list is the vocabulary of the log: a new kind of event is
 * added here (and to docs/integration.md), never invented at a call site.
 */
export const AUDIT_ACTIONS = [
  'auth.login',
  'auth.login_failed',
  'auth.password_reset',
  'auth.2fa_setup',
  'auth.2fa_enabled',
  'auth.2fa_disabled',
  'auth.2fa_failed',
  'auth.2fa_recovery_used',
  'auth.locked',
  'api_token.created',
  'api_token.revoked',
  'api_token.expiry_set',
  'webhook.url_changed',
  'webhook.secret_changed',
  'webhook.url_reviewed',
  'policy.changed',
  'policy.allow_list_added',
  'policy.allow_list_removed',
  'policy.change_requested',
  'policy.change_applied',
  'policy.change_cancelled',
  'member.invited',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'withdrawal.requested',
  'withdrawal.refused',
  'withdrawal.approval_requested',
  'withdrawal.approved',
  'withdrawal.denied',
  'withdrawal.cancelled',
  // Issue #35 item 8: the rest of what changes an account or moves its money.
  'config.changed',
  'subscription.activated',
  'staking.requested',
  'withdrawal.completed',
  'withdrawal.failed',
  'withdrawal.rejected',
  // Issue #35 item 8, the rest: staking outcomes, and what a Developer API token (or a session) creates or disables.
  'staking.completed',
  'staking.failed',
  'staking.rejected',
  'collection.requested',
  'wallet.created',
  'cashier_token.created',
  'cashier_token.disabled',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acted: the account's own session, one of its API tokens, the platform admin, an approver, or the system. */
export interface AuditActor {
  readonly kind: 'user' | 'api_token' | 'admin' | 'approver' | 'system';
  /** The token id, approver URL host, etc.; null when the kind says it all. Never a secret. */
  readonly id: string | null;
}

/** Flat facts about the event (command_no, amount as an integer string, token id, ...). Never a secret. */
export type AuditDetail = Readonly<Record<string, string | number | boolean | null>>;

/** What a caller records; the chain fields (seq, prevHash, hash) and the time are added when it is appended. */
export interface AuditEvent {
  readonly userId: UserId;
  readonly action: AuditAction;
  readonly actor: AuditActor;
  readonly detail?: AuditDetail;
}

/**
 * One entry of an account's append-only, hash-chained log. `seq` counts from 1 per account without gaps; `prevHash`
 * is the previous entry's `hash` (AUDIT_GENESIS_HASH for seq 1); `hash` is SHA-256 over the canonical encoding of
 * every other field (core/domain/audit-chain.ts).
 */
export interface AuditEntry {
  readonly userId: UserId;
  readonly seq: number;
  readonly at: Millis;
  readonly action: AuditAction;
  readonly actor: AuditActor;
  readonly detail: AuditDetail;
  readonly prevHash: string;
  readonly hash: string;
}
