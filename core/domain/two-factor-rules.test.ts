import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  codeServes, formatRecoveryCode, matchTotp, parseCode, proofReusable, RECOVERY_ALPHABET, RECOVERY_CODE_LENGTH, stepAt, STEP_UP_TTL_MS,
  TOTP_PERIOD_MS, TOTP_WINDOW,
} from './two-factor-rules.js';

/**
 * The TOTP rules against a reference model written from issue #26's words: a code is accepted when it is the code of
 * a step near now (one step either side) that was not used yet, and using it uses that step and every earlier one;
 * a code accepted for a session opens the step-up routes again for that session, for 5 minutes.
 */

/** Codes from a tiny alphabet, so different steps often share a code (the collisions a real 10^6 space rarely shows). */
const tinyCodeAt = (salt: number) => (step: number): string => {
  const mixed = Math.imul((step ^ salt) >>> 0, 0x9e3779b1) >>> 0;
  return String((mixed ^ (mixed >>> 15)) % 3).padStart(6, '0');
};

/** The reference: the steps near `now`, not used yet, whose code is `code`; the earliest is the one used. */
function referenceJudge(code: string, now: number, lastUsed: number, codeAt: (step: number) => string): number | null {
  const near = [-1, 0, 1].map((d) => Math.floor(now / 30_000) + d);
  const usable = near.filter((step) => step > lastUsed && codeAt(step) === code);
  return usable.length === 0 ? null : Math.min(...usable);
}

describe('matchTotp against the reference model', () => {
  it('over any sequence of presented codes and clock moves, accepts exactly what the model accepts, and a code twice never', () => {
    const event = fc.oneof(
      fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 95_000 }) }),
      fc.record({ kind: fc.constant('present' as const), offset: fc.integer({ min: -3, max: 3 }) }),
      fc.record({ kind: fc.constant('guess' as const), code: fc.integer({ min: 0, max: 5 }).map((n) => String(n).padStart(6, '0')) }),
    );
    fc.assert(fc.property(fc.nat(1000), fc.integer({ min: 0, max: 10_000_000_000 }), fc.array(event, { maxLength: 60 }), (salt, start, events) => {
      const codeAt = tinyCodeAt(salt);
      let now = start;
      let lastUsed = 0;
      let modelLastUsed = 0;
      const accepted = new Set<number>();
      for (const e of events) {
        if (e.kind === 'advance') { now += e.ms; continue; }
        const code = e.kind === 'present' ? codeAt(stepAt(now) + e.offset) : e.code;
        const got = matchTotp(code, now, lastUsed, codeAt);
        const expected = referenceJudge(code, now, modelLastUsed, codeAt);
        expect(got.ok ? got.step : null).toBe(expected);
        if (expected !== null) {
          modelLastUsed = expected;
          // A step is used once: the model's accepted steps only grow.
          expect(accepted.has(expected)).toBe(false);
          accepted.add(expected);
        }
        if (got.ok) lastUsed = got.step;
        else expect(got.reason).toBe(codeAt(stepAt(now) - 1) === code || codeAt(stepAt(now)) === code || codeAt(stepAt(now) + 1) === code ? 'replayed' : 'wrong');
      }
    }), { numRuns: runs(300) });
  });

  it('with real-sized codes: the current, previous and next step pass once each; two steps away never', () => {
    const codeAt = (step: number): string => String((step * 104_729) % 1_000_000).padStart(6, '0');
    fc.assert(fc.property(fc.integer({ min: 1_000_000, max: 9_000_000_000 }), (now) => {
      const step = stepAt(now);
      expect(matchTotp(codeAt(step - TOTP_WINDOW - 1), now, 0, codeAt)).toEqual({ ok: false, reason: 'wrong' });
      expect(matchTotp(codeAt(step + TOTP_WINDOW + 1), now, 0, codeAt)).toEqual({ ok: false, reason: 'wrong' });
      expect(matchTotp(codeAt(step - 1), now, 0, codeAt)).toEqual({ ok: true, step: step - 1 });
      expect(matchTotp(codeAt(step), now, step - 1, codeAt)).toEqual({ ok: true, step });
      expect(matchTotp(codeAt(step - 1), now, step, codeAt)).toEqual({ ok: false, reason: 'replayed' });
      expect(matchTotp(codeAt(step), now, step, codeAt)).toEqual({ ok: false, reason: 'replayed' });
      expect(matchTotp(codeAt(step + 1), now, step, codeAt)).toEqual({ ok: true, step: step + 1 });
    }));
  });
});

describe('proofReusable: a step-up proof is its session\'s, for its one kind of action, for 5 minutes (issue #35 item 4)', () => {
  it('matches the model: same session, same code, same reusable scope, from the moment it was accepted until 5 minutes later', () => {
    fc.assert(fc.property(
      fc.constantFrom('s1', 's2'), fc.constantFrom('c1', 'c2'), fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: -1_000, max: 2 * STEP_UP_TTL_MS }),
      fc.constantFrom('s1', 's2'), fc.constantFrom('c1', 'c2'), fc.option(fc.constantFrom('POST /a', 'PUT /b')), fc.constantFrom('POST /a', 'PUT /b'), fc.boolean(),
      (session, code, at, later, askingSession, askingCode, provenScope, askedScope, reusable) => {
        const proof = { sessionHash: session, proofHash: code, at, ...(provenScope === null ? {} : { scope: provenScope }) };
        const grant = { scope: askedScope, reusable };
        const expected = session === askingSession && code === askingCode && later >= 0 && later < STEP_UP_TTL_MS
          && provenScope === askedScope && reusable;
        expect(proofReusable(proof, askingSession, askingCode, grant, at + later)).toBe(expected);
        expect(proofReusable(null, askingSession, askingCode, grant, at + later)).toBe(false);
      },
    ));
  });

  it('a recovery code serves only 2FA recovery (login, disable), a current code everything, a malformed one nothing', () => {
    for (const purpose of ['login', 'step-up', 'enable', 'disable'] as const) {
      expect(codeServes('totp', purpose)).toBe(true);
      expect(codeServes('recovery', purpose)).toBe(purpose === 'login' || purpose === 'disable');
      expect(codeServes('malformed', purpose)).toBe(false);
    }
  });
});

describe('parseCode', () => {
  it('six digits in any grouping are a TOTP code; a formatted recovery code in any case is a recovery code; else malformed', () => {
    const recovery = fc.array(fc.constantFrom(...RECOVERY_ALPHABET), { minLength: RECOVERY_CODE_LENGTH, maxLength: RECOVERY_CODE_LENGTH }).map((a) => a.join(''));
    fc.assert(fc.property(fc.integer({ min: 0, max: 999_999 }), recovery, fc.boolean(), (n, code, lower) => {
      const digits = String(n).padStart(6, '0');
      expect(parseCode(`${digits.slice(0, 3)} ${digits.slice(3)}`)).toEqual({ kind: 'totp', code: digits });
      const shown = formatRecoveryCode(code);
      expect(shown).toMatch(/^.{5}-.{5}$/);
      expect(parseCode(lower ? shown.toLowerCase() : shown)).toEqual({ kind: 'recovery', code });
    }));
    for (const bad of ['', '12345', '1234567', 'ABCDE-FGHIL', 'ABCDE-FGHJ', '12345a']) expect(parseCode(bad)).toEqual({ kind: 'malformed' });
  });

  it('the period is RFC 6238\'s 30 s', () => {
    expect(TOTP_PERIOD_MS).toBe(30_000);
    expect(stepAt(59_000)).toBe(1);
  });
});
