import type { Clock } from '../../core/ports/clock.port.js';
import type { RateLimitDecision, RateLimiter } from '../../core/ports/rate-limiter.port.js';

interface Window {
  count: number;
  readonly endsAt: number;
}

/**
 * In-process fixed-window `RateLimiter` on the injected clock; a key's window starts at its first hit.
 *
 * Windows live in a Map in the order they started (a key is re-inserted when its window restarts), so expired
 * windows sit at the front and each hit drops them in time proportional to what it drops. With one window length
 * (the API uses one minute) memory is bounded by the keys hit within one window; with mixed lengths a long window
 * at the front can delay dropping shorter ones behind it, by at most its own length.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly clock: Clock;
  private readonly windows = new Map<string, Window>();

  constructor(deps: { clock: Clock }) {
    this.clock = deps.clock;
  }

  /** Counts one hit; a refused hit leaves the count unchanged. */
  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    assertArguments(limit, windowMs);
    const now = this.clock.now();
    this.dropExpired(now);
    let window = this.windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      this.windows.delete(key);
      window = { count: 0, endsAt: now + windowMs };
      this.windows.set(key, window);
    }
    const resetSeconds = Math.max(1, Math.ceil((window.endsAt - now) / 1000));
    if (window.count >= limit) return { allowed: false, limit, remaining: 0, resetSeconds };
    window.count += 1;
    return { allowed: true, limit, remaining: limit - window.count, resetSeconds };
  }

  /** Number of windows currently held in memory (for tests and metrics). */
  get trackedKeys(): number {
    return this.windows.size;
  }

  private dropExpired(now: number): void {
    for (const [key, window] of this.windows) {
      if (window.endsAt > now) return;
      this.windows.delete(key);
    }
  }
}

function assertArguments(limit: number, windowMs: number): void {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`rate limit must be a non-negative integer, got ${limit}`);
  if (!Number.isSafeInteger(windowMs) || windowMs <= 0) throw new RangeError(`windowMs must be a positive integer, got ${windowMs}`);
}
