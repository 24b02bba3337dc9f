import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../adapters/memory/manual-clock.js';
import { CollectionBookingCatchUp } from './collection-ledger-booker.js';

/** Issue #36: the catch-up pass's schedule and where each pass starts. */
describe('CollectionBookingCatchUp', () => {
  it('starts a lookback before the process, runs at most every everyMs, and starts each pass where the last stopped', async () => {
    const clock = new ManualClock(1_000_000);
    const calls: number[] = [];
    const nexts = [1_000_100, 1_000_100, 1_000_500];
    const catchUp = new CollectionBookingCatchUp({
      catchUp: async (since) => { calls.push(since); return { booked: 1, next: nexts[calls.length - 1]! }; },
    }, clock, { lookbackMs: 10_000, everyMs: 60_000, limit: 5 });
    expect(await catchUp.maybeRun()).toBe(1);
    expect(await catchUp.maybeRun()).toBe(0);
    clock.advance(59_999);
    expect(await catchUp.maybeRun()).toBe(0);
    clock.advance(1);
    expect(await catchUp.maybeRun()).toBe(1);
    clock.advance(60_000);
    await catchUp.maybeRun();
    expect(calls).toEqual([990_000, 1_000_100, 1_000_100]);
  });
});
