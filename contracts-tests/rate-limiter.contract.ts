import { runs } from './support/depth.js';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RateLimitDecision, RateLimiter } from '../core/ports/rate-limiter.port.js';

/** What the rate-limiter contract needs from an adapter under test: the limiter and a way to let time pass. */
export interface RateLimiterSubject {
  readonly limiter: RateLimiter;
  /** Lets at least `ms` milliseconds pass for the adapter (advance a manual clock, or really wait a little more). */
  advance(ms: number): Promise<void>;
  /** Frees what the subject holds (connections); called after each test. */
  close?(): Promise<void>;
}

/** Capability switches and timings of the rate-limiter contract. */
export interface RateLimiterContractOptions {
  /** Window the suite lets elapse; real-time adapters want it short. Default 60 000 (the API's window). */
  readonly shortWindowMs?: number;
  /** fast-check runs of the property tests. Default 100. */
  readonly numRuns?: number;
  readonly capabilities?: {
    /** `advance` moves time exactly (a manual clock): enables Retry-After countdown and time-travelling models. */
    readonly exactTime?: boolean;
  };
}

const MINUTE = 60_000;

/**
 * The `RateLimiter` contract (core/ports/rate-limiter.port.ts), to run against every adapter of the port.
 * `makeSubject` is called before every test and must return a fresh, empty limiter (e.g. a unique key prefix).
 */
export function describeRateLimiterContract(
  name: string,
  makeSubject: () => RateLimiterSubject | Promise<RateLimiterSubject>,
  options: RateLimiterContractOptions = {},
): void {
  const shortWindow = options.shortWindowMs ?? MINUTE;
  const numRuns = options.numRuns ?? runs(100);
  const exactTime = options.capabilities?.exactTime ?? false;

  describe(`RateLimiter contract: ${name}`, () => {
    let subject: RateLimiterSubject;
    let limiter: RateLimiter;
    beforeEach(async () => {
      subject = await makeSubject();
      limiter = subject.limiter;
    });
    afterEach(async () => {
      await subject.close?.();
    });

    it('the first hit of a one-minute window is allowed with limit-1 remaining and 60 s to reset', async () => {
      expect(await limiter.hit('user:1', 20, MINUTE)).toEqual({ allowed: true, limit: 20, remaining: 19, resetSeconds: 60 });
    });

    it('remaining counts down to 0, then hits are refused with 0 remaining and resetSeconds in (0, 60]', async () => {
      const decisions: RateLimitDecision[] = [];
      for (let i = 0; i < 7; i++) decisions.push(await limiter.hit('user:1', 5, MINUTE));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false]);
      expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
      for (const decision of decisions) {
        expect(decision.limit).toBe(5);
        expect(Number.isInteger(decision.resetSeconds)).toBe(true);
        expect(decision.resetSeconds).toBeGreaterThan(0);
        expect(decision.resetSeconds).toBeLessThanOrEqual(60);
      }
    });

    it('N+k parallel hits on limit N: exactly N allowed, their remaining values are N-1..0', async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 25 }), fc.integer({ min: 0, max: 15 }), async (limit, extra) => {
          run += 1;
          const hits = Array.from({ length: limit + extra }, () => limiter.hit(`burst:${run}`, limit, MINUTE));
          const decisions = await Promise.all(hits);
          const allowed = decisions.filter((d) => d.allowed);
          expect(allowed).toHaveLength(limit);
          expect(allowed.map((d) => d.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: limit }, (_, i) => i));
          expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0)).toBe(true);
        }),
        { numRuns: Math.max(10, Math.floor(numRuns / 2)) },
      );
    });

    it('a refused hit does not consume quota: raising the limit admits the next hit', async () => {
      for (let i = 0; i < 5; i++) await limiter.hit('user:1', 2, MINUTE);
      expect(await limiter.hit('user:1', 3, MINUTE)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await limiter.hit('user:1', 3, MINUTE)).toMatchObject({ allowed: false, remaining: 0 });
    });

    it('keys are independent', async () => {
      for (let i = 0; i < 3; i++) await limiter.hit('user:1', 3, MINUTE);
      expect((await limiter.hit('user:1', 3, MINUTE)).allowed).toBe(false);
      expect(await limiter.hit('user:2', 3, MINUTE)).toMatchObject({ allowed: true, remaining: 2 });
      expect(await limiter.hit('token:ct_x', 3, MINUTE)).toMatchObject({ allowed: true, remaining: 2 });
    });

    it('a new window starts after the window has elapsed', async () => {
      for (let i = 0; i < 3; i++) await limiter.hit('user:1', 2, shortWindow);
      await subject.advance(shortWindow);
      expect(await limiter.hit('user:1', 2, shortWindow)).toMatchObject({ allowed: true, remaining: 1 });
      expect(await limiter.hit('user:1', 2, shortWindow)).toMatchObject({ allowed: true, remaining: 0 });
      expect((await limiter.hit('user:1', 2, shortWindow)).allowed).toBe(false);
    });

    // Declared only with the capability: a test that cannot apply is not reported as a skipped one.
    if (exactTime) it('resetSeconds counts down to the end of the window that began at the first hit (exact time)', async () => {
      await limiter.hit('user:1', 1, MINUTE);
      await subject.advance(30_500);
      expect(await limiter.hit('user:1', 1, MINUTE)).toEqual({ allowed: false, limit: 1, remaining: 0, resetSeconds: 30 });
      await subject.advance(29_499);
      expect((await limiter.hit('user:1', 1, MINUTE)).resetSeconds).toBe(1);
      await subject.advance(1);
      expect(await limiter.hit('user:1', 1, MINUTE)).toEqual({ allowed: true, limit: 1, remaining: 0, resetSeconds: 60 });
    });

    it('behaves like a fixed-window reference model under random hits', async () => {
      let run = 0;
      const step = exactTime
        ? fc.oneof(fc.record({ key: fc.constantFrom('a', 'b', 'c') }), fc.record({ advance: fc.integer({ min: 1, max: 40_000 }) }))
        : fc.record({ key: fc.constantFrom('a', 'b', 'c') });
      await fc.assert(
        fc.asyncProperty(fc.array(step, { maxLength: 40 }), fc.integer({ min: 0, max: 4 }), async (steps, limit) => {
          run += 1;
          let now = 0;
          const model = new Map<string, { count: number; endsAt: number }>();
          for (const s of steps) {
            if ('advance' in s) {
              await subject.advance(s.advance);
              now += s.advance;
              continue;
            }
            let window = model.get(s.key);
            if (window === undefined || window.endsAt <= now) model.set(s.key, (window = { count: 0, endsAt: now + MINUTE }));
            const allowed = window.count < limit;
            if (allowed) window.count += 1;
            const decision = await limiter.hit(`model:${run}:${s.key}`, limit, MINUTE);
            expect(decision).toMatchObject({ allowed, limit, remaining: allowed ? limit - window.count : 0 });
            if (exactTime) expect(decision.resetSeconds).toBe(Math.ceil((window.endsAt - now) / 1000));
          }
        }),
        { numRuns },
      );
    });
  });
}
