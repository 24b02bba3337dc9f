import { COMMAND_STATUS, COMMAND_TYPE, type Command } from './model/command.js';
import type { Millis, UserId } from './model/common.js';
import type { AllowListEntry, AssetLimits, WithdrawalPolicy } from './model/withdrawal-policy.js';

/** The rolling windows of the velocity limits (issue #26 item 1). */
export const VELOCITY_AMOUNT_WINDOW_MS = 24 * 60 * 60_000;
export const VELOCITY_COUNT_WINDOW_MS = 60 * 60_000;

/** Default cooling-off delay of a new allow-list entry (WITHDRAWAL_ALLOWLIST_DELAY_H). */
export const DEFAULT_ALLOW_LIST_DELAY_MS = 24 * 60 * 60_000;
/** Default and bounds of approval_timeout_minutes. */
export const DEFAULT_APPROVAL_TIMEOUT_MINUTES = 60;
export const MAX_APPROVAL_TIMEOUT_MINUTES = 7 * 24 * 60;
/** Entries one account's allow-list may hold (a list is read on every policy view; keep it bounded). */
export const MAX_ALLOW_LIST_ENTRIES = 500;

export type DestinationRefusal = 'POLICY-DESTINATION-NOT-ALLOWED' | 'POLICY-DESTINATION-COOLING-OFF';
export type VelocityRefusal = 'POLICY-VELOCITY-COUNT-EXCEEDED' | 'POLICY-VELOCITY-AMOUNT-EXCEEDED';
/**
 * The store's answer to a withdrawal recorded without an approval whose amount, on top of the rolling 24 h total,
 * is above the approval threshold (issue #35 item 2): the caller records it again as awaiting its approval.
 */
export type ApprovalRefusal = 'POLICY-APPROVAL-REQUIRED';

/**
 * Whether `to` may be paid under the policy: with allow_list_only, only an entry whose active_from has passed
 * (`activeFrom <= now`); without it, any destination. `entry` is the allow-list's entry for `to`, or null.
 */
export function destinationRefusal(policy: Pick<WithdrawalPolicy, 'allowListOnly'> | null, entry: AllowListEntry | null, now: Millis): DestinationRefusal | null {
  if (policy === null || !policy.allowListOnly) return null;
  if (entry === null) return 'POLICY-DESTINATION-NOT-ALLOWED';
  return entry.activeFrom > now ? 'POLICY-DESTINATION-COOLING-OFF' : null;
}

/**
 * The key of `limits` whose entry is the default limit (issue #35 item 2): it applies to every asset without an entry
 * of its own, in that asset's smallest unit.
 */
export const DEFAULT_LIMITS_KEY = '*';

/** The limits of one asset: its own entry, else the default entry (`*`), else null (the policy does not limit it). */
export function limitsOf(policy: WithdrawalPolicy | null, assetSymbol: string): AssetLimits | null {
  if (policy === null) return null;
  if (Object.hasOwn(policy.limits, assetSymbol)) return policy.limits[assetSymbol]!;
  return Object.hasOwn(policy.limits, DEFAULT_LIMITS_KEY) ? policy.limits[DEFAULT_LIMITS_KEY]! : null;
}

/**
 * A withdrawal of `amount` waits for an approval when it, added to the counted withdrawals of the asset in the last
 * rolling 24 h (`total24h`, velocityTotals' amount24h; countsTowardVelocity decides what counts), is MORE than the
 * asset's approval threshold (issue #35 item 2): splitting an amount into parts below the threshold does not avoid
 * the approval. What was approved counts too: the threshold bounds what leaves in a day, not each request.
 */
export function needsApproval(limits: AssetLimits | null, amount: bigint, total24h = 0n): boolean {
  return limits !== null && limits.approvalThreshold !== null && total24h + amount > limits.approvalThreshold;
}

