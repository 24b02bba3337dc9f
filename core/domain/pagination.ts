import { validationError } from './errors.js';

/** Which list a page belongs to: wallet/command lists (`standard`) or the cashier token list (`cashier`). */
export type ListKind = 'standard' | 'cashier';

/** Spec §8: per_page default 20 (wallets, commands) or 15 (cashier tokens), max 100 for both. */
export const PAGE_LIMITS: Readonly<Record<ListKind, { readonly defaultPerPage: number; readonly maxPerPage: number }>> = {
  standard: { defaultPerPage: 20, maxPerPage: 100 },
  cashier: { defaultPerPage: 15, maxPerPage: 100 },
};

/** A validated page request: 1-based page and size, plus the offset/limit a repository takes. */
export interface PageQuery {
  readonly page: number;
  readonly perPage: number;
  readonly offset: number;
  readonly limit: number;
}

/** Plain decimal digits only: "20" yes; "2.5", "", "abc", "1e1", " 2", "+2", "-1" no. */
const DIGITS = /^[0-9]+$/;

function parseIntegerParam(field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value !== 'string' || !DIGITS.test(value)) throw validationError(field, 'must be a positive integer');
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw validationError(field, 'is too large');
  return n;
}

/**
 * Validates `page` and `per_page` of a list query. Absent values take the defaults; anything that is not a plain
 * integer, a page below 1, or a per_page outside 1..max throws VALIDATION-ERROR naming the field (DESIGN.md).
 * Pages so far out that the offset is not a safe integer are refused too, so the offset never loses precision.
 */
export function parsePageQuery(query: { page?: unknown; per_page?: unknown }, kind: ListKind): PageQuery {
  const limits = PAGE_LIMITS[kind];
  const page = parseIntegerParam('page', query.page, 1);
  if (page < 1) throw validationError('page', 'must be at least 1');
  const perPage = parseIntegerParam('per_page', query.per_page, limits.defaultPerPage);
  if (perPage < 1 || perPage > limits.maxPerPage) {
    throw validationError('per_page', `must be between 1 and ${limits.maxPerPage}`);
  }
  const offset = (page - 1) * perPage;
  if (!Number.isSafeInteger(offset)) throw validationError('page', 'is too large');
  return { page, perPage, offset, limit: perPage };
}

/** Wallet and command lists: `data.items[]` and `data.pagination {page, per_page, total, pages}`. */
export interface ItemsPage<T> {
  readonly items: T[];
  readonly pagination: { readonly page: number; readonly per_page: number; readonly total: number; readonly pages: number };
}

/** Cashier token list (Laravel-like shape): `data.data[]` and `data.meta {current_page, per_page, total, last_page}`. */
export interface MetaPage<T> {
  readonly data: T[];
  readonly meta: { readonly current_page: number; readonly per_page: number; readonly total: number; readonly last_page: number };
}

/**
 * `pages` counts the pages that hold items: ceil(total / perPage), so an empty list has 0 pages — it tells a client
 * "nothing to fetch". The cashier list's `last_page` follows the Laravel paginator convention its shape comes from,
 * where the last page is at least 1 (page 1 exists, empty): max(1, ceil(total / perPage)).
 */
export function toItemsPage<T>(items: T[], total: number, page: number, perPage: number): ItemsPage<T> {
  return { items, pagination: { page, per_page: perPage, total, pages: Math.ceil(total / perPage) } };
}

/** See toItemsPage for why last_page is 1 (not 0) for an empty list. */
export function toMetaPage<T>(data: T[], total: number, page: number, perPage: number): MetaPage<T> {
  return { data, meta: { current_page: page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) } };
}
