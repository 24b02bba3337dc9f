import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { formatIsoTime, formatWalletTime, parseIsoTime, parseWalletTime } from './time.js';

const YEAR_0 = new Date(0).setUTCFullYear(0, 0, 1);
const YEAR_9999_END = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const anyTime = fc.integer({ min: YEAR_0, max: YEAR_9999_END });
const wholeSeconds = anyTime.map((ms) => ms - (((ms % 1000) + 1000) % 1000));

describe('wallet time (YYYY-MM-DD HH:MM:SS, UTC)', () => {
  it('formats a known instant', () => {
    expect(formatWalletTime(Date.UTC(2026, 4, 25, 10, 0, 0))).toBe('2026-05-25 10:00:00');
    expect(formatWalletTime(Date.UTC(2026, 0, 2, 3, 4, 5, 999))).toBe('2026-01-02 03:04:05');
  });

  it('has the exact shape for every instant', () => {
    fc.assert(fc.property(anyTime, (ms) => {
      expect(formatWalletTime(ms)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    }));
  });

  it('round-trips to the instant truncated to the second', () => {
    fc.assert(fc.property(anyTime, (ms) => {
      expect(parseWalletTime(formatWalletTime(ms))).toBe(ms - (((ms % 1000) + 1000) % 1000));
    }));
  });

  it('parse then format is the identity on valid strings', () => {
    fc.assert(fc.property(wholeSeconds, (ms) => {
      const s = formatWalletTime(ms);
      expect(formatWalletTime(parseWalletTime(s)!)).toBe(s);
    }));
  });

  it.each([
    ['2026-02-30 00:00:00'], ['2026-13-01 00:00:00'], ['2026-05-25 24:00:00'], ['2026-05-25 10:60:00'],
    ['2026-05-25T10:00:00'], ['2026-05-25 10:00'], ['2026-05-25 10:00:00Z'], [' 2026-05-25 10:00:00'], [''],
  ])('refuses %j', (s) => {
    expect(parseWalletTime(s)).toBeNull();
  });

  it('refuses instants outside years 0000-9999', () => {
    expect(() => formatWalletTime(YEAR_0 - 1)).toThrow(RangeError);
    expect(() => formatWalletTime(YEAR_9999_END + 1)).toThrow(RangeError);
    expect(() => formatWalletTime(Number.NaN)).toThrow(RangeError);
  });
});

describe('ISO 8601 time with explicit offset', () => {
  it('formats a known instant with +00:00', () => {
    expect(formatIsoTime(Date.UTC(2026, 4, 25, 10, 0, 0))).toBe('2026-05-25T10:00:00+00:00');
  });

  it('has the exact shape for every instant', () => {
    fc.assert(fc.property(anyTime, (ms) => {
      expect(formatIsoTime(ms)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
    }));
  });

  it('round-trips to the instant truncated to the second, and agrees with the wallet format', () => {
    fc.assert(fc.property(anyTime, (ms) => {
      const parsed = parseIsoTime(formatIsoTime(ms));
      expect(parsed).toBe(parseWalletTime(formatWalletTime(ms)));
    }));
  });

  it('honours offsets, Z and milliseconds', () => {
    const t = Date.UTC(2026, 4, 25, 10, 0, 0);
    expect(parseIsoTime('2026-05-25T12:30:00+02:30')).toBe(t);
    expect(parseIsoTime('2026-05-25T05:00:00-05:00')).toBe(t);
    expect(parseIsoTime('2026-05-25T10:00:00Z')).toBe(t);
    expect(parseIsoTime('2026-05-25T10:00:00.250Z')).toBe(t + 250);
  });

  it('agrees with Date.parse on every offset', () => {
    fc.assert(fc.property(wholeSeconds, fc.integer({ min: -23 * 60, max: 23 * 60 }), (ms, offsetMin) => {
      const local = new Date(ms + offsetMin * 60_000);
      if (local.getUTCFullYear() < 1000 || local.getUTCFullYear() > 9999) return;
      const sign = offsetMin < 0 ? '-' : '+';
      const abs = Math.abs(offsetMin);
      const off = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
      const s = local.toISOString().slice(0, 19) + off;
      expect(parseIsoTime(s)).toBe(ms);
      expect(parseIsoTime(s)).toBe(Date.parse(s));
    }));
  });

  it.each([
    ['2026-05-25T10:00:00'], ['2026-05-25 10:00:00+00:00'], ['2026-05-25T10:00+00:00'], ['2026-02-29T00:00:00Z'],
    ['2026-05-25T10:00:00+24:00'], ['2026-05-25T10:00:00+00:60'], ['2026-05-25T10:00:00+0000'], [''],
  ])('refuses %j', (s) => {
    expect(parseIsoTime(s)).toBeNull();
  });
});
