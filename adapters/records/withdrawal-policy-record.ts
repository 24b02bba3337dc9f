import type { EncryptedEnvelope } from '../../core/domain/model/common.js';
import type {
  AllowListEntry, ApprovalState, AssetLimits, CommandApproval, PendingPolicyChange, PolicyPatch, WithdrawalPolicy,
} from '../../core/domain/model/withdrawal-policy.js';
import type { TeamChange } from '../../core/domain/team-changes.js';
import { decodeOptionalMoney, encodeOptionalMoney, nullable } from './record-support.js';
import { describeRecord } from './record-descriptor.js';

/** One asset's limits as stored; a list of entries so that no caller-chosen symbol ever becomes a field name. */
export interface StoredAssetLimits {
  symbol: string;
  maxAmount24h: string | null;
  maxCount1h: number | null;
  approvalThreshold: string | null;
}

/** `withdrawal_policies` (`id` is the user id): the policy with its approval endpoint flattened beside it. */
export interface StoredWithdrawalPolicy {
  id: number;
  allowListOnly: boolean;
  limits: StoredAssetLimits[];
  approvalUrl: string | null;
  approvalPendingUrl: string | null;
  approvalPendingSince: number | null;
  approvalVerifiedAt: number | null;
  approvalReviewNote: string | null;
  approvalSecret: EncryptedEnvelope | null;
  approvalTimeoutMinutes: number;
  updatedAt: number;
  version: number;
  /** Loosenings waiting to take effect (issue #35 item 3); absent on a policy stored before them: none. */
  pendingChanges?: StoredPendingPolicyChange[];
  /** Until when new destinations are held (a password reset or 2FA change); absent or null: no hold. */
  heldUntil?: number | null;
}

/** A pending policy change as stored: its patch with amounts as strings and limits as a list. */
export interface StoredPendingPolicyChange {
  changeId: string;
  /** Absent on records written before teams (issue #35). */
  requestedBy?: number | null;
  requestedAt: number;
  effectiveAt: number;
  loosens: string[];
  /** A team change (issue #35 item 3), stored as the domain writes it (numbers and strings only); absent: a policy change. */
  team?: TeamChange;
  patch: {
    allowListOnly?: boolean;
    limits?: StoredAssetLimits[];
    approvalUrl?: string;
    approvalSecret?: EncryptedEnvelope;
    approvalTimeoutMinutes?: number;
  };
}

/** An allow-list entry as stored (key: userId + address). */
export interface StoredAllowListEntry {
  userId: number;
  address: string;
  label: string | null;
  createdAt: number;
  activeFrom: number;
}

/** A command's approval sub-state as stored (beside the command, in its own field). */
export interface StoredCommandApproval {
  state: ApprovalState;
  deadline: number;
  attempts: number;
  lastAttemptAt: number | null;
  lastRefusal: string | null;
  decidedAt: number | null;
  /** Absent on records written before teams (issue #35 item 2). */
  requestedBy?: number | null;
  decidedBy?: number | null;
}

function toStoredLimits(limits: Readonly<Record<string, AssetLimits>>): StoredAssetLimits[] {
  return Object.entries(limits).map(([symbol, l]) => ({
    symbol, maxAmount24h: encodeOptionalMoney(l.maxAmount24h), maxCount1h: l.maxCount1h, approvalThreshold: encodeOptionalMoney(l.approvalThreshold),
  }));
}

function fromStoredLimits(limits: readonly StoredAssetLimits[]): Record<string, AssetLimits> {
  return Object.fromEntries(limits.map((l) => [l.symbol, {
    maxAmount24h: decodeOptionalMoney(l.maxAmount24h, 'limits maxAmount24h'), maxCount1h: nullable(l.maxCount1h),
    approvalThreshold: decodeOptionalMoney(l.approvalThreshold, 'limits approvalThreshold'),
  }]));
}

export function toStoredPendingChange(change: PendingPolicyChange): StoredPendingPolicyChange {
  const p = change.patch;
  return {
    changeId: change.changeId, requestedAt: change.requestedAt, effectiveAt: change.effectiveAt, loosens: [...change.loosens],
    ...(change.requestedBy == null ? {} : { requestedBy: change.requestedBy }),
    ...(change.team === undefined ? {} : { team: { ...change.team } }),
    patch: {
      ...(p.allowListOnly === undefined ? {} : { allowListOnly: p.allowListOnly }),
      ...(p.limits === undefined ? {} : { limits: toStoredLimits(p.limits) }),
      ...(p.approvalUrl === undefined ? {} : { approvalUrl: p.approvalUrl }),
      ...(p.approvalSecret === undefined ? {} : { approvalSecret: { ...p.approvalSecret } }),
      ...(p.approvalTimeoutMinutes === undefined ? {} : { approvalTimeoutMinutes: p.approvalTimeoutMinutes }),
    },
  };
}

export function fromStoredPendingChange(doc: StoredPendingPolicyChange): PendingPolicyChange {
  const p = doc.patch;
  const patch: PolicyPatch = {
    ...(p.allowListOnly == null ? {} : { allowListOnly: p.allowListOnly }),
    ...(p.limits == null ? {} : { limits: fromStoredLimits(p.limits) }),
    ...(p.approvalUrl == null ? {} : { approvalUrl: p.approvalUrl }),
    ...(p.approvalSecret == null ? {} : { approvalSecret: p.approvalSecret }),
    ...(p.approvalTimeoutMinutes == null ? {} : { approvalTimeoutMinutes: p.approvalTimeoutMinutes }),
  };
  return {
    changeId: doc.changeId, requestedAt: doc.requestedAt, effectiveAt: doc.effectiveAt, loosens: [...doc.loosens], patch,
    ...(doc.requestedBy == null ? {} : { requestedBy: doc.requestedBy }),
    ...(doc.team == null ? {} : { team: { ...doc.team } }),
  };
}

