/**
 * Model test of LayeredMap against what it replaces: one plain Map per state, deep-copied on every fork. Layers are
 * used as chain.ts uses them: block layers sealed read-only when the next one is forked, transaction forks that are
 * committed or dropped, the bottom layer absorbed into the next, and a sealed layer reopened (a reorg's fork point).
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LayeredMap } from './layered-map.js';

interface Rec {
  x: number;
  y: number;
}
const copy = (r: Rec): Rec => ({ ...r });
const measures = [(r: Rec) => r.x, (r: Rec) => r.y];

interface Layer {
  map: LayeredMap<Rec>;
  model: Map<string, Rec>;
  kind: 'block' | 'tx';
}

const key = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const step = (t: 'seal' | 'fork' | 'commit' | 'drop' | 'absorb') => fc.constant({ t });
const op = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant('set' as const), k: key, x: fc.integer({ min: 0, max: 9 }), y: fc.integer({ min: 0, max: 9 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('delete' as const), k: key }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('mutate' as const), k: key, x: fc.integer({ min: 0, max: 9 }) }) },
  { weight: 3, arbitrary: step('seal') },
  { weight: 1, arbitrary: step('fork') },
  { weight: 1, arbitrary: step('commit') },
  { weight: 1, arbitrary: step('drop') },
  { weight: 2, arbitrary: step('absorb') },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('reopen' as const), back: fc.nat(4) }) },
);

function expectSame(l: Layer): void {
  expect([...l.map.entries()]).toEqual([...l.model.entries()]);
  const sums = measures.map((m) => [...l.model.values()].reduce((n, r) => n + m(r), 0));
  expect(l.map.sums()).toEqual(sums);
  for (const k of ['a', 'b', 'c', 'd', 'e', 'f']) expect(l.map.peek(k)).toEqual(l.model.get(k));
  const view = l.map.fork();
  view.setWritable(false);
  expect([...view.entries()]).toEqual([...l.model.entries()]);
  expect(view.sums()).toEqual(sums);
}

describe('LayeredMap', () => {
  it('every layer reads exactly like a deep copy taken when it was forked, through any sequence of operations', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 10, maxLength: 80 }), (ops) => {
        const stack: Layer[] = [{ map: new LayeredMap<Rec>(undefined, copy, measures), model: new Map(), kind: 'block' }];
        const top = () => stack[stack.length - 1]!;
        for (const o of ops) {
          const t = top();
          switch (o.t) {
            case 'set':
              t.map.set(o.k, { x: o.x, y: o.y });
              t.model.set(o.k, { x: o.x, y: o.y });
              break;
            case 'delete':
              expect(t.map.delete(o.k)).toBe(t.model.delete(o.k));
              break;
            case 'mutate': {
              const r = t.map.get(o.k);
              if (r) r.x = o.x;
              const m = t.model.get(o.k);
              if (m) m.x = o.x;
              break;
            }
            case 'seal':
              if (t.kind !== 'block') break;
              t.map.setWritable(false);
              stack.push({ map: t.map.fork(), model: new Map([...t.model].map(([k, v]) => [k, copy(v)])), kind: 'block' });
              break;
            case 'fork':
              stack.push({ map: t.map.fork(), model: new Map([...t.model].map(([k, v]) => [k, copy(v)])), kind: 'tx' });
              break;
            case 'commit':
              if (t.kind !== 'tx') break;
              t.map.commit();
              stack.pop();
              top().model = t.model;
              break;
            case 'drop':
              if (t.kind === 'tx') stack.pop();
              break;
            case 'absorb':
              if (stack.length >= 3 && stack[1]!.kind === 'block') {
                stack[1]!.map.absorbParent();
                stack.shift();
              }
              break;
            case 'reopen': {
              if (t.kind !== 'block') break;
              const i = Math.max(0, stack.length - 1 - o.back);
              stack.length = i + 1;
              stack[i]!.map.setWritable(true);
              break;
            }
          }
          for (const l of stack) expectSame(l);
        }
      }),
      {
        numRuns: runs(500),
        examples: [[[{ t: 'set', k: 'a', x: 1, y: 0 }, { t: 'set', k: 'b', x: 2, y: 0 }, { t: 'seal' }, { t: 'delete', k: 'a' }, { t: 'set', k: 'a', x: 3, y: 0 }, { t: 'seal' }, { t: 'absorb' }]]],
      },
    );
  });

  it('a deleted key set again moves to the end of the iteration order, as in a Map', () => {
    const root = new LayeredMap<Rec>(undefined, copy, measures);
    root.set('a', { x: 1, y: 0 }).set('b', { x: 2, y: 0 });
    root.setWritable(false);
    const child = root.fork();
    child.delete('a');
    child.set('a', { x: 3, y: 0 });
    expect([...child.keys()]).toEqual(['b', 'a']);
    expect([...root.keys()]).toEqual(['a', 'b']);
    const other = root.fork();
    other.delete('b');
    const tx = other.fork();
    tx.set('b', { x: 4, y: 0 });
    tx.commit();
    expect([...other.keys()]).toEqual(['a', 'b']);
    other.delete('a');
    const tx2 = other.fork();
    tx2.set('a', { x: 5, y: 0 });
    tx2.commit();
    expect([...other.entries()]).toEqual([['b', { x: 4, y: 0 }], ['a', { x: 5, y: 0 }]]);
  });
});