/**
 * A withdrawal's velocity check, judged by the store under the user's lock in the same transaction that records the
 * command (UnitOfWork ChangeSet.velocity), so parallel requests in any number of processes are counted exactly.
 */
export interface VelocityCharge {
  readonly userId: UserId;
  readonly assetSymbol: string;
  readonly amount: bigint;
  /** The new command's createdAt: the windows end here. */
  readonly at: Millis;
  readonly maxAmount24h: bigint | null;
  readonly maxCount1h: number | null;
  /**
   * The approval threshold the store judges with the 24 h total (needsApproval), for a withdrawal recorded WITHOUT an
   * approval: crossing it is refused with POLICY-APPROVAL-REQUIRED. Absent or null: nothing to judge (no threshold,
   * or the withdrawal already awaits its approval).
   */
  readonly approvalThreshold?: bigint | null;
}

/** What the user's counted withdrawals of the asset add up to in the two windows ending at the charge's `at`. */
export interface VelocityTotals {
  readonly amount24h: bigint;
  readonly count1h: number;
}

/**
 * The charge a withdrawal of `amount` makes under `limits` (null: nothing for the store to judge). `awaitsApproval`:
 * the withdrawal is recorded awaiting its approval, so the threshold is not judged again.
 */
export function velocityCharge(
  limits: AssetLimits | null, draft: Omit<VelocityCharge, 'maxAmount24h' | 'maxCount1h' | 'approvalThreshold'>, awaitsApproval = false,
): VelocityCharge | null {
  const approvalThreshold = awaitsApproval ? null : limits?.approvalThreshold ?? null;
  if (limits === null || (limits.maxAmount24h === null && limits.maxCount1h === null && approvalThreshold === null)) return null;
  return { ...draft, maxAmount24h: limits.maxAmount24h, maxCount1h: limits.maxCount1h, ...(approvalThreshold === null ? {} : { approvalThreshold }) };
}

/**
 * Whether a withdrawal counts toward the velocity limits: every WITHDRAWAL accepted, whatever became of it, except
 * those that provably sent nothing by a decision of the platform or the approver: REJECTED (risk control, a denied
 * or expired approval) and CANCELLED (only ever before a broadcast). A FAILED one counts: it may have been sent.
 */
export function countsTowardVelocity(command: Pick<Command, 'type' | 'status'>): boolean {
  return command.type === COMMAND_TYPE.WITHDRAWAL
    && command.status !== COMMAND_STATUS.REJECTED && command.status !== COMMAND_STATUS.CANCELLED;
}

/**
 * The totals from the user's commands (the reference every store's query must equal): counted withdrawals of the
 * asset whose createdAt is after `at - window` (a later createdAt, from a process whose clock runs ahead, counts too).
 */
export function velocityTotals(commands: Iterable<Command>, charge: Pick<VelocityCharge, 'userId' | 'assetSymbol' | 'at'>): VelocityTotals {
  let amount24h = 0n;
  let count1h = 0;
  for (const c of commands) {
    if (c.userId !== charge.userId || c.assetSymbol !== charge.assetSymbol || !countsTowardVelocity(c)) continue;
    if (c.createdAt > charge.at - VELOCITY_AMOUNT_WINDOW_MS) amount24h += c.lockedAmount;
    if (c.createdAt > charge.at - VELOCITY_COUNT_WINDOW_MS) count1h += 1;
  }
  return { amount24h, count1h };
}

/**
 * The limit the charge would break on top of the totals (the count first), or null when it fits; then, for a
 * withdrawal recorded without an approval, POLICY-APPROVAL-REQUIRED when the 24 h total crosses its threshold.
 */
