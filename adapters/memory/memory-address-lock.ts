import { randomUUID } from 'node:crypto';
import type { AddressLock, LockGrant } from '../../core/ports/address-lock.port.js';
import type { Clock } from '../../core/ports/clock.port.js';

interface Holder {
  readonly token: string;
  readonly expiresAt: number;
}

interface KeyState {
  /** Last fence granted for the key; kept after release so fences never repeat within the process. */
  fence: number;
  holder: Holder | null;
}

/**
 * In-process `AddressLock`: expiry on the injected clock, a fencing counter per key.
 * A lock is expired once `ttlMs` has fully elapsed (now >= expiresAt), matching Redis PX semantics.
 * One entry per key ever locked is kept (for its fence), so memory grows with the number of addresses, not of grants.
 */
export class MemoryAddressLock implements AddressLock {
  private readonly clock: Clock;
  private readonly keys = new Map<string, KeyState>();

  constructor(deps: { clock: Clock }) {
    this.clock = deps.clock;
  }

  /** Grants the lock when free or expired; null while another live holder has it. */
  async acquire(key: string, ttlMs: number): Promise<LockGrant | null> {
    assertTtl(ttlMs);
    const now = this.clock.now();
    const state = this.keys.get(key) ?? { fence: 0, holder: null };
    if (state.holder !== null && state.holder.expiresAt > now) return null;
    state.fence += 1;
    state.holder = { token: randomUUID(), expiresAt: now + ttlMs };
    this.keys.set(key, state);
    return { key, token: state.holder.token, fence: state.fence };
  }

  /** Compare-and-delete: true only when `grant` is the live holder. */
  async release(grant: LockGrant): Promise<boolean> {
    const state = this.liveStateOf(grant);
    if (state === undefined) return false;
    state.holder = null;
    return true;
  }

  /** Compare-and-extend: resets the expiry to now + ttlMs only for the live holder. */
  async extend(grant: LockGrant, ttlMs: number): Promise<boolean> {
    assertTtl(ttlMs);
    const state = this.liveStateOf(grant);
    if (state === undefined) return false;
    state.holder = { token: grant.token, expiresAt: this.clock.now() + ttlMs };
    return true;
  }

  private liveStateOf(grant: LockGrant): KeyState | undefined {
    const state = this.keys.get(grant.key);
    const holder = state?.holder;
    if (holder == null || holder.token !== grant.token || holder.expiresAt <= this.clock.now()) return undefined;
    return state;
  }
}

/** A zero, negative or fractional TTL is a programming error, refused like Redis refuses `PX 0`. */
function assertTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new RangeError(`lock ttlMs must be a positive integer, got ${ttlMs}`);
}
