import { describe, expect, it } from 'vitest';
import { describeRateLimiterContract } from '../../contracts-tests/rate-limiter.contract.js';
import { MemoryRateLimiter } from './memory-rate-limiter.js';

/** A manual clock local to this test (adapters/memory's ManualClock is another engineer's, written in parallel). */
function manualClock(start = 1_700_000_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => { t += ms; } };
}

describeRateLimiterContract('MemoryRateLimiter', () => {
  const clock = manualClock();
  return { limiter: new MemoryRateLimiter({ clock }), advance: async (ms) => clock.advance(ms) };
}, { capabilities: { exactTime: true } });

// Adapter-only: bounded memory is a property of this adapter's bookkeeping, invisible through the port.
describe('MemoryRateLimiter (adapter-only)', () => {
  it('drops expired windows, so memory is bounded by the keys hit within one window', async () => {
    const clock = manualClock();
    const limiter = new MemoryRateLimiter({ clock });
    for (let i = 0; i < 1_000; i++) await limiter.hit(`user:${i}`, 10, 60_000);
    expect(limiter.trackedKeys).toBe(1_000);
    clock.advance(30_000);
    for (let i = 0; i < 10; i++) await limiter.hit(`late:${i}`, 10, 60_000);
    expect(limiter.trackedKeys).toBe(1_010);
    clock.advance(30_000);
    await limiter.hit('user:0', 10, 60_000);
    expect(limiter.trackedKeys).toBe(11);
    clock.advance(30_000);
    await limiter.hit('other', 10, 60_000);
    expect(limiter.trackedKeys).toBe(2);
  });

  it('refuses a negative limit and a non-positive window', async () => {
    const limiter = new MemoryRateLimiter({ clock: manualClock() });
    await expect(limiter.hit('k', -1, 60_000)).rejects.toThrow(RangeError);
    await expect(limiter.hit('k', 1, 0)).rejects.toThrow(RangeError);
  });
});
