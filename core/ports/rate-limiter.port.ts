export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  /** Hits left in the window AFTER this one (0 when refused). */
  readonly remaining: number;
  /** Whole seconds until the window ends (>= 1): the Retry-After value. */
  readonly resetSeconds: number;
}

/** Fixed windows: at most `limit` hits per key per window; the window starts at the key's first hit. */
export interface RateLimiter {
  /** Counts one hit atomically and says whether it is allowed; a refused hit does not consume quota. */
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
}
