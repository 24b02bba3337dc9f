// Small pieces the Withdrawals, Books, Developers and Security screens share (screen-local, not the shell's lib/).
import { ALL_ROLES } from './placeholder.js';

export { ALL_ROLES };
/** Owner and admin: policies, members, tokens, webhooks (the API's ADMIN_ROLES). */
export const ADMIN_ROLES = Object.freeze(['owner', 'admin']);

const STATUS_NAMES = { 1: 'PENDING', 2: 'RUNNING', 3: 'SUCCESS', 4: 'FAILED', 5: 'REJECTED', 6: 'CANCELLED' };
/** A command status number (spec §2) as its name. */
export const statusName = (status) => STATUS_NAMES[status] ?? String(status);

/** A wallet time ("YYYY-MM-DD HH:MM:SS", UTC, spec §2) as ISO 8601, for <Time>; ISO and null pass through. */
export function walletIso(text) {
  if (text === null || text === undefined || text === '') return text;
  return /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text) ? `${text.replace(' ', 'T')}Z` : text;
}

/** A local date input's value ("2026-01-31") as the start (or the end) of that day in the browser's zone, ISO with offset. */
export function localDayIso(day, end = false) {
  const [y, m, d] = day.split('-').map(Number);
  const date = end ? new Date(y, m - 1, d, 23, 59, 59) : new Date(y, m - 1, d);
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
