import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { interleave, kindOf } from '../.config/wait-first-sequencer.js';
import { runs } from '../contracts-tests/support/depth.js';

describe("npm test's start order (.config/wait-first-sequencer.ts, issue #39 item 9)", () => {
  it('spreads the waiting files through the filling ones: every file once, each list in its order, never two waiting files with more than their share of filling files missing between them', () => {
    fc.assert(fc.property(fc.nat(40), fc.nat(300), (waitingCount, fillingCount) => {
      const waiting = Array.from({ length: waitingCount }, (_, i) => `w${i}`);
      const filling = Array.from({ length: fillingCount }, (_, i) => `f${i}`);
      const order = interleave(waiting, filling);
      expect([...order].sort()).toEqual([...waiting, ...filling].sort());
      expect(order.filter((f) => f.startsWith('w'))).toEqual(waiting);
      expect(order.filter((f) => f.startsWith('f'))).toEqual(filling);
      // Between two waiting files stand floor or ceil of the filling files' share.
      const at = waiting.map((w) => order.indexOf(w));
      const share = waitingCount === 0 ? 0 : fillingCount / waitingCount;
      for (let i = 1; i < at.length; i++) {
        const between = at[i]! - at[i - 1]! - 1;
        expect(between).toBeGreaterThanOrEqual(Math.floor(share));
        expect(between).toBeLessThanOrEqual(Math.ceil(share));
      }
    }), { numRuns: runs(200) });
  });

  it('tells a file kind by its name', () => {
    expect(['a/x.integration.test.ts', 'a/x.browser.test.ts', 'a/x.test.ts', 'a/integration.x.test.ts'].map(kindOf))
      .toEqual(['integration', 'browser', 'unit', 'unit']);
  });
});
