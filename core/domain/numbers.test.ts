import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { newCommandNo, newTaskNo, newTokenNo, NUMBER_RANDOM_BYTES } from './numbers.js';

// Years 1970..9999 (the format has four year digits).
const timeArb = fc.integer({ min: 0, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });
const randomArb = fc.uint8Array({ minLength: NUMBER_RANDOM_BYTES, maxLength: NUMBER_RANDOM_BYTES });
const generators = [
  { name: 'newCommandNo', make: newCommandNo, prefix: 'C' },
  { name: 'newTaskNo', make: newTaskNo, prefix: 'T' },
  { name: 'newTokenNo', make: newTokenNo, prefix: 'CT' },
] as const;

/** `YYYYMMDDHHMMSS` read off toISOString (an independent formatter). */
function isoStamp(now: number): string {
  return new Date(now).toISOString().slice(0, 19).replace(/[-T:]/g, '');
}

describe('business numbers: prefix + UTC YYYYMMDDHHMMSS + 12 random digits', () => {
  it('matches a hand-written example', () => {
    const now = Date.UTC(2026, 4, 25, 10, 0, 0, 999);
    const random = Uint8Array.from([0, 0, 0, 0, 0, 0, 0x30, 0x39]); // 12345
    expect(newCommandNo(now, random)).toBe('C20260525100000000000012345');
    expect(newTaskNo(now, random)).toBe('T20260525100000000000012345');
    expect(newTokenNo(now, random)).toBe('CT20260525100000000000012345');
    // 2^64 - 1 = 18446744073709551615: its last 12 digits.
    expect(newCommandNo(now, new Uint8Array(8).fill(0xff))).toBe('C20260525100000073709551615');
  });

  for (const { name, make, prefix } of generators) {
    it(`${name}: fixed width, the clock's UTC second, the big-endian bytes modulo 10^12`, () => {
      fc.assert(fc.property(timeArb, randomArb, (now, random) => {
        const no = make(now, random);
        expect(no).toMatch(new RegExp(`^${prefix}\\d{26}$`));
        expect(no.slice(prefix.length, prefix.length + 14)).toBe(isoStamp(now));
        const expectedDigits = (Buffer.from(random).readBigUInt64BE(0) % 1_000_000_000_000n).toString().padStart(12, '0');
        expect(no.slice(-12)).toBe(expectedDigits);
      }));
    });

    it(`${name}: numbers of different seconds sort by creation time as plain strings`, () => {
      fc.assert(fc.property(timeArb, timeArb, randomArb, randomArb, (t1, t2, r1, r2) => {
        fc.pre(Math.floor(t1 / 1000) < Math.floor(t2 / 1000));
        expect(make(t1, r1) < make(t2, r2)).toBe(true);
      }));
    });

    it(`${name}: refuses fewer than ${NUMBER_RANDOM_BYTES} random bytes and times outside years 0..9999`, () => {
      expect(() => make(0, new Uint8Array(NUMBER_RANDOM_BYTES - 1))).toThrow(RangeError);
      expect(() => make(Date.UTC(10000, 0, 1), new Uint8Array(8))).toThrow(RangeError);
      expect(() => make(Number.NaN, new Uint8Array(8))).toThrow(RangeError);
      expect(() => make(Date.UTC(-1, 0, 1), new Uint8Array(8))).toThrow(RangeError);
    });
  }

  it('a token number never reads as a command number (CT is not C + digit)', () => {
    fc.assert(fc.property(timeArb, randomArb, (now, random) => {
      expect(newTokenNo(now, random)).not.toMatch(/^C\d/);
      expect(newCommandNo(now, random)).toMatch(/^C\d/);
    }));
  });

  it('different random bytes within one second give different numbers unless equal modulo 10^8', () => {
    fc.assert(fc.property(timeArb, randomArb, randomArb, (now, r1, r2) => {
      const same = Buffer.from(r1).readBigUInt64BE(0) % 100_000_000n === Buffer.from(r2).readBigUInt64BE(0) % 100_000_000n;
      expect(newTaskNo(now, r1) === newTaskNo(now, r2)).toBe(same);
    }));
  });
});
