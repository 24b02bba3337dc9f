import { stringify } from 'csv-stringify/sync';
import { validationError } from '../../core/domain/errors.js';
import type { RawResult } from './route.js';

/** The media type of a CSV answer (RFC 4180, UTF-8). */
export const CSV_MEDIA_TYPE = 'text/csv; charset=utf-8';

/**
 * Whether a list or statement is asked for as CSV (issue #36): `format=csv` (or `format=json`) decides; without it,
 * the Accept header does when it prefers text/csv to application/json (by q, then by order). Any other `format` is a
 * VALIDATION-ERROR, answered (like every error) in the JSON envelope.
 */
export function wantsCsv(query: Readonly<Record<string, string>>, headers: Headers): boolean {
  const format = query['format'];
  if (format !== undefined) {
    if (format === 'csv') return true;
    if (format === 'json') return false;
    throw validationError('format', 'must be csv or json');
  }
  const accept = headers.get('accept');
  if (accept === null) return false;
  let best: { csv: boolean; q: number } | undefined;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    if (type !== 'text/csv' && type !== 'application/json') continue;
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q > 0)) continue;
    if (best === undefined || q > best.q) best = { csv: type === 'text/csv', q };
  }
  return best?.csv ?? false;
}

/**
 * A CSV answer: one header row naming the JSON fields (nested ones with a dot: `account.kind`, `cause.txid`), then one
 * row per item; an absent field is an empty cell. Every value the ledger writes is an id, an address, a time, an
 * enum or an integer string, never free text, so no cell can start a spreadsheet formula other than a signed number.
 */
export function csvAnswer(columns: readonly string[], rows: readonly object[], filename: string): RawResult {
  const body = stringify(rows as Record<string, unknown>[], { header: true, columns: columns.map((key) => ({ key })), record_delimiter: 'windows' });
  return {
    raw: {
      contentType: CSV_MEDIA_TYPE,
      // An empty list still names its columns.
      body: rows.length === 0 ? `${columns.join(',')}\r\n` : body,
      headers: { 'content-disposition': `attachment; filename="${filename}.csv"` },
    },
  };
}
