import { Buffer } from 'node:buffer';
import {
  CASHIER_TOKEN_PREFIX, CASHIER_TOKEN_TTLS, DEFAULT_CASHIER_TOKEN_TTL,
  type CashierToken, type CashierTokenTtl,
} from './model/cashier-token.js';
import type { Millis } from './model/common.js';
import { validationError, type ErrorCode } from './errors.js';

/** `ttl_minutes`: absent → 60; else exactly one of 60, 120, 480, 1440 (a JSON integer), else VALIDATION-ERROR. */
export function parseTtl(value: unknown): CashierTokenTtl {
  if (value === undefined) return DEFAULT_CASHIER_TOKEN_TTL;
  const allowed = CASHIER_TOKEN_TTLS.find((ttl) => ttl === value);
  if (allowed === undefined) throw validationError('ttl_minutes', `must be one of ${CASHIER_TOKEN_TTLS.join(', ')}`);
  return allowed;
}

/** A token authenticates only while active and strictly before expiresAt (at expiresAt it has expired). */
export function isTokenActive(token: Pick<CashierToken, 'status' | 'expiresAt'>, now: Millis): boolean {
  return token.status === 'active' && now < token.expiresAt;
}

/**
 * A new token's expiresAt: ttl_minutes from `now`, and for a token carrying a payment request never before its
 * deadline (issue #34: a payer given a day to pay is not locked out after an hour). Sliding (slideExpiry) follows.
 */
export function firstExpiry(now: Millis, ttlMinutes: number, payment: { readonly deadline: Millis } | undefined): Millis {
  const ttlEnd = now + ttlMinutes * 60_000;
  return payment === undefined ? ttlEnd : Math.max(ttlEnd, payment.deadline);
}

/** DESIGN.md: each successful payment request slides expiry to max(current, now + ttl); it never shortens. */
export function slideExpiry(token: Pick<CashierToken, 'expiresAt' | 'ttlMinutes'>, now: Millis): Millis {
  return Math.max(token.expiresAt, now + token.ttlMinutes * 60_000);
}

/** `expired` is not stored: it is an active token past expiresAt (see cashierTokenState). */
export type CashierTokenState = 'active' | 'disabled' | 'expired';
export type CashierTokenEvent = 'disable' | 'expire' | 'use';

/**
 * Spec §3 cashier token table, row by row. `use` is a payment-API request (it keeps the token active and slides
 * its expiry). Disabling an expired token is allowed: the merchant may still revoke it explicitly.
 */
export const CASHIER_TOKEN_TRANSITIONS = [
  { from: 'active', event: 'disable', to: 'disabled' },
  { from: 'disabled', event: 'disable', error: 'CASHIER-TOKEN-ALREADY-DISABLED' },
  { from: 'active', event: 'expire', to: 'expired' },
  { from: 'active', event: 'use', to: 'active' },
  { from: 'expired', event: 'use', error: 'CASHIER-TOKEN-INVALID' },
  { from: 'disabled', event: 'use', error: 'CASHIER-TOKEN-INVALID' },
  { from: 'expired', event: 'disable', to: 'disabled' },
] as const satisfies readonly ({ from: CashierTokenState; event: CashierTokenEvent } & ({ to: CashierTokenState } | { error: ErrorCode }))[];

export type CashierTokenTransition = { readonly to: CashierTokenState } | { readonly error: ErrorCode };

/** Looks the pair up in the table; pairs the table does not list are illegal transitions. */
export function cashierTokenTransition(state: CashierTokenState, event: CashierTokenEvent): CashierTokenTransition {
  const row = CASHIER_TOKEN_TRANSITIONS.find((r) => r.from === state && r.event === event);
  if (row === undefined) return { error: 'BIZ-ILLEGAL-TRANSITION' };
  return 'to' in row ? { to: row.to } : { error: row.error };
}

/** The state a stored token is in at `now` (the stored status plus the passing of expiresAt). */
export function cashierTokenState(token: Pick<CashierToken, 'status' | 'expiresAt'>, now: Millis): CashierTokenState {
  if (token.status === 'disabled') return 'disabled';
  return now < token.expiresAt ? 'active' : 'expired';
}

/** DESIGN.md: every secret token carries at least 32 random bytes. */
export const MIN_SECRET_TOKEN_BYTES = 32;

/** The three secret token kinds: session `st_`, Developer API `dk_`, cashier `ct_`. */
export type SecretTokenPrefix = 'st_' | 'dk_' | 'ct_';

/**
 * A bearer secret: prefix + base64url (no padding) of the random bytes from IdGenerator.randomBytes.
 * Throws RangeError for fewer than 32 bytes — a programming error, never a client's.
 */
export function newSecretToken(prefix: SecretTokenPrefix, bytes: Uint8Array): string {
  if (bytes.length < MIN_SECRET_TOKEN_BYTES) throw new RangeError(`secret tokens need at least ${MIN_SECRET_TOKEN_BYTES} random bytes`);
  return prefix + Buffer.from(bytes).toString('base64url');
}

/** A cashier bearer value `ct_…` (see newSecretToken). */
export function newTokenValue(bytes: Uint8Array): string {
  return newSecretToken(CASHIER_TOKEN_PREFIX, bytes);
}
