import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TronWeb, utils } from 'tronweb';
import { DomainError } from '../../core/domain/errors.js';
import { hexAddress } from './tron-intents.js';

describe('hexAddress (remembered conversions)', () => {
  it('answers as tronweb every time, remembered or not, and refuses what tronweb refuses', () => {
    const accounts = Array.from({ length: 5 }, () => utils.accounts.generateAccount());
    const text = fc.oneof(
      fc.constantFrom(...accounts.map((a) => a.address.base58), ...accounts.map((a) => a.address.hex)),
      fc.constantFrom(...accounts.map((a) => `${a.address.base58.slice(0, 33)}${a.address.base58[33] === 'a' ? 'b' : 'a'}`)),
      fc.string({ maxLength: 40 }),
    );
    fc.assert(fc.property(fc.array(text, { minLength: 1, maxLength: 20 }), (texts) => {
      for (const t of texts) {
        const expected = TronWeb.isAddress(t) ? TronWeb.address.toHex(t).toLowerCase() : 'refused';
        let got: string;
        try {
          got = hexAddress(t, 'to');
        } catch (e) {
          expect(e).toBeInstanceOf(DomainError);
          got = 'refused';
        }
        expect(got).toBe(expected);
      }
    }), { numRuns: runs(200), seed: 154 });
  });
});
