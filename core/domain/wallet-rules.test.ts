import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import type { Subscription } from './model/account.js';
import { DomainError } from './errors.js';
import { decideWalletCreation, effectiveQuota, SUB_ADDRESS_PLANS, validateLabel, visibleTo } from './wallet-rules.js';

function sub(overrides: Partial<Subscription> = {}): Subscription {
  return {
    version: 1, userId: 1, serviceCode: 'sub_address', planCode: 'starter', status: 'active', meta: {}, activatedAt: 0,
    ...overrides,
  };
}

const subscriptionArb: fc.Arbitrary<Subscription | null> = fc.option(fc.record({
  serviceCode: fc.constantFrom('sub_address' as const, 'developer' as const),
  planCode: fc.constantFrom('starter', 'pro', 'unlimited', 'mystery'),
  status: fc.constantFrom('active' as const, 'cancelled' as const),
  quota: fc.option(fc.oneof(fc.constant(-1), fc.nat(50))),
}).map(({ quota, ...rest }) => sub({ ...rest, meta: quota === null ? {} : { maxSubAddresses: quota } })));

describe('effectiveQuota', () => {
  it('is null without an active sub_address subscription', () => {
    expect(effectiveQuota(null)).toBeNull();
    expect(effectiveQuota(sub({ status: 'cancelled' }))).toBeNull();
    expect(effectiveQuota(sub({ serviceCode: 'developer' }))).toBeNull();
  });

  it('prefers meta.maxSubAddresses (admin override), else the plan, else starter', () => {
    expect(effectiveQuota(sub({ meta: { maxSubAddresses: 3 } }))).toBe(3);
    expect(effectiveQuota(sub({ meta: { maxSubAddresses: -1 } }))).toBe(-1);
    expect(effectiveQuota(sub({ planCode: 'pro' }))).toBe(SUB_ADDRESS_PLANS.pro);
    expect(effectiveQuota(sub({ planCode: 'unlimited' }))).toBe(-1);
    expect(effectiveQuota(sub({ planCode: 'toString' }))).toBe(10);
    expect(effectiveQuota(sub())).toBe(10);
  });
});

describe('decideWalletCreation', () => {
  it.each([
    [{ addressType: 1, hasMain: false, subscription: null, subCount: 0 }, { ok: true, maxSubAddresses: -1 }],
    [{ addressType: 1, hasMain: true, subscription: sub(), subCount: 0 }, { ok: false, code: 'BIZ-MAIN-ADDRESS-ALREADY-EXISTS' }],
    [{ addressType: 3, hasMain: true, subscription: sub(), subCount: 0 }, { ok: false, code: 'BIZ-ADDRESS-TYPE-NOT-ALLOWED' }],
    [{ addressType: 0, hasMain: false, subscription: null, subCount: 0 }, { ok: false, code: 'BIZ-ADDRESS-TYPE-NOT-ALLOWED' }],
    [{ addressType: 2, hasMain: false, subscription: sub(), subCount: 0 }, { ok: false, code: 'BIZ-MAIN-ADDRESS-REQUIRED' }],
    [{ addressType: 2, hasMain: true, subscription: null, subCount: 0 }, { ok: false, code: 'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED' }],
    [{ addressType: 2, hasMain: true, subscription: sub({ status: 'cancelled' }), subCount: 0 }, { ok: false, code: 'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED' }],
    [{ addressType: 2, hasMain: true, subscription: sub(), subCount: 9 }, { ok: true, maxSubAddresses: 10 }],
    [{ addressType: 2, hasMain: true, subscription: sub(), subCount: 10 }, { ok: false, code: 'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED' }],
    [{ addressType: 2, hasMain: true, subscription: sub({ meta: { maxSubAddresses: 0 } }), subCount: 0 }, { ok: false, code: 'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED' }],
    [{ addressType: 2, hasMain: true, subscription: sub({ meta: { maxSubAddresses: -1 } }), subCount: 1_000_000 }, { ok: true, maxSubAddresses: -1 }],
  ])('%j → %j', (input, expected) => {
    expect(decideWalletCreation(input)).toEqual(expected);
  });

  it('never lets the sub-address count exceed a finite quota, creating one at a time', () => {
    fc.assert(fc.property(subscriptionArb, fc.nat(40), (subscription, attempts) => {
      let count = 0;
      for (let i = 0; i < attempts; i += 1) {
        if (decideWalletCreation({ addressType: 2, hasMain: true, subscription, subCount: count }).ok) count += 1;
      }
      const quota = effectiveQuota(subscription);
      if (quota === null) expect(count).toBe(0);
      else if (quota === -1) expect(count).toBe(attempts);
      else expect(count).toBe(Math.min(quota, attempts));
    }));
  });

  it('allows at most one main address, whatever else is true', () => {
    fc.assert(fc.property(subscriptionArb, fc.nat(20), fc.nat(5), (subscription, subCount, attempts) => {
      let hasMain = false;
      let mains = 0;
      for (let i = 0; i < attempts; i += 1) {
        const d = decideWalletCreation({ addressType: 1, hasMain, subscription, subCount });
        if (d.ok) { mains += 1; hasMain = true; } else expect(d.code).toBe('BIZ-MAIN-ADDRESS-ALREADY-EXISTS');
      }
      expect(mains).toBe(Math.min(1, attempts));
    }));
  });

  it('refuses every address type other than 1 and 2', () => {
    fc.assert(fc.property(fc.integer().filter((t) => t !== 1 && t !== 2), fc.boolean(), subscriptionArb, (addressType, hasMain, subscription) => {
      expect(decideWalletCreation({ addressType, hasMain, subscription, subCount: 0 })).toEqual({ ok: false, code: 'BIZ-ADDRESS-TYPE-NOT-ALLOWED' });
    }));
  });
});

describe('visibleTo', () => {
  it('shows a resource only to its owner; others see nothing', () => {
    fc.assert(fc.property(fc.nat(), fc.nat(), (owner, caller) => {
      const resource = { userId: owner, name: 'x' };
      expect(visibleTo(resource, caller)).toBe(owner === caller ? resource : null);
      expect(visibleTo(null, caller)).toBeNull();
    }));
  });
});

describe('validateLabel', () => {
  it('is optional', () => {
    expect(validateLabel(undefined)).toBeNull();
    expect(validateLabel(null)).toBeNull();
  });

  it('accepts strings of at most 120 code points, counting astral characters once', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 120 }), (s) => {
      expect(validateLabel(s)).toBe(s);
    }));
    const emoji = '😀'.repeat(120);
    expect(emoji.length).toBe(240);
    expect(validateLabel(emoji)).toBe(emoji);
  });

  it('refuses 121 code points and non-strings with VALIDATION-ERROR on address_label', () => {
    for (const bad of ['a'.repeat(121), '😀'.repeat(121), 5, {}, ['x'], true]) {
      expect(() => validateLabel(bad)).toThrow(DomainError);
      try { validateLabel(bad); } catch (e) { expect((e as DomainError).field).toBe('address_label'); }
    }
  });
});
