/**
 * jsonb's fast path (issue #22): the text it sends equals the per-value sanitising pass for every JSON value, with
 * U+0000, lone surrogates and backslashes in keys and strings. Runs without a server.
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonb, storableText } from './pg-support.js';

/** The sanitising pass every value took before the fast path. */
const reference = (value: unknown): string => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? storableText(v) : v));

/** Strings that often hold what PostgreSQL refuses, or what looks like its escape. */
const awkward = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.array(fc.constantFrom('\u0000', '\uD83D', '\uDE00', '\uDFFF', '\\', 'u0000', 'ud800', 'a', '\uD83D\uDE00'), { maxLength: 8 }).map((parts) => parts.join('')),
);

describe('jsonb', () => {
  it('sends the same text as the sanitising pass, for any JSON value', () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, awkward, fc.integer(), fc.boolean(), fc.constant(null),
        fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(awkward, tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(fc.property(value, (v) => {
      expect(jsonb(v)).toBe(v === null ? null : reference(v));
    }), { numRuns: runs(2_000) });
  });

  it('known answers: U+0000 and a lone surrogate become U+FFFD; a pair and an escaped backslash stay', () => {
    expect(jsonb({ m: 'a\u0000b' })).toBe('{"m":"a\uFFFDb"}');
    expect(jsonb(['\uDE00x'])).toBe('["\uFFFDx"]');
    expect(jsonb(['\uD83D\uDE00', '\\u0000'])).toBe('["\uD83D\uDE00","\\\\u0000"]');
    expect(jsonb(null)).toBeNull();
  });
});
