import { describe, expect, it } from 'vitest';
import { describeAddressLockContract } from '../../contracts-tests/address-lock.contract.js';
import { MemoryAddressLock } from './memory-address-lock.js';

/** A manual clock local to this test (adapters/memory's ManualClock is another engineer's, written in parallel). */
function manualClock(start = 1_700_000_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => { t += ms; } };
}

describeAddressLockContract('MemoryAddressLock', () => {
  const clock = manualClock();
  return { lock: new MemoryAddressLock({ clock }), advance: async (ms) => clock.advance(ms) };
}, { capabilities: { exactTime: true } });

// Adapter-only: argument checking is this adapter's choice; the port does not define invalid TTLs.
describe('MemoryAddressLock (adapter-only)', () => {
  it('refuses a non-positive or fractional TTL', async () => {
    const lock = new MemoryAddressLock({ clock: manualClock() });
    await expect(lock.acquire('a', 0)).rejects.toThrow(RangeError);
    await expect(lock.acquire('a', 1.5)).rejects.toThrow(RangeError);
    const grant = (await lock.acquire('a', 10))!;
    await expect(lock.extend(grant, -1)).rejects.toThrow(RangeError);
  });
});
