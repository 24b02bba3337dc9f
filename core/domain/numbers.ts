import type { Millis } from './model/common.js';

/** Bytes the number generators want from IdGenerator.randomBytes (8 bytes make the modulo bias negligible). */
export const NUMBER_RANDOM_BYTES = 8;

const RANDOM_DIGITS = 12;
const RANDOM_SPACE = 10n ** BigInt(RANDOM_DIGITS);

/** `YYYYMMDDHHMMSS` in UTC. */
function stamp(now: Millis): string {
  const d = new Date(now);
  const year = d.getUTCFullYear();
  if (!Number.isFinite(now) || year < 0 || year > 9999) throw new RangeError(`time out of range: ${now}`);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${String(year).padStart(4, '0')}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}`
    + `${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}`;
}

/** 12 decimal digits from the random bytes (big-endian integer modulo 10^12). */
function digits(random: Uint8Array): string {
  if (random.length < NUMBER_RANDOM_BYTES) throw new RangeError(`need at least ${NUMBER_RANDOM_BYTES} random bytes`);
  let n = 0n;
  for (const byte of random) n = (n << 8n) | BigInt(byte);
  return (n % RANDOM_SPACE).toString().padStart(RANDOM_DIGITS, '0');
}

function number(prefix: string, now: Millis, random: Uint8Array): string {
  return `${prefix}${stamp(now)}${digits(random)}`;
}

/**
 * Readable business numbers: prefix + UTC `YYYYMMDDHHMMSS` + 12 random digits, e.g. `C20260525100000123456789012`.
 * Fixed width, so numbers of one kind sort by creation second as plain strings; within a second the order is
 * random. 10^12 values per second: 10,000 numbers created in one second clash with probability 5·10^-5 (with 8
 * digits it was 39 %, which bench:collection's 10,000-sweep burst hit), and stores refuse duplicates anyway.
 * Prefixes: `C` commands, `T` collection tasks, `CT` cashier tokens (`CT` never collides with `C`+digit).
 */
export function newCommandNo(now: Millis, random: Uint8Array): string {
  return number('C', now, random);
}

/** A collection task number `T…` (see newCommandNo for the format). */
export function newTaskNo(now: Millis, random: Uint8Array): string {
  return number('T', now, random);
}

/** A cashier token number `CT…` (see newCommandNo for the format). */
export function newTokenNo(now: Millis, random: Uint8Array): string {
  return number('CT', now, random);
}
