// Pieces shared by the Payments, Deposits, Addresses and Collections screens (issue #38): who may act, the assets, the
// API's two time formats, the two paging shapes, a filter form, and the small cells these lists show.
import { html, useEffect, useRef } from '../lib/html.js';
import { parseApiTime } from '../lib/format.js';

export const ALL_ROLES = Object.freeze(['owner', 'admin', 'approver', 'operator', 'viewer']);
/**
 * POST /cashier/tokens and POST /wallets are developer routes: through the console's cookie the owner, admins and
 * operators may write them (hosts/api/pipeline.ts consoleDeveloperRoute, CONSOLE_DEVELOPER_WRITERS).
 */
export const CREATE_ROLES = Object.freeze(['owner', 'admin', 'operator']);
/** POST /transfers (a refund is a withdrawal with refund_of): OPERATOR_ROLES. */
export const REFUND_ROLES = Object.freeze(['owner', 'operator']);
/** The assets a TRON account of the hub holds (spec §1). */
export const ASSETS = Object.freeze(['USDT', 'TRX']);

/** An API time (ISO, or the wallet routes' UTC "YYYY-MM-DD HH:MM:SS") as ISO 8601, for <Time> and for comparing. */
export function isoOf(text) {
  if (text === null || text === undefined || text === '') return null;
  const date = parseApiTime(text);
  return Number.isNaN(date.getTime()) ? String(text) : date.toISOString();
}

/** Milliseconds of an API time (NaN when none). */
export const msOf = (text) => (text ? parseApiTime(text).getTime() : Number.NaN);

/** "?a=1&b=2" of the non-empty values, for an address of the console (filters live in the address). */
export function queryOf(values) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The page number of an address's `page` (1 when absent or not a positive integer). */
export function pageOf(query) {
  const page = Number(query.get('page') ?? '1');
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** A filter form: labelled fields in a row that wraps, and its search button. */
export function Filters({ label, onSubmit, children, t, onClear }) {
  return html`<form class="filters" role="search" aria-label=${label} onSubmit=${(e) => { e.preventDefault(); onSubmit(); }}>
    ${children}
    <div class="actions">
      <button type="submit" class="primary">${t('search')}</button>
      ${onClear ? html`<button type="button" onClick=${onClear}>${t('clear')}</button>` : null}
    </div>
  </form>`;
}

/** A transaction id or an address, whole (it wraps), machine-readable. */
export function Mono({ value }) {
  if (value === null || value === undefined || value === '') return html`<span class="muted">—</span>`;
  return html`<code class="mono">${value}</code>`;
}

/** The texts these screens share, merged into each screen's messages. */
export const SHARED_MESSAGES = {
  en: {
    search: 'Search', clear: 'Clear', all: 'All', address: 'Address', asset: 'Asset', amount: 'Amount', status: 'Status', txid: 'Transaction',
    refresh_note: 'Updates by itself every few seconds.', main: 'Main address', sub: 'Sub-address', back: 'Back to the list',
  },
  zh: {
    search: '搜索', clear: '清除', all: '全部', address: '地址', asset: '资产', amount: '金额', status: '状态', txid: '交易',
    refresh_note: '每隔几秒自动更新。', main: '主地址', sub: '子地址', back: '返回列表',
  },
};

/** A screen's messages with the shared ones under them. */
export function withShared(messages) {
  return { en: { ...SHARED_MESSAGES.en, ...messages.en }, zh: { ...SHARED_MESSAGES.zh, ...messages.zh } };
}

/**
 * A ref for a heading (give it tabindex="-1") that takes the focus once `ready` turns true: a detail or a result that
 * replaces a list is announced and the keyboard goes on from there.
 */
export function useFocusWhenReady(ready) {
  const ref = useRef(null);
  const done = useRef(false);
  useEffect(() => {
    if (ready && !done.current && ref.current) {
      done.current = true;
      ref.current.focus();
    }
  }, [ready]);
  return ref;
}
