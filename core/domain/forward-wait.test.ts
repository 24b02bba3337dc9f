/**
 * Issue #34: a refused automatic forward's retry schedule. It waits the base first, never less than before, never more
 * than the cap, and never stops being tried: each refusal schedules the next attempt in the future.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COLLECTION_STATUS } from './model/collection-task.js';
import {
  DEFAULT_FORWARD_RETRY, forwardDue, forwardRetryable, forwardRetryDelay, refusedForward, type ForwardTaskOutcome, type ForwardWait,
} from './forward-wait.js';

const schedule = fc.record({ baseMs: fc.integer({ min: 1, max: 120_000 }), maxMs: fc.integer({ min: 1, max: 3_600_000 }) })
  .map(({ baseMs, maxMs }) => ({ baseMs, maxMs: Math.max(baseMs, maxMs) }));
const refusal = { code: 'BIZ-ENERGY-UNAVAILABLE', message: 'no energy source for 64285 energy' };

describe('forward retry schedule', () => {
  it('the default: 15 s, 30 s, 1 min, 2 min, 4 min, 8 min, then 10 min for ever', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50, 10_000].map((n) => forwardRetryDelay(DEFAULT_FORWARD_RETRY, n)))
      .toEqual([15_000, 30_000, 60_000, 120_000, 240_000, 480_000, 600_000, 600_000, 600_000]);
  });

  it('starts at the base, never shrinks, never passes the cap, doubles until it does', () => {
    fc.assert(fc.property(schedule, fc.integer({ min: 1, max: 200 }), (s, n) => {
      const delay = forwardRetryDelay(s, n);
      expect(forwardRetryDelay(s, 1)).toBe(s.baseMs);
      expect(delay).toBeLessThanOrEqual(s.maxMs);
      expect(delay).toBeGreaterThanOrEqual(forwardRetryDelay(s, n - 1 || 1));
      expect(forwardRetryDelay(s, n + 1)).toBe(Math.min(s.maxMs, delay * 2));
    }));
  });

  it('a run of refusals: counted, the first time kept, each next attempt after the refusal and due only then', () => {
    fc.assert(fc.property(schedule, fc.array(fc.integer({ min: 0, max: 3_600_000 }), { minLength: 1, maxLength: 30 }), (s, gaps) => {
      let wait: ForwardWait | undefined;
      let now = 1_700_000_000_000;
      const start = now;
      for (const [i, gap] of gaps.entries()) {
        wait = refusedForward(s, wait, refusal, now);
        expect(wait).toMatchObject({ attempts: i + 1, since: start, code: refusal.code, reason: refusal.message });
        expect(wait.nextAttemptAt).toBe(now + forwardRetryDelay(s, i + 1));
        expect(forwardDue(wait, now)).toBe(false);
        expect(forwardDue(wait, wait.nextAttemptAt)).toBe(true);
        now = Math.max(now + gap, wait.nextAttemptAt);
      }
    }));
  });
});

/**
 * Issue #34: a started forward whose task ended. Only a FAILED task refused by a retryable planning refusal that
 * recorded no transaction and no rental order goes back to waiting; a running one is never retried (two forwards of
 * one request would run at once), a DONE one has forwarded, and a failure after money moved stays failed.
 */
describe('a forward task\'s end: retryable planning refusal or terminal', () => {
  const statuses = fc.constantFrom(...Object.values(COLLECTION_STATUS));
  const codes = fc.constantFrom(null, 'BIZ-ENERGY-UNAVAILABLE', 'BIZ-ENERGY-TIMEOUT', 'BIZ-NOTHING-TO-COLLECT', 'CHAIN-TRANSACTION-FAILED', 'CHAIN-BROADCAST-FAILED');
  const tx = { txid: 'a'.repeat(64), signedJson: '{}', expiresAt: 1, broadcastAt: null };
  const step = fc.record({ transaction: fc.constantFrom(null, tx), orderRef: fc.constantFrom(null, 'order-1') });
  const task = fc.record({ status: statuses, errorCode: codes, steps: fc.array(step, { maxLength: 6 }) });

  it('retried exactly when FAILED, refused for want of energy, with nothing recorded as sent or ordered', () => {
    fc.assert(fc.property(task, (t) => {
      const nothingSent = t.steps.every((s) => s.transaction === null && s.orderRef === null);
      expect(forwardRetryable(t)).toBe(t.status === COLLECTION_STATUS.FAILED && t.errorCode === 'BIZ-ENERGY-UNAVAILABLE' && nothingSent);
    }));
  });

  it('never retried while running or once DONE; one recorded transaction or order makes any failure terminal', () => {
    fc.assert(fc.property(task, fc.nat(), fc.constantFrom({ transaction: tx, orderRef: null }, { transaction: null, orderRef: 'order-9' }), (t, at, sent) => {
      if (t.status !== COLLECTION_STATUS.FAILED) expect(forwardRetryable(t)).toBe(false);
      const steps: ForwardTaskOutcome['steps'][number][] = [...t.steps];
      steps.splice(at % (steps.length + 1), 0, sent);
      expect(forwardRetryable({ ...t, steps })).toBe(false);
    }));
  });
});
