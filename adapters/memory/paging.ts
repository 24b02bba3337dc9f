import type { Page, PageRequest } from '../../core/ports/page.js';
import { outboundCopies } from './frozen-copy.js';

/** Cuts one page out of an already ordered list and copies it out of the store. */
export function pageOf<T>(ordered: readonly T[], page: PageRequest): Page<T> {
  return { items: outboundCopies(ordered.slice(page.offset, page.offset + page.limit)), total: ordered.length };
}

/**
 * Newest first by `createdAt`; among equal times the later inserted comes first. `inserted` must be in insertion
 * order (a Map's iteration order), so reversing it and sorting stably gives that tie-break.
 */
export function newestFirst<T extends { readonly createdAt: number }>(inserted: readonly T[]): T[] {
  return [...inserted].reverse().sort((a, b) => b.createdAt - a.createdAt);
}
