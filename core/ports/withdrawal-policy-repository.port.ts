import type { UserId } from '../domain/model/common.js';
import type { AllowListEntry, WithdrawalPolicy } from '../domain/model/withdrawal-policy.js';
import type { Page, PageRequest } from './page.js';

/**
 * Withdrawal policies and allow-lists (issue #26 item 1). The velocity limits are not kept here: they are judged
 * on the commands themselves, in the unit of work that records a withdrawal (ChangeSet.velocity).
 */
export interface WithdrawalPolicyRepository {
  /** The user's policy, or null when none was ever saved. */
  get(userId: UserId): Promise<WithdrawalPolicy | null>;
  /** Inserts (version 1) or replaces (stored version `version - 1`); else ConcurrencyConflict and nothing is written. */
  save(policy: WithdrawalPolicy): Promise<void>;
  /** Policies with an approval URL waiting for review, oldest pendingSince first (then first saved). */
  listPendingApprovalUrls(): Promise<WithdrawalPolicy[]>;
  /**
   * Adds the entry unless the user already lists that address: 'exists' (and nothing written) then; 'full' (nothing
   * written) when the user already holds `maxEntries` entries. Atomic: of two racing adds of one address, one is
   * 'created'; racing adds never leave more than `maxEntries`.
   */
  addAllowListEntry(entry: AllowListEntry, maxEntries: number): Promise<'created' | 'exists' | 'full'>;
  /** The user's entry for the address (exact match), or null. */
  findAllowListEntry(userId: UserId, address: string): Promise<AllowListEntry | null>;
  /** The user's entries, oldest first (then by address), with the user's total. */
  listAllowList(userId: UserId, page: PageRequest): Promise<Page<AllowListEntry>>;
  /** Removes the user's entry for the address at once: true when one was removed. */
  removeAllowListEntry(userId: UserId, address: string): Promise<boolean>;
}
