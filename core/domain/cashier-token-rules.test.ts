import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { Buffer } from 'node:buffer';
import { DomainError } from './errors.js';
import { CASHIER_TOKEN_TTLS, type CashierTokenTtl } from './model/cashier-token.js';
import {
  cashierTokenState, cashierTokenTransition, CASHIER_TOKEN_TRANSITIONS, firstExpiry, isTokenActive, newSecretToken, newTokenValue,
  parseTtl, slideExpiry, type CashierTokenEvent, type CashierTokenState,
} from './cashier-token-rules.js';

const ttlArb = fc.constantFrom(...CASHIER_TOKEN_TTLS);
const T0 = Date.UTC(2026, 4, 25, 10, 0, 0);

describe('parseTtl', () => {
  it('defaults to 60 and accepts exactly 60, 120, 480, 1440', () => {
    expect(parseTtl(undefined)).toBe(60);
    for (const ttl of CASHIER_TOKEN_TTLS) expect(parseTtl(ttl)).toBe(ttl);
  });

  it('refuses everything else with VALIDATION-ERROR on ttl_minutes', () => {
    fc.assert(fc.property(fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null), fc.constant('60')), (value) => {
      fc.pre(!(CASHIER_TOKEN_TTLS as readonly unknown[]).includes(value));
      try {
        parseTtl(value);
        expect.unreachable('accepted ' + String(value));
      } catch (error) {
        expect(error).toBeInstanceOf(DomainError);
        expect((error as DomainError).field).toBe('ttl_minutes');
      }
    }));
  });
});

describe('expiry', () => {
  it('a token is active strictly before expiresAt and only while status is active', () => {
    expect(isTokenActive({ status: 'active', expiresAt: T0 }, T0 - 1)).toBe(true);
    expect(isTokenActive({ status: 'active', expiresAt: T0 }, T0)).toBe(false);
    expect(isTokenActive({ status: 'disabled', expiresAt: T0 }, T0 - 1)).toBe(false);
  });

  it('sliding never shortens expiry and reaches now + ttl', () => {
    fc.assert(fc.property(ttlArb, fc.integer({ min: 0, max: 2e12 }), fc.integer({ min: 0, max: 2e12 }), (ttlMinutes, expiresAt, now) => {
      const slid = slideExpiry({ ttlMinutes, expiresAt }, now);
      expect(slid).toBeGreaterThanOrEqual(expiresAt);
      expect(slid).toBeGreaterThanOrEqual(now + ttlMinutes * 60_000);
      expect(slid === expiresAt || slid === now + ttlMinutes * 60_000).toBe(true);
    }));
  });

  it('a token with a payment request authenticates until its deadline, however short its ttl; without one, ttl_minutes', () => {
    fc.assert(fc.property(ttlArb, fc.integer({ min: 1, max: 1440 }), fc.integer({ min: 0, max: 2 * 1440 * 60_000 }), (ttl, within, after) => {
      const deadline = T0 + within * 60_000;
      const expiresAt = firstExpiry(T0, ttl, { deadline });
      const now = T0 + after;
      // Unused after its creation, it is valid at every moment before the deadline and before now + ttl, and no longer.
      expect(isTokenActive({ status: 'active', expiresAt }, now)).toBe(now < deadline || now < T0 + ttl * 60_000);
      expect(firstExpiry(T0, ttl, undefined)).toBe(T0 + ttl * 60_000);
    }));
  });

  it('a sequence of uses at non-decreasing times only ever extends expiry', () => {
    fc.assert(fc.property(ttlArb, fc.array(fc.nat(3 * 3_600_000), { maxLength: 30 }), (ttl: CashierTokenTtl, gaps) => {
      let now = T0;
      let expiresAt = T0 + ttl * 60_000;
      for (const gap of gaps) {
        now += gap;
        if (!isTokenActive({ status: 'active', expiresAt }, now)) break;
        const next = slideExpiry({ ttlMinutes: ttl, expiresAt }, now);
        expect(next).toBeGreaterThanOrEqual(expiresAt);
        expiresAt = next;
        expect(isTokenActive({ status: 'active', expiresAt }, now)).toBe(true);
      }
    }));
  });
});

describe('cashier token machine (spec §3 cashier token table)', () => {
  it.each([
    ['active', 'disable', { to: 'disabled' }], // DELETE → disabled
    ['disabled', 'disable', { error: 'CASHIER-TOKEN-ALREADY-DISABLED' }], // DELETE again → 409
    ['active', 'expire', { to: 'expired' }], // passing of expires_at
    ['active', 'use', { to: 'active' }], // a payment request keeps it active (and slides expiry)
    ['expired', 'use', { error: 'CASHIER-TOKEN-INVALID' }], // "the token is treated as invalid"
    ['disabled', 'use', { error: 'CASHIER-TOKEN-INVALID' }], // invalid, expired or disabled
    ['expired', 'disable', { to: 'disabled' }],
    ['disabled', 'expire', { error: 'BIZ-ILLEGAL-TRANSITION' }],
    ['expired', 'expire', { error: 'BIZ-ILLEGAL-TRANSITION' }],
  ] as const)('%s on %s → %j', (state, event, expected) => {
    expect(cashierTokenTransition(state, event)).toEqual(expected);
  });

  it('covers every pair exactly once in the table or refuses it', () => {
    const states: CashierTokenState[] = ['active', 'disabled', 'expired'];
    const events: CashierTokenEvent[] = ['disable', 'expire', 'use'];
    for (const s of states) for (const e of events) {
      expect(CASHIER_TOKEN_TRANSITIONS.filter((r) => r.from === s && r.event === e).length).toBeLessThanOrEqual(1);
    }
  });

  it('derives the state of a stored token at a time', () => {
    expect(cashierTokenState({ status: 'active', expiresAt: T0 }, T0 - 1)).toBe('active');
    expect(cashierTokenState({ status: 'active', expiresAt: T0 }, T0)).toBe('expired');
    expect(cashierTokenState({ status: 'disabled', expiresAt: T0 }, T0 - 1)).toBe('disabled');
  });
});

describe('secret token values', () => {
  it('are prefix + unpadded base64url of the bytes, and decode back', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 32, maxLength: 64 }), fc.constantFrom('st_' as const, 'dk_' as const, 'ct_' as const), (bytes, prefix) => {
      const token = newSecretToken(prefix, bytes);
      expect(token.startsWith(prefix)).toBe(true);
      expect(token.slice(3)).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(token.slice(3), 'base64url')).toEqual(Buffer.from(bytes));
    }));
    expect(newTokenValue(new Uint8Array(32))).toBe('ct_' + 'A'.repeat(43));
  });

  it('refuse fewer than 32 random bytes', () => {
    expect(() => newTokenValue(new Uint8Array(31))).toThrow(RangeError);
    expect(() => newSecretToken('dk_', new Uint8Array(0))).toThrow(RangeError);
  });
});
