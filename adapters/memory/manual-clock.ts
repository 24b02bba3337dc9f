import type { Clock } from '../../core/ports/clock.port.js';

/** 2026-01-01T00:00:00Z: a readable default start for tests and the dev host. */
export const MANUAL_CLOCK_DEFAULT_START = Date.UTC(2026, 0, 1);

/** A clock that moves only when told to, for deterministic tests. It refuses to go back (Clock never decreases). */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: number = MANUAL_CLOCK_DEFAULT_START) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  /** Moves forward by `ms` (>= 0). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`ManualClock.advance: ms must be >= 0, got ${ms}`);
    this.current += ms;
  }

  /** Jumps to `ms`, which must not be earlier than now. */
  set(ms: number): void {
    if (!(ms >= this.current)) throw new RangeError(`ManualClock.set: ${ms} is before the current time ${this.current}`);
    this.current = ms;
  }
}
