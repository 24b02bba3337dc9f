import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { DELIVERY_STATUS } from './model/webhook.js';
import { afterAttempt, afterRedelivery, initialDelivery, isTerminalDeliveryStatus, MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_MS, DELIVERY_TRANSITIONS } from './delivery-schedule.js';

const { PENDING, SUCCEEDED, RETRYING, DEAD, SKIPPED } = DELIVERY_STATUS;
const T0 = Date.UTC(2026, 4, 25, 10, 0, 0);

describe('webhook delivery schedule (spec §6)', () => {
  it('delays are +0, +1 min, +5 min and the limit is 3 attempts', () => {
    expect(RETRY_DELAYS_MS).toEqual([0, 60_000, 300_000]);
    expect(MAX_DELIVERY_ATTEMPTS).toBe(3);
  });

  it('a delivery with an approved URL is due immediately; without one it is SKIPPED for good', () => {
    expect(initialDelivery('https://a.example/', T0)).toEqual({ status: PENDING, nextAttemptAt: T0 });
    expect(initialDelivery(null, T0)).toEqual({ status: SKIPPED, nextAttemptAt: null });
    expect(isTerminalDeliveryStatus(SKIPPED)).toBe(true);
  });

  it('retries after 1 min, then 5 min, and is DEAD exactly after the 3rd failure', () => {
    expect(afterAttempt(1, false, T0)).toEqual({ status: RETRYING, nextAttemptAt: T0 + 60_000 });
    expect(afterAttempt(2, false, T0)).toEqual({ status: RETRYING, nextAttemptAt: T0 + 300_000 });
    expect(afterAttempt(3, false, T0)).toEqual({ status: DEAD, nextAttemptAt: null });
    expect(afterAttempt(2, true, T0)).toEqual({ status: SUCCEEDED, nextAttemptAt: null });
  });

  it('simulated against any outcome sequence: at most 3 attempts, DEAD iff 3 failures, right timing', () => {
    fc.assert(fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 10 }), fc.array(fc.nat(20_000), { minLength: 10, maxLength: 10 }), (outcomes, durations) => {
      let schedule = initialDelivery('https://a.example/', T0);
      const attemptTimes: number[] = [];
      let attempts = 0;
      for (const ok of outcomes) {
        if (isTerminalDeliveryStatus(schedule.status)) break;
        const startedAt = schedule.nextAttemptAt!;
        attemptTimes.push(startedAt);
        attempts += 1;
        const finishedAt = startedAt + durations[attempts - 1]!;
        schedule = afterAttempt(attempts, ok, finishedAt);
        if (schedule.status === RETRYING) expect(schedule.nextAttemptAt).toBe(finishedAt + RETRY_DELAYS_MS[attempts]!);
      }
      expect(attempts).toBeLessThanOrEqual(3);
      expect(attemptTimes[0]).toBe(T0);
      const firstSuccess = outcomes.indexOf(true);
      if (firstSuccess >= 0 && firstSuccess < 3) {
        expect(schedule.status).toBe(SUCCEEDED);
        expect(attempts).toBe(firstSuccess + 1);
      } else if (outcomes.length >= 3) {
        expect(schedule.status).toBe(DEAD);
        expect(attempts).toBe(3);
      } else {
        expect(schedule.status).toBe(RETRYING);
      }
    }));
  });

  it('terminal statuses are SUCCEEDED, DEAD and SKIPPED only', () => {
    expect(Object.values(DELIVERY_STATUS).filter(isTerminalDeliveryStatus)).toEqual([SUCCEEDED, DEAD, SKIPPED]);
    const froms: string[] = DELIVERY_TRANSITIONS.map((r) => r.from);
    for (const terminal of ['SKIPPED', 'DEAD', 'SUCCEEDED']) expect(froms).not.toContain(terminal);
  });

  it('refuses a nonsensical attempt count', () => {
    expect(() => afterAttempt(0, false, T0)).toThrow(RangeError);
    expect(() => afterAttempt(1.5, true, T0)).toThrow(RangeError);
    expect(afterAttempt(7, false, T0).status).toBe(DEAD);
  });
});

describe('redelivery (issue #15), every status against a hand-copied table', () => {
  // status -> [after success, after failure]; null = refused.
  const EXPECTED: Record<string, [string, string] | null> = {
    PENDING: null, DELIVERING: null, SUCCEEDED: ['SUCCEEDED', 'SUCCEEDED'], RETRYING: null, DEAD: ['SUCCEEDED', 'DEAD'], SKIPPED: null,
  };
  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(`${name}: ${expected === null ? 'refused' : `${expected[0]} on success, ${expected[1]} on failure`}`, () => {
      const status = DELIVERY_STATUS[name as keyof typeof DELIVERY_STATUS];
      if (expected === null) {
        expect(() => afterRedelivery(status, true)).toThrow(RangeError);
        expect(() => afterRedelivery(status, false)).toThrow(RangeError);
        return;
      }
      expect([afterRedelivery(status, true), afterRedelivery(status, false)])
        .toEqual(expected.map((s) => DELIVERY_STATUS[s as keyof typeof DELIVERY_STATUS]));
    });
  }
});
