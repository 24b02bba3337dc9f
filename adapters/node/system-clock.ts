import type { Clock } from '../../core/ports/clock.port.js';

/**
 * The production clock: `Date.now()`, but never decreasing — if the system clock is stepped back (NTP), the last
 * reading is repeated until real time catches up, so leases and expiries never run backwards.
 */
export class SystemClock implements Clock {
  private last = Number.NEGATIVE_INFINITY;

  /** `source` is replaceable only so the never-decreasing guarantee can be tested. */
  constructor(private readonly source: () => number = Date.now) {}

  now(): number {
    const reading = this.source();
    if (reading > this.last) this.last = reading;
    return this.last;
  }
}
