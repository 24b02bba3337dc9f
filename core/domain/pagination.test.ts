import { runs } from '../../contracts-tests/support/depth.js';
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { DomainError } from './errors.js';
import { PAGE_LIMITS, parsePageQuery, toItemsPage, toMetaPage, type ListKind } from './pagination.js';

const kind = fc.constantFrom<ListKind>('standard', 'cashier');

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('VALIDATION-ERROR');
    return (error as DomainError).field;
  }
  return undefined;
}

describe('parsePageQuery', () => {
  it('uses the spec defaults: page 1, per_page 20 (standard) or 15 (cashier)', () => {
    expect(parsePageQuery({}, 'standard')).toEqual({ page: 1, perPage: 20, offset: 0, limit: 20 });
    expect(parsePageQuery({}, 'cashier')).toEqual({ page: 1, perPage: 15, offset: 0, limit: 15 });
  });

  it('accepts every in-range decimal string and yields offset = (page - 1) * perPage', () => {
    fc.assert(fc.property(kind, fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 100 }), (k, page, perPage) => {
      const q = parsePageQuery({ page: String(page), per_page: String(perPage) }, k);
      expect(q).toEqual({ page, perPage, offset: (page - 1) * perPage, limit: perPage });
    }));
  });

  it('never yields out-of-range values for any input it accepts', () => {
    const raw = fc.oneof(fc.constant(undefined), fc.string(), fc.integer().map(String), fc.integer(), fc.double());
    fc.assert(fc.property(kind, raw, raw, (k, page, perPage) => {
      let q;
      try {
        q = parsePageQuery({ page, per_page: perPage }, k);
      } catch (error) {
        expect((error as DomainError).code).toBe('VALIDATION-ERROR');
        expect(['page', 'per_page']).toContain((error as DomainError).field);
        return;
      }
      expect(Number.isSafeInteger(q.page) && q.page >= 1).toBe(true);
      expect(q.perPage).toBeGreaterThanOrEqual(1);
      expect(q.perPage).toBeLessThanOrEqual(PAGE_LIMITS[k].maxPerPage);
      expect(Number.isSafeInteger(q.offset) && q.offset >= 0).toBe(true);
    }), { numRuns: runs(300) });
  });

  it.each([['0'], ['-1'], ['2.5'], [''], ['abc'], ['1e1'], [' 1'], ['+1'], ['0x1'], ['99999999999999999999']])(
    'rejects page=%j naming the field',
    (page) => {
      expect(fieldOf(() => parsePageQuery({ page }, 'standard'))).toBe('page');
    },
  );

  it.each([['0'], ['101'], ['2.5'], [''], ['abc'], ['1e1'], ['-5']])('rejects per_page=%j naming the field', (perPage) => {
    expect(fieldOf(() => parsePageQuery({ per_page: perPage }, 'standard'))).toBe('per_page');
    expect(fieldOf(() => parsePageQuery({ per_page: perPage }, 'cashier'))).toBe('per_page');
  });

  it('rejects per_page above 100 for both kinds and accepts exactly 100', () => {
    fc.assert(fc.property(kind, fc.integer({ min: 101, max: 1_000_000 }), (k, perPage) => {
      expect(fieldOf(() => parsePageQuery({ per_page: String(perPage) }, k))).toBe('per_page');
    }));
    expect(parsePageQuery({ per_page: '100' }, 'cashier').perPage).toBe(100);
  });

  it('rejects a page so large that the offset would lose precision', () => {
    expect(fieldOf(() => parsePageQuery({ page: String(Number.MAX_SAFE_INTEGER), per_page: '100' }, 'standard'))).toBe('page');
  });
});

describe('page envelopes', () => {
  it('pages = ceil(total / perPage), 0 for an empty list', () => {
    fc.assert(fc.property(fc.nat(1_000_000), fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 1000 }), (total, perPage, page) => {
      const p = toItemsPage([], total, page, perPage);
      expect(p.pagination.pages).toBe(Math.ceil(total / perPage));
      expect(p.pagination.pages * perPage).toBeGreaterThanOrEqual(total);
      expect((p.pagination.pages - 1) * perPage).toBeLessThan(Math.max(total, 1));
      expect(p.pagination).toMatchObject({ page, per_page: perPage, total });
    }));
    expect(toItemsPage([], 0, 1, 20).pagination.pages).toBe(0);
  });

  it('last_page = max(1, ceil(total / perPage))', () => {
    fc.assert(fc.property(fc.nat(1_000_000), fc.integer({ min: 1, max: 100 }), (total, perPage) => {
      const p = toMetaPage(['x'], total, 1, perPage);
      expect(p.meta.last_page).toBe(total === 0 ? 1 : Math.ceil(total / perPage));
      expect(p.data).toEqual(['x']);
    }));
    expect(toMetaPage([], 0, 1, 15).meta).toEqual({ current_page: 1, per_page: 15, total: 0, last_page: 1 });
    expect(toMetaPage([], 31, 2, 15).meta).toEqual({ current_page: 2, per_page: 15, total: 31, last_page: 3 });
  });

  it('carries the items unchanged', () => {
    expect(toItemsPage([1, 2], 2, 1, 20)).toEqual({ items: [1, 2], pagination: { page: 1, per_page: 20, total: 2, pages: 1 } });
  });
});
