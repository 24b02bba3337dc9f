import { StoreError } from '../../core/domain/errors.js';

/**
 * Encodings shared by the durable stores' record codecs (domain value <-> plain record). A record holds only JSON
 * values: money as a decimal integer string (exact, never a double, never a 64-bit integer that wraps), times as
 * epoch milliseconds, optional values as null.
 */

/** bigint -> decimal integer string. */
export function encodeMoney(value: bigint): string {
  return value.toString(10);
}

const INTEGER_STRING = /^-?(0|[1-9][0-9]*)$/;

/** Decimal integer string -> bigint; a malformed stored value is a store fault, not a zero. */
export function decodeMoney(value: unknown, field: string): bigint {
  if (typeof value !== 'string' || !INTEGER_STRING.test(value)) {
    throw new StoreError('INTERNAL-ERROR', `stored ${field} is not an integer string`, { transient: false });
  }
  return BigInt(value);
}

/** encodeMoney for an optional amount (null stays null). */
export function encodeOptionalMoney(value: bigint | null): string | null {
  return value === null ? null : encodeMoney(value);
}

/** decodeMoney for an optional amount; null and a missing field read as null. */
export function decodeOptionalMoney(value: unknown, field: string): bigint | null {
  return value === null || value === undefined ? null : decodeMoney(value, field);
}

/** A stored optional value: null and a missing field both read as null. */
export function nullable<T>(value: T | null | undefined): T | null {
  return value ?? null;
}
