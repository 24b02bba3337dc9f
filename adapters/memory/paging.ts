import type { Page, PageRequest } from '../../core/ports/page.js';
import { outboundCopies } from './frozen-copy.js';

/** Cuts one page out of an already ordered list and copies it out of the store. */
export function pageOf<T>(ordered: readonly T[], page: PageRequest): Page<T> {
  return { items: outboundCopies(ordered.slice(page.offset, page.offset + page.limit)), total: ordered.length };
}

/** One page from an index's slice of keys (already in list order), copied out of the table. */
export function pageOfKeys<K, T>(table: ReadonlyMap<K, T>, slice: { readonly keys: readonly K[]; readonly total: number }): Page<T> {
  return { items: outboundCopies(slice.keys.map((key) => table.get(key)!)), total: slice.total };
}
