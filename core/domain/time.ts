import type { Millis } from './model/common.js';

const WALLET_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?(Z|[+-]\d{2}:\d{2})$/;

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function requireRepresentable(ms: number): Date {
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  if (!Number.isFinite(ms) || year < 0 || year > 9999) throw new RangeError(`time out of range: ${ms}`);
  return date;
}

/** Whole-second UTC parts of the date, shared by both formats. */
function utcParts(date: Date): { date: string; time: string } {
  return {
    date: `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`,
    time: `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`,
  };
}

/**
 * Wallet-side timestamp, spec §2: `YYYY-MM-DD HH:MM:SS`, always UTC (DESIGN.md). Milliseconds are truncated,
 * so parseWalletTime(formatWalletTime(ms)) is ms rounded down to the second. Years outside 0000-9999 throw.
 */
export function formatWalletTime(ms: Millis): string {
  const parts = utcParts(requireRepresentable(ms));
  return `${parts.date} ${parts.time}`;
}

/**
 * ISO 8601 with an explicit offset (spec: cashier timestamps "ISO 8601 with offset"): `2026-05-25T10:00:00+00:00`.
 * Whole seconds, like the wallet format, so both renderings of one instant agree.
 */
export function formatIsoTime(ms: Millis): string {
  const parts = utcParts(requireRepresentable(ms));
  return `${parts.date}T${parts.time}+00:00`;
}

/** Epoch ms of a calendar-valid UTC date-time, or null when a field overflows (Feb 30, 24:00 ...). */
function fromParts(y: number, mo: number, d: number, h: number, mi: number, s: number, frac: number): number | null {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, frac);
  const ok = date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d
    && date.getUTCHours() === h && date.getUTCMinutes() === mi && date.getUTCSeconds() === s;
  return ok ? date.getTime() : null;
}

/** Parses `YYYY-MM-DD HH:MM:SS` as UTC; null for any other shape or an impossible date. */
export function parseWalletTime(s: string): Millis | null {
  const m = WALLET_TIME.exec(s);
  if (m === null) return null;
  const [, y, mo, d, h, mi, sec] = m.map(Number) as [number, number, number, number, number, number, number];
  return fromParts(y, mo, d, h, mi, sec, 0);
}

/**
 * Parses ISO 8601 date-times with seconds and an explicit offset (`Z` or `±HH:MM`), optionally with milliseconds;
 * null for local times without an offset (ambiguous) or an impossible date.
 */
export function parseIsoTime(s: string): Millis | null {
  const m = ISO_TIME.exec(s);
  if (m === null) return null;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const base = fromParts(y, mo, d, h, mi, sec, m[7] === undefined ? 0 : Number(m[7]));
  if (base === null) return null;
  const offset = m[8]!;
  if (offset === 'Z') return base;
  const oh = Number(offset.slice(1, 3));
  const om = Number(offset.slice(4, 6));
  if (oh > 23 || om > 59) return null;
  const sign = offset.startsWith('-') ? -1 : 1;
  return base - sign * (oh * 60 + om) * 60_000;
}
