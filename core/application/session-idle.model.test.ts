import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { signUp, TEST_PASSWORD } from './testing/user-journeys.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

const MINUTE = 60_000;
const IDLE = 30 * MINUTE;
const DAY = 24 * 60 * MINUTE;
/** A slide moves the expiry later only by at least a minute (accounts.service.ts SLIDE_STEP_MS). */
const STEP = MINUTE;

type Step = { readonly kind: 'wait'; readonly ms: number } | { readonly kind: 'use' } | { readonly kind: 'poll' };

/**
 * The console's idle timeout (issue #38) as a model: a session signed in through the console lives while each use comes
 * within the idle time of the previous one, never past 24 h from sign-in; background polls (authenticateSession alone)
 * do not keep it alive; once ended it stays ended. The one-minute write step allows the end to come up to a minute
 * early, never late.
 */
describe('console session idle timeout (slideSession)', () => {
  let core: TestCore;
  beforeAll(async () => {
    core = buildTestCore(devnet);
    await signUp(core.app, core.readCode, 'idle@example.com');
  });

  it('property: alive within the idle time of the last use (and 24 h of sign-in), ended after it, never revived', async () => {
    const step: fc.Arbitrary<Step> = fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 40 * MINUTE }).map((ms) => ({ kind: 'wait' as const, ms })) },
      { weight: 2, arbitrary: fc.constant({ kind: 'use' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'poll' as const }) },
    );
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 80 }), async (steps) => {
      const { app, clock } = core;
      const token = (await app.accounts.login({ email: 'idle@example.com', password: TEST_PASSWORD })).session_token;
      const signedIn = clock.now();
      expect(await app.accounts.slideSession(token, IDLE)).toBe(signedIn + IDLE);
      let lastUse = signedIn;
      let ended = false;
      for (const s of steps) {
        if (s.kind === 'wait') clock.advance(s.ms);
        const now = clock.now();
        const deadline = Math.min(lastUse + IDLE, signedIn + DAY);
        const surelyAlive = !ended && now < Math.min(lastUse + IDLE - STEP, signedIn + DAY);
        const surelyEnded = ended || now >= deadline;
        const alive = (await app.accounts.authenticateSession(token)) !== null;
        if (surelyAlive) expect(alive).toBe(true);
        if (surelyEnded) expect(alive).toBe(false);
        if (!alive) ended = true;
        if (s.kind === 'use') {
          const expiry = await app.accounts.slideSession(token, IDLE);
          expect(expiry === null).toBe(ended);
          if (expiry !== null) {
            expect(expiry).toBeLessThanOrEqual(Math.min(now + IDLE, signedIn + DAY));
            expect(expiry).toBeGreaterThanOrEqual(Math.min(now + IDLE - STEP, signedIn + DAY));
            lastUse = now;
          }
        }
      }
    }), { numRuns: 60 });
  });

  it('a console session used every 29 minutes still ends 24 h after sign-in', async () => {
    const { app, clock } = core;
    const token = (await app.accounts.login({ email: 'idle@example.com', password: TEST_PASSWORD })).session_token;
    const signedIn = clock.now();
    await app.accounts.slideSession(token, IDLE);
    while (clock.now() + 29 * MINUTE < signedIn + DAY) {
      clock.advance(29 * MINUTE);
      expect(await app.accounts.slideSession(token, IDLE)).not.toBeNull();
    }
    expect(await app.accounts.slideSession(token, IDLE)).toBe(signedIn + DAY);
    clock.advance(signedIn + DAY - clock.now());
    expect(await app.accounts.authenticateSession(token)).toBeNull();
  });

  it('a bearer session that is never slid keeps its 24 h', async () => {
    const { app, clock } = core;
    const token = (await app.accounts.login({ email: 'idle@example.com', password: TEST_PASSWORD })).session_token;
    clock.advance(DAY - 1);
    expect(await app.accounts.authenticateSession(token)).not.toBeNull();
    clock.advance(1);
    expect(await app.accounts.authenticateSession(token)).toBeNull();
    expect(await app.accounts.slideSession(token, IDLE)).toBeNull();
  });
});
