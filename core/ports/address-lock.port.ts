/** Proof of holding a lock: `token` identifies the holder, `fence` increases with every grant of the same key. */
export interface LockGrant {
  readonly key: string;
  readonly token: string;
  readonly fence: number;
}

/**
 * A short-lived mutual-exclusion lock per key (an address), with expiry so a dead holder never blocks forever.
 * Used around "check for an active command, then create one" so two processes cannot both pass the check.
 */
export interface AddressLock {
  /** Grants the lock when free or expired; null when another holder has it. Fence is strictly increasing per key. */
  acquire(key: string, ttlMs: number): Promise<LockGrant | null>;
  /** Releases only if `grant` still holds the lock (compare-and-delete); true when released. */
  release(grant: LockGrant): Promise<boolean>;
  /** Extends only if `grant` still holds the lock; false for a non-holder or an expired grant. */
  extend(grant: LockGrant, ttlMs: number): Promise<boolean>;
}
