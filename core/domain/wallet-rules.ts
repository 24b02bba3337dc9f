import type { Subscription } from './model/account.js';
import { ADDRESS_TYPE, MAX_ADDRESS_LABEL_LENGTH } from './model/wallet.js';
import { validationError, type ErrorCode } from './errors.js';

/** DESIGN.md: the `sub_address` plans and their `meta.max_sub_addresses` (-1 = unlimited). */
export const SUB_ADDRESS_PLANS = { starter: 10, pro: 1000, unlimited: -1 } as const;
export type SubAddressPlan = keyof typeof SUB_ADDRESS_PLANS;
export const DEFAULT_SUB_ADDRESS_PLAN: SubAddressPlan = 'starter';

/**
 * The `developer` service has a single plan, `standard`, with no meta: it unlocks the Developer API Token and
 * webhooks (DESIGN.md has no tiers for it; a plan code is still stored so both services share one record shape).
 */
export const DEVELOPER_PLANS = { standard: {} } as const;
export type DeveloperPlan = keyof typeof DEVELOPER_PLANS;
export const DEFAULT_DEVELOPER_PLAN: DeveloperPlan = 'standard';

/** -1 in meta.max_sub_addresses: no quota. */
export const UNLIMITED_QUOTA = -1;

/**
 * The sub-address quota a subscription grants: null when there is no active `sub_address` subscription,
 * -1 for unlimited, else `meta.maxSubAddresses`, falling back to the plan's quota (starter's 10 when the plan is unknown).
 */
export function effectiveQuota(sub: Subscription | null): number | null {
  if (sub === null || sub.serviceCode !== 'sub_address' || sub.status !== 'active') return null;
  const fromMeta = sub.meta.maxSubAddresses;
  if (fromMeta !== undefined) return fromMeta;
  const plan = sub.planCode as SubAddressPlan;
  return Object.hasOwn(SUB_ADDRESS_PLANS, plan) ? SUB_ADDRESS_PLANS[plan] : SUB_ADDRESS_PLANS[DEFAULT_SUB_ADDRESS_PLAN];
}

/** Input of the creation decision: what the caller read from the stores. */
export interface WalletCreationInput {
  readonly addressType: number;
  readonly hasMain: boolean;
  readonly subscription: Subscription | null;
  readonly subCount: number;
}

export type WalletCreationDecision =
  | { readonly ok: true; readonly maxSubAddresses: number }
  | { readonly ok: false; readonly code: ErrorCode };

/**
 * Spec §2 wallet rules 1-2, checked in the order of the §4 error table. `maxSubAddresses` is passed on to
 * WalletRepository.insert, which re-checks main uniqueness and the quota atomically (this check alone races).
 * For a main address it is -1: the sub quota does not apply.
 */
export function decideWalletCreation(input: WalletCreationInput): WalletCreationDecision {
  if (input.addressType === ADDRESS_TYPE.MAIN) {
    return input.hasMain ? { ok: false, code: 'BIZ-MAIN-ADDRESS-ALREADY-EXISTS' } : { ok: true, maxSubAddresses: UNLIMITED_QUOTA };
  }
  if (input.addressType !== ADDRESS_TYPE.SUB) return { ok: false, code: 'BIZ-ADDRESS-TYPE-NOT-ALLOWED' };
  if (!input.hasMain) return { ok: false, code: 'BIZ-MAIN-ADDRESS-REQUIRED' };
  const quota = effectiveQuota(input.subscription);
  if (quota === null) return { ok: false, code: 'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED' };
  if (quota !== UNLIMITED_QUOTA && input.subCount >= quota) return { ok: false, code: 'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED' };
  return { ok: true, maxSubAddresses: quota };
}

/** Spec §2 rule 3: another user's resource behaves exactly as a missing one. */
export function visibleTo<T extends { userId: number }>(resource: T | null, userId: number): T | null {
  return resource !== null && resource.userId === userId ? resource : null;
}

/**
 * `address_label`: optional (undefined or null → null), else a string of at most 120 characters, counted as Unicode
 * code points so an emoji counts once. Throws VALIDATION-ERROR naming `address_label` otherwise.
 */
export function validateLabel(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw validationError('address_label', 'must be a string');
  if ([...value].length > MAX_ADDRESS_LABEL_LENGTH) {
    throw validationError('address_label', `must be at most ${MAX_ADDRESS_LABEL_LENGTH} characters`);
  }
  return value;
}
