// Amounts and times as people read them (issue #38 item 6). Amounts are integer strings of the asset's smallest unit
// on the wire; they are shown in units without ever passing through a floating-point number.

/** Decimal places per asset symbol (spec §1: TRX and USDT have 6). */
export const DECIMALS = Object.freeze({ TRX: 6, USDT: 6 });

/** The decimals of an asset, 6 when unknown (every TRON asset the hub handles has 6). */
export function decimalsOf(asset) {
  return DECIMALS[asset] ?? 6;
}

/**
 * "1234567" (smallest units) and "USDT" -> "1.234567 USDT"; thousands grouped, trailing zeros of the fraction dropped
 * (at least `minFraction` kept). A string that is not an integer is shown as it is.
 */
export function formatAmount(raw, asset, { lang = 'en', minFraction = 0, withAsset = true } = {}) {
  const text = String(raw ?? '');
  if (!/^-?[0-9]+$/.test(text)) return withAsset && asset ? `${text} ${asset}` : text;
  const negative = text.startsWith('-');
  const digits = (negative ? text.slice(1) : text).replace(/^0+(?=[0-9])/, '');
  const decimals = decimalsOf(asset);
  const padded = digits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, padded.length - decimals);
  let fraction = padded.slice(padded.length - decimals).replace(/0+$/, '');
  if (fraction.length < minFraction) fraction = fraction.padEnd(minFraction, '0');
  const grouped = BigInt(whole).toLocaleString(lang === 'zh' ? 'zh-CN' : 'en-US');
  const number = `${negative && (whole !== '0' || fraction !== '') ? '-' : ''}${grouped}${fraction === '' ? '' : `.${fraction}`}`;
  return withAsset && asset ? `${number} ${asset}` : number;
}

/** Sums integer strings exactly (BigInt) and answers an integer string. */
export function sumAmounts(values) {
  let total = 0n;
  for (const v of values) if (/^-?[0-9]+$/.test(String(v))) total += BigInt(v);
  return total.toString();
}

/** "1.5" units of an asset -> "1500000" smallest units; null when not a plain non-negative decimal with at most its decimals. */
export function parseAmount(text, asset) {
  const decimals = decimalsOf(asset);
  const match = /^\s*([0-9]+)(?:\.([0-9]*))?\s*$/.exec(String(text));
  if (match === null || (match[2] ?? '').length > decimals) return null;
  return BigInt(`${match[1]}${(match[2] ?? '').padEnd(decimals, '0')}`).toString();
}

/**
 * The instant of an API time: ISO 8601 with its offset, or the wallet routes' "YYYY-MM-DD HH:MM:SS", which is UTC (spec
 * §2; `new Date` would read it in the browser's zone).
 */
export function parseApiTime(text) {
  const wallet = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/.exec(String(text));
  return new Date(wallet === null ? text : `${wallet[1]}T${wallet[2]}Z`);
}

/** An API time in the browser's zone ("2026-01-02 09:30") and the same instant in UTC, for a title on hover. */
export function formatTime(iso, lang = 'en') {
  if (iso === null || iso === undefined || iso === '') return { local: '—', utc: '' };
  const date = parseApiTime(iso);
  if (Number.isNaN(date.getTime())) return { local: String(iso), utc: '' };
  const local = new Intl.DateTimeFormat(lang === 'zh' ? 'zh-CN' : 'en-GB', {
    year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false,
  }).format(date);
  return { local, utc: `${date.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, '')} UTC` };
}

/** The start of the local day `daysAgo` days before today, as a Date. */
export function startOfLocalDay(daysAgo = 0, now = new Date()) {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() - daysAgo);
}

/** A local calendar day as YYYY-MM-DD. */
export function localDay(date) {
  const d = date instanceof Date ? date : new Date(date);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
