/**
 * Exponential backoff per key (a task or command number), in Clock milliseconds: base, 2×base, … up to max. Kept in
 * memory: after a restart a failing step starts again from `base`, which only costs an early retry.
 */
export class RetryBackoff {
  private readonly attempts = new Map<string, number>();

  constructor(private readonly baseMs: number, private readonly maxMs: number) {}

  /** The delay before the next try of `key`, counting this failure. */
  next(key: string): number {
    const n = (this.attempts.get(key) ?? 0) + 1;
    // Bounded so a long-failing key cannot grow the map entry or overflow the shift.
    this.attempts.set(key, Math.min(n, 30));
    return Math.min(this.maxMs, this.baseMs * 2 ** Math.min(n - 1, 20));
  }

  /** Forgets `key` after a success (or a terminal end). */
  reset(key: string): void {
    this.attempts.delete(key);
  }
}