export function toStoredWithdrawalPolicy(policy: WithdrawalPolicy): StoredWithdrawalPolicy {
  const a = policy.approval;
  return {
    id: policy.userId,
    allowListOnly: policy.allowListOnly,
    limits: toStoredLimits(policy.limits),
    approvalUrl: a.url, approvalPendingUrl: a.pendingUrl, approvalPendingSince: a.pendingSince, approvalVerifiedAt: a.verifiedAt,
    approvalReviewNote: a.reviewNote, approvalSecret: a.secret === null ? null : { ...a.secret }, approvalTimeoutMinutes: a.timeoutMinutes,
    updatedAt: policy.updatedAt,
    version: policy.version,
    pendingChanges: (policy.pendingChanges ?? []).map(toStoredPendingChange),
    heldUntil: policy.newDestinationsHeldUntil ?? null,
  };
}

export function fromStoredWithdrawalPolicy(doc: StoredWithdrawalPolicy): WithdrawalPolicy {
  return {
    userId: doc.id,
    allowListOnly: doc.allowListOnly,
    limits: fromStoredLimits(doc.limits),
    approval: {
      url: nullable(doc.approvalUrl), pendingUrl: nullable(doc.approvalPendingUrl), pendingSince: nullable(doc.approvalPendingSince),
      verifiedAt: nullable(doc.approvalVerifiedAt), reviewNote: nullable(doc.approvalReviewNote), secret: nullable(doc.approvalSecret),
      timeoutMinutes: doc.approvalTimeoutMinutes,
    },
    updatedAt: doc.updatedAt,
    version: doc.version,
    ...(doc.pendingChanges == null || doc.pendingChanges.length === 0 ? {} : { pendingChanges: doc.pendingChanges.map(fromStoredPendingChange) }),
    ...(doc.heldUntil == null ? {} : { newDestinationsHeldUntil: doc.heldUntil }),
  };
}

export function toStoredAllowListEntry(entry: AllowListEntry): StoredAllowListEntry {
  return { userId: entry.userId, address: entry.address, label: entry.label, createdAt: entry.createdAt, activeFrom: entry.activeFrom };
}

export function fromStoredAllowListEntry(doc: StoredAllowListEntry): AllowListEntry {
  return { userId: doc.userId, address: doc.address, label: nullable(doc.label), createdAt: doc.createdAt, activeFrom: doc.activeFrom };
}

export function toStoredApproval(approval: CommandApproval | null | undefined): StoredCommandApproval | null {
  if (approval == null) return null;
  const { requestedBy, decidedBy, ...rest } = approval;
  return { ...rest, ...(requestedBy == null ? {} : { requestedBy }), ...(decidedBy == null ? {} : { decidedBy }) };
}

export function fromStoredApproval(doc: StoredCommandApproval | null | undefined): CommandApproval | null {
  return doc == null ? null : {
    state: doc.state, deadline: doc.deadline, attempts: doc.attempts, lastAttemptAt: nullable(doc.lastAttemptAt),
    lastRefusal: nullable(doc.lastRefusal), decidedAt: nullable(doc.decidedAt),
    ...(doc.requestedBy == null ? {} : { requestedBy: doc.requestedBy }), ...(doc.decidedBy == null ? {} : { decidedBy: doc.decidedBy }),
  };
}

/** Withdrawal policies, one per user; limits, secret and pending changes as JSONB (none pending: an empty list). */
export const WITHDRAWAL_POLICY_RECORD = describeRecord({
  name: 'withdrawal policy', table: 'withdrawal_policies', collection: 'withdrawal_policies',
  encode: toStoredWithdrawalPolicy, decode: fromStoredWithdrawalPolicy,
  fields: {
    id: 'user_id', allowListOnly: 'allow_list_only', limits: { column: 'limits', codec: 'jsonb' }, approvalUrl: 'approval_url',
    approvalPendingUrl: 'approval_pending_url', approvalPendingSince: 'approval_pending_since',
    approvalVerifiedAt: 'approval_verified_at', approvalReviewNote: 'approval_review_note',
    approvalSecret: { column: 'approval_secret', codec: 'jsonb' }, approvalTimeoutMinutes: 'approval_timeout_minutes',
    updatedAt: 'updated_at', version: 'version', pendingChanges: { column: 'pending_changes', codec: 'jsonb', absent: () => [] },
    heldUntil: 'held_until',
  },
});

/**
 * Allow-list entries, keyed by user and address (the table's primary key, in its order); MongoDB's `_id` joins the
 * two with U+0000, as the collection stored it before descriptors.
 */
export const ALLOW_LIST_ENTRY_RECORD = describeRecord({
  name: 'allow-list entry', table: 'allow_list_entries', collection: 'allow_list_entries',
  encode: toStoredAllowListEntry, decode: fromStoredAllowListEntry,
  key: ['userId', 'address'], documentId: ({ userId, address }) => `${userId}\u0000${address}`,
  fields: { userId: 'user_id', address: 'address', label: 'label', createdAt: 'created_at', activeFrom: 'active_from' },
});
