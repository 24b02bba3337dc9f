import type { EncryptedEnvelope, Millis, UserId, Versioned } from './common.js';
import type { TeamChange } from '../team-changes.js';

/**
 * The limits of one asset (issue #26 item 1); null means no limit of that kind. Amounts in the asset's smallest unit.
 * - `maxAmount24h`: what the withdrawals counted in the last rolling 24 h may add up to, this one included;
 * - `maxCount1h`: how many withdrawals may be counted in the last rolling hour, this one included (0 freezes the asset);
 * - `approvalThreshold`: a withdrawal of MORE than this waits for the account's approver (0: every one does).
 */
export interface AssetLimits {
  readonly maxAmount24h: bigint | null;
  readonly maxCount1h: number | null;
  readonly approvalThreshold: bigint | null;
}

/**
 * Where approvals are asked (issue #26 item 2): the URL goes through the same syntax, address and review rules as
 * webhook_url (the same field names as DeveloperConfig's review state), and requests and answers are signed with the
 * approval secret (AES-256-GCM at rest, never returned).
 */
export interface ApprovalEndpoint {
  /** The approved URL approvals are asked at, or null. */
  readonly url: string | null;
  readonly pendingUrl: string | null;
  readonly pendingSince: Millis | null;
  readonly verifiedAt: Millis | null;
  readonly reviewNote: string | null;
  readonly secret: EncryptedEnvelope | null;
  /** How long a withdrawal waits for an approval before it is REJECTED. */
  readonly timeoutMinutes: number;
}

/** An account's withdrawal policy (one per user; absent: nothing is restricted). */
export interface WithdrawalPolicy extends Versioned {
  readonly userId: UserId;
  /** Only destinations on the allow-list, past their cooling-off delay, may be paid. */
  readonly allowListOnly: boolean;
  /** Asset symbol -> its limits; an asset not listed is not limited. */
  readonly limits: Readonly<Record<string, AssetLimits>>;
  readonly approval: ApprovalEndpoint;
  readonly updatedAt: Millis;
  /** Loosenings waiting to take effect (issue #35 item 3; core/domain/policy-change.ts); absent: none. */
  readonly pendingChanges?: readonly PendingPolicyChange[];
  /**
   * Until then only destinations on the allow-list past their active_from may be paid, whatever allow_list_only says:
   * set POLICY_CHANGE_DELAY_H ahead by a password reset or a two-factor change (issue #35 item 3). Absent or null: no hold.
   */
  readonly newDestinationsHeldUntil?: Millis | null;
}

/** A destination the account may pay once `activeFrom` has passed (WITHDRAWAL_ALLOWLIST_DELAY_H after it was added). */
export interface AllowListEntry {
  readonly userId: UserId;
  readonly address: string;
  readonly label: string | null;
  readonly createdAt: Millis;
  readonly activeFrom: Millis;
}

/**
 * The approval sub-state of a PENDING withdrawal (spec statuses unchanged: the command stays PENDING meanwhile);
 * `cancelled`: the platform cancelled the withdrawal while it awaited its approver (admin cancel).
 */
export type ApprovalState = 'awaiting' | 'approved' | 'denied' | 'expired' | 'cancelled';

/** What a withdrawal above its approval threshold carries on the command. */
export interface CommandApproval {
  readonly state: ApprovalState;
  /** When the command stops waiting: REJECTED with APPROVAL-TIMEOUT unless approved by then. */
  readonly deadline: Millis;
  /** Requests sent to the approver so far. */
  readonly attempts: number;
  readonly lastAttemptAt: Millis | null;
  /** Why the last answer did not decide (no 2xx, unsigned, another request's, another amount ...); null: none yet. */
  readonly lastRefusal: string | null;
  readonly decidedAt: Millis | null;
  /**
   * The user who requested it (issue #35 item 2: the member acting, or the account's owner); absent on withdrawals
   * recorded before teams, which read as requested by the account itself.
   */
  readonly requestedBy?: UserId | null;
  /** The member who approved or denied it through the API; null or absent when the machine approver decided. */
  readonly decidedBy?: UserId | null;
}

/**
 * A loosening waits; a tightening is immediate (issue #35 item 3). What a `PUT /policies/withdrawal` asks for, as a
 * patch of the fields sent: absent fields stay.
 */
export interface PolicyPatch {
  readonly allowListOnly?: boolean;
  /** The whole limits map (replaces the current one). */
  readonly limits?: Readonly<Record<string, AssetLimits>>;
  /** The approval URL as sent, normalised; '' removes it with its secret. */
  readonly approvalUrl?: string;
  /** A new approval secret (encrypted): only present when it differs from the current one. */
  readonly approvalSecret?: EncryptedEnvelope;
  readonly approvalTimeoutMinutes?: number;
}

/** A loosening waiting for its delay (a solo owner) or, later, another admin's approval. Kept on the policy. */
export interface PendingPolicyChange {
  /** Unique within the account: the policy version at which it was requested. */
  readonly changeId: string;
  readonly requestedAt: Millis;
  /** When it takes effect by itself (requestedAt + POLICY_CHANGE_DELAY_H). */
  readonly effectiveAt: Millis;
  /** The loosening part of the request; applied on the policy as it stands at effectiveAt. */
  readonly patch: PolicyPatch;
  /** What it loosens: `allow_list_only`, `limits.<SYMBOL>.<field>`, `approval_url`, `approval_secret`. */
  readonly loosens: readonly string[];
  /** The user who asked for it (a member, or the owner; issue #35): never its approver. Absent on older records: the owner. */
  readonly requestedBy?: UserId | null;
  /**
   * A team change instead of a policy patch (issue #35 item 3: a member with money rights, a role raised, 2FA off);
   * its `patch` is empty. Absent: a change of the policy itself.
   */
  readonly team?: TeamChange;
}
