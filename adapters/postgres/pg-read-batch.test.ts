import { describe, expect, it } from 'vitest';
import { ReadBatch } from './pg-read-batch.js';

/** A ReadBatch over a map, recording the keys of each call. */
function batchOver(values: ReadonlyMap<string, number>, maxKeys?: number, fail = false) {
  const calls: string[][] = [];
  const batch = new ReadBatch<string, number>(async (keys) => {
    calls.push(keys);
    if (fail) throw new Error('store down');
    return new Map(keys.flatMap((k) => (values.has(k) ? [[k, values.get(k)!] as const] : [])));
  }, maxKeys);
  return { batch, calls };
}

describe('ReadBatch (reads asked in one turn, sent as one)', () => {
  it('answers each caller its own key (null when not found) from one call per turn, each key once', async () => {
    const { batch, calls } = batchOver(new Map([['a', 1], ['b', 2]]));
    expect(await Promise.all([batch.read('a'), batch.read('b'), batch.read('a'), batch.read('z')])).toEqual([1, 2, 1, null]);
    expect(calls).toEqual([['a', 'b', 'z']]);
    expect(await batch.read('b')).toBe(2);
    expect(calls).toEqual([['a', 'b', 'z'], ['b']]);
  });

  it('splits a turn beyond maxKeys into several calls', async () => {
    const { batch, calls } = batchOver(new Map([['a', 1], ['b', 2], ['c', 3]]), 2);
    expect(await Promise.all(['a', 'b', 'c'].map((k) => batch.read(k)))).toEqual([1, 2, 3]);
    expect(calls).toEqual([['a', 'b'], ['c']]);
  });

  it('a failing call fails every caller of it', async () => {
    const { batch } = batchOver(new Map(), undefined, true);
    const results = await Promise.allSettled([batch.read('a'), batch.read('a'), batch.read('b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
  });
});
