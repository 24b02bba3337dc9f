import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { formatAmount, formatUnits, parsePositiveAmount } from './amount.js';

describe('parsePositiveAmount', () => {
  it('round-trips every positive bigint through formatAmount', () => {
    fc.assert(fc.property(fc.bigInt({ min: 1n, max: 10n ** 40n }), (n) => {
      expect(parsePositiveAmount(formatAmount(n))).toBe(n);
    }));
  });

  it('rejects zero and negative integers', () => {
    fc.assert(fc.property(fc.bigInt({ min: -(10n ** 30n), max: 0n }), (n) => {
      expect(parsePositiveAmount(formatAmount(n))).toBeNull();
    }));
  });

  it('rejects every string that is not canonical digits with a non-zero lead', () => {
    const canonical = /^[1-9][0-9]*$/;
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...'0123456789+-.eE xn_,\t'.split('')) }), (s) => {
      const parsed = parsePositiveAmount(s);
      if (canonical.test(s)) expect(parsed).toBe(BigInt(s));
      else expect(parsed).toBeNull();
    }));
  });

  it('rejects decorated forms of valid amounts', () => {
    fc.assert(fc.property(fc.bigInt({ min: 1n, max: 10n ** 20n }), fc.constantFrom('+', '-', '0', ' ', '\n'), (n, pre) => {
      expect(parsePositiveAmount(pre + n.toString())).toBeNull();
      expect(parsePositiveAmount(n.toString() + '.0')).toBeNull();
      expect(parsePositiveAmount(n.toString() + ' ')).toBeNull();
      expect(parsePositiveAmount(n.toString() + 'e0')).toBeNull();
    }));
  });

  it.each([
    ['1', 1n], ['1000000', 1_000_000n], ['99999999999999999999999', 99999999999999999999999n],
  ])('accepts %s', (s, n) => {
    expect(parsePositiveAmount(s)).toBe(n);
  });

  it.each([
    ['0'], ['00'], ['01'], ['-1'], ['+1'], ['1.5'], ['1.0'], ['1e6'], [''], [' 1'], ['0x10'], ['１'], ['1_000'],
  ])('rejects %j', (s) => {
    expect(parsePositiveAmount(s)).toBeNull();
  });

  it('rejects non-strings, including safe JSON numbers (precision is lost before parsing)', () => {
    for (const value of [1, 10n, null, undefined, true, {}, ['1']]) expect(parsePositiveAmount(value)).toBeNull();
  });
});

describe('formatAmount', () => {
  it('writes plain decimal digits', () => {
    expect(formatAmount(1_000_000n)).toBe('1000000');
    expect(formatAmount(0n)).toBe('0');
  });
});

describe('formatUnits', () => {
  it('shows an amount in the asset\'s units, exactly and without trailing zeros', () => {
    expect(formatUnits(2_500_000n, 6)).toBe('2.5');
    expect(formatUnits(1n, 6)).toBe('0.000001');
    expect(formatUnits(3_000_000n, 6)).toBe('3');
    expect(formatUnits(0n, 6)).toBe('0');
    expect(formatUnits(-1_234_500n, 6)).toBe('-1.2345');
    expect(formatUnits(2n ** 80n, 0)).toBe((2n ** 80n).toString());
  });

  it('parses back to the same amount for any value and any decimals', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2n ** 96n }), fc.integer({ min: 0, max: 18 }), (value, decimals) => {
      const [whole, fraction = ''] = formatUnits(value, decimals).split('.');
      expect(BigInt(whole! + fraction.padEnd(decimals, '0'))).toBe(value);
    }));
  });
});
