/**
 * Pagination over the two list shapes of the API, as one async iterator of items:
 * - `{ items, pagination: { page, per_page, total, pages } }` (wallets, commands, webhook deliveries);
 * - `{ data, meta: { current_page, per_page, total, last_page } }` (cashier tokens, spec §4).
 */
import { unwrap, type ApiResult, type DataOf } from './errors.js';

/** A page of the wallet, command and delivery lists. */
export interface ItemsPage<T> {
  readonly items: readonly T[];
  readonly pagination: { readonly page: number; readonly pages: number };
}

/** A page of the cashier token list. */
export interface DataMetaPage<T> {
  readonly data: readonly T[];
  readonly meta: { readonly current_page: number; readonly last_page: number };
}

/** The item type of a page of either shape. */
export type PageItem<P> = P extends { readonly items: readonly (infer T)[] } ? T
  : P extends { readonly data: readonly (infer T)[]; readonly meta: unknown } ? T : never;

/** Where a page of either shape stands: its items, its number and the last page's number. */
function pageOf(page: unknown): { items: readonly unknown[]; current: number; last: number } {
  const p = page as Partial<ItemsPage<unknown> & DataMetaPage<unknown>>;
  if (Array.isArray(p.items) && p.pagination !== undefined) return { items: p.items, current: p.pagination.page, last: p.pagination.pages };
  if (Array.isArray(p.data) && p.meta !== undefined) return { items: p.data, current: p.meta.current_page, last: p.meta.last_page };
  throw new TypeError('paginate: the answer is neither {items, pagination} nor {data, meta}');
}

/**
 * Every item of a list, page after page: `fetchPage(n)` makes the call for page n (pass `page` in its query). Each
 * page is unwrapped (a failure throws CustodyApiError); iteration stops after the last page or an empty one. Pages are
 * fetched lazily, one when the previous one is used up.
 * @example for await (const w of paginate((page) => client.GET('/api/wallets', { params: { query: { page, per_page: 100 } } }))) …
 */
export async function* paginate<R extends ApiResult>(
  fetchPage: (page: number) => Promise<R>, options: { readonly firstPage?: number } = {},
): AsyncGenerator<PageItem<DataOf<R>>, void, undefined> {
  for (let page = options.firstPage ?? 1; ; page += 1) {
    const { items, current, last } = pageOf(await unwrap(fetchPage(page)));
    for (const item of items) yield item as PageItem<DataOf<R>>;
    if (items.length === 0 || current >= last) return;
  }
}