export function velocityRefusal(totals: VelocityTotals, charge: VelocityCharge): VelocityRefusal | ApprovalRefusal | null {
  if (charge.maxCount1h !== null && totals.count1h + 1 > charge.maxCount1h) return 'POLICY-VELOCITY-COUNT-EXCEEDED';
  if (charge.maxAmount24h !== null && totals.amount24h + charge.amount > charge.maxAmount24h) return 'POLICY-VELOCITY-AMOUNT-EXCEEDED';
  const threshold = charge.approvalThreshold ?? null;
  if (threshold !== null && needsApproval({ maxAmount24h: null, maxCount1h: null, approvalThreshold: threshold }, charge.amount, totals.amount24h)) {
    return 'POLICY-APPROVAL-REQUIRED';
  }
  return null;
}

/**
 * What a refused withdrawal is told (issue #34): what each limit leaves now, and when this withdrawal would fit if
 * nothing else is withdrawn meanwhile.
 */
export interface VelocityRelief {
  /** max_amount_24h minus the counted total of the 24 h window, never below 0; null without that limit. */
  readonly amountLeft: bigint | null;
  /** max_count_1h minus the counted withdrawals of the hour, never below 0; null without that limit. */
  readonly countLeft: number | null;
  /**
   * The first moment from `charge.at` on at which the charge passes velocityRefusal, as counted withdrawals leave
   * their windows (one created at c counts until c + window); null when it never does (the amount alone is above
   * max_amount_24h, or max_count_1h is 0).
   */
  readonly fitsAt: Millis | null;
}

/** When enough of `counted` (oldest first) has left a window of `windowMs` for `fits(dropped)` to hold; null: never. */
function freeAt<T>(counted: readonly (T & { readonly createdAt: Millis })[], windowMs: number, at: Millis, fits: (dropped: readonly T[]) => boolean): Millis | null {
  for (let n = 0; n <= counted.length; n++) {
    if (fits(counted.slice(0, n))) return n === 0 ? at : Math.max(at, counted[n - 1]!.createdAt + windowMs);
  }
  return null;
}

/** The relief of a charge over the user's commands (the same counting as velocityTotals). */
export function velocityRelief(commands: Iterable<Command>, charge: VelocityCharge): VelocityRelief {
  const counted = [...commands].filter((c) => c.userId === charge.userId && c.assetSymbol === charge.assetSymbol && countsTowardVelocity(c))
    .sort((a, b) => a.createdAt - b.createdAt);
  const day = counted.filter((c) => c.createdAt > charge.at - VELOCITY_AMOUNT_WINDOW_MS);
  const hour = counted.filter((c) => c.createdAt > charge.at - VELOCITY_COUNT_WINDOW_MS);
  const dayTotal = day.reduce((sum, c) => sum + c.lockedAmount, 0n);
  const { maxAmount24h, maxCount1h } = charge;
  const countFree = maxCount1h === null ? charge.at
    : freeAt(hour, VELOCITY_COUNT_WINDOW_MS, charge.at, (dropped) => hour.length - dropped.length + 1 <= maxCount1h);
  const amountFree = maxAmount24h === null ? charge.at
    : freeAt(day, VELOCITY_AMOUNT_WINDOW_MS, charge.at, (dropped) =>
      dayTotal - dropped.reduce((sum, c) => sum + c.lockedAmount, 0n) + charge.amount <= maxAmount24h);
  return {
    amountLeft: maxAmount24h === null ? null : (maxAmount24h > dayTotal ? maxAmount24h - dayTotal : 0n),
    countLeft: maxCount1h === null ? null : Math.max(0, maxCount1h - hour.length),
    fitsAt: countFree === null || amountFree === null ? null : Math.max(countFree, amountFree),
  };
}

/** A policy of a user who never saved one (version 0: the first save writes version 1). */
export function emptyWithdrawalPolicy(userId: UserId, now: Millis): WithdrawalPolicy {
  return {
    userId, allowListOnly: false, limits: {}, updatedAt: now, version: 0,
    approval: {
      url: null, pendingUrl: null, pendingSince: null, verifiedAt: null, reviewNote: null, secret: null,
      timeoutMinutes: DEFAULT_APPROVAL_TIMEOUT_MINUTES,
    },
  };
}
