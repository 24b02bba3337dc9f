import type { UserId } from '../domain/model/common.js';

export interface RiskSubject {
  readonly userId: UserId;
  readonly operation: 'collection' | 'withdrawal' | 'stake';
  readonly address: string;
  readonly toAddress?: string;
  readonly assetSymbol?: string;
  readonly amount?: bigint;
}

export type RiskEntryKind = 'user' | 'address';
export interface RiskEntry {
  readonly kind: RiskEntryKind;
  readonly value: string;
  readonly reason: string | null;
}

/** Risk control: a deny-list managed by the platform admin. */
export interface RiskPolicy {
  /** `blocked: true` when the user, the address or the destination is on the deny-list. */
  check(subject: RiskSubject): Promise<{ readonly blocked: false } | { readonly blocked: true; readonly reason: string }>;
  /** Adds (or replaces) an entry; idempotent. */
  deny(entry: RiskEntry): Promise<void>;
  /** Removes an entry; true when it existed. */
  allow(kind: RiskEntryKind, value: string): Promise<boolean>;
  list(): Promise<RiskEntry[]>;
}
