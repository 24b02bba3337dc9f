import { describe, expect, it } from 'vitest';
import { parseDepth, QUICK_DEPTH, runs, scaled } from './depth.js';

describe('TEST_DEPTH, the one knob of the property and crash tests', () => {
  it('unset or empty is the quick depth of npm test; a positive number is taken as given; anything else is refused', () => {
    expect(parseDepth(undefined)).toBe(QUICK_DEPTH);
    expect(parseDepth(' ')).toBe(QUICK_DEPTH);
    expect(parseDepth('1')).toBe(1);
    expect(parseDepth('4')).toBe(4);
    for (const bad of ['0', '-1', 'deep', 'NaN', 'Infinity']) expect(() => parseDepth(bad)).toThrow(/TEST_DEPTH must be a positive number/);
  });

  it('full depth runs exactly what the tests write, deeper runs more, npm test a quarter but never below min(full, 10)', () => {
    expect([300, 50, 20, 6, 1].map((n) => runs(n, 1))).toEqual([300, 50, 20, 6, 1]);
    expect([300, 50, 20, 6, 1].map((n) => runs(n, 4))).toEqual([1_200, 200, 80, 24, 4]);
    expect([2_000, 300, 50, 20, 6, 1].map((n) => runs(n, QUICK_DEPTH))).toEqual([500, 75, 13, 10, 6, 1]);
  });

  it('a crash batch keeps its floor at the quick depth and its written size at full depth', () => {
    expect(scaled(20, 13, QUICK_DEPTH)).toBe(13);
    expect(scaled(7, 3, QUICK_DEPTH)).toBe(3);
    expect(scaled(12, 4, QUICK_DEPTH)).toBe(4);
    expect(scaled(20, 13, 1)).toBe(20);
    expect(scaled(7, 3, 2)).toBe(14);
  });
});
