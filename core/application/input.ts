import { parsePositiveAmount } from '../domain/amount.js';
import { DomainError, validationError } from '../domain/errors.js';

/** A parsed JSON body or query object, field by field. */
export type Fields = Readonly<Record<string, unknown>>;

/**
 * The raw body or query as an object. Absent bodies (undefined/null) read as `{}` so optional-body endpoints work
 * and required fields then fail by name; arrays and scalars are refused as a whole.
 */
export function fieldsOf(value: unknown, name = 'body'): Fields {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw validationError(name, 'must be a JSON object');
  return value as Fields;
}

/** A required non-empty string of at most `maxLength` characters. */
export function requireString(fields: Fields, field: string, maxLength = 255): string {
  const value = fields[field];
  if (value === undefined || value === null) throw validationError(field, 'is required');
  if (typeof value !== 'string') throw validationError(field, 'must be a string');
  if (value.length === 0) throw validationError(field, 'must not be empty');
  if (value.length > maxLength) throw validationError(field, `must be at most ${maxLength} characters`);
  return value;
}

/** An optional string (absent or null → null) of at most `maxLength` characters. */
export function optionalString(fields: Fields, field: string, maxLength = 255): string | null {
  const value = fields[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw validationError(field, 'must be a string');
  if (value.length > maxLength) throw validationError(field, `must be at most ${maxLength} characters`);
  return value;
}

/** An optional JSON boolean; absent → `fallback`. Strings like "true" are refused: bodies are JSON. */
export function optionalBoolean(fields: Fields, field: string, fallback: boolean): boolean {
  const value = fields[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw validationError(field, 'must be a boolean');
  return value;
}

const DIGITS = /^-?[0-9]+$/;

/**
 * An optional integer from a body (JSON number) or a query string ("2"): undefined when absent, else a safe integer,
 * else VALIDATION-ERROR naming the field.
 */
export function optionalInteger(fields: Fields, field: string): number | undefined {
  const value = fields[field];
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && DIGITS.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
  throw validationError(field, 'must be an integer');
}

/** A required integer (see optionalInteger). */
export function requireInteger(fields: Fields, field: string): number {
  const value = optionalInteger(fields, field);
  if (value === undefined) throw validationError(field, 'is required');
  return value;
}

/** An optional integer that must be one of `allowed` (enum query parameters such as `type`). */
export function optionalEnum<T extends number>(fields: Fields, field: string, allowed: readonly T[]): T | undefined {
  const value = optionalInteger(fields, field);
  if (value === undefined) return undefined;
  const found = allowed.find((candidate) => candidate === value);
  if (found === undefined) throw validationError(field, `must be one of ${allowed.join(', ')}`);
  return found;
}

/** A positive integer id arriving as a path string ("42"). */
export function parseIdParam(raw: string, field: string): number | null {
  if (!/^[1-9][0-9]*$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}

/** TRON encodes transaction amounts as signed 64-bit integers; anything larger cannot be sent as asked. */
export const MAX_CHAIN_AMOUNT = 2n ** 63n - 1n;

/**
 * The required `amount` of a fund-moving request: a canonical positive integer string (spec §7 BIZ-AMOUNT-INVALID)
 * that also fits the chain's int64 amount field, so an oversized amount is refused up front instead of becoming a
 * PENDING command (and a balance_locked) that can never be executed.
 */
export function requireChainAmount(fields: Fields): bigint {
  if (fields['amount'] === undefined || fields['amount'] === null) throw validationError('amount', 'is required');
  const amount = parsePositiveAmount(fields['amount']);
  if (amount === null || amount > MAX_CHAIN_AMOUNT) throw new DomainError('BIZ-AMOUNT-INVALID');
  return amount;
}
