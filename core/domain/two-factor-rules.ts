import { timingSafeEqual } from 'node:crypto';
import type { Millis } from './model/common.js';
import type { StepUpProof, TwoFactor } from './model/account.js';

/**
 * The rules of TOTP two-factor (issue #26 item 3), pure: which time-step a code belongs to, when a code counts as
 * replayed, what a step-up proof allows, and what a typed code is. The HMAC itself is the TotpGenerator port's.
 */

/** RFC 6238's default time-step, the one every authenticator app uses. */
export const TOTP_PERIOD_MS = 30_000;
/** Steps either side of the current one that are still accepted: clocks of phones drift, people type slowly. */
export const TOTP_WINDOW = 1;
/** How long a code accepted for a session keeps unlocking the step-up routes for that session. */
export const STEP_UP_TTL_MS = 5 * 60_000;
/** Recovery codes issued when 2FA is enabled. */
export const RECOVERY_CODE_COUNT = 10;
/** Crockford's base32 (no I, L, O, U), the alphabet of the password-reset codes. */
export const RECOVERY_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** 10 symbols, 50 bits each: far beyond what the code-try limits let anyone guess. */
export const RECOVERY_CODE_LENGTH = 10;

/** The RFC 6238 time-step (counter) of an instant. */
export function stepAt(now: Millis): number {
  return Math.floor(now / TOTP_PERIOD_MS);
}

/** True once a code has confirmed the second factor. */
export function isEnabled(twoFactor: TwoFactor | null | undefined): twoFactor is TwoFactor {
  return twoFactor != null && twoFactor.enabledAt !== null;
}

/** What a typed code is: six digits, a recovery code, or nothing either could be. */
export type TypedCode =
  | { readonly kind: 'totp'; readonly code: string }
  | { readonly kind: 'recovery'; readonly code: string }
  | { readonly kind: 'malformed' };

/**
 * Classifies a typed code. Spaces and hyphens are ignored (apps show `123 456`, recovery codes are shown as
 * `XXXXX-XXXXX`); a recovery code is case-insensitive.
 */
export function parseCode(typed: string): TypedCode {
  const compact = typed.replace(/[\s-]/g, '');
  if (/^\d{6}$/.test(compact)) return { kind: 'totp', code: compact };
  const upper = compact.toUpperCase();
  if (upper.length === RECOVERY_CODE_LENGTH && [...upper].every((c) => RECOVERY_ALPHABET.includes(c))) return { kind: 'recovery', code: upper };
  return { kind: 'malformed' };
}

/** A recovery code as shown to the user: two groups of five. */
export function formatRecoveryCode(code: string): string {
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The outcome of judging a six-digit code. */
export type TotpMatch =
  | { readonly ok: true; readonly step: number }
  | { readonly ok: false; readonly reason: 'wrong' | 'replayed' };

/**
 * Judges a six-digit code at `now`: accepted when it is the code of a step within TOTP_WINDOW of now's step that is
 * later than `lastUsedStep` (the earliest such step, which becomes the new last used one, so later steps stay
 * usable); a code only of already used (or earlier) steps is `replayed`. `codeAt` gives the code of a step. Every
 * step of the window is compared, in constant time, so the timing does not tell which matched.
 */
export function matchTotp(code: string, now: Millis, lastUsedStep: number, codeAt: (step: number) => string): TotpMatch {
  const current = stepAt(now);
  let fresh: number | null = null;
  let used = false;
  for (let step = current - TOTP_WINDOW; step <= current + TOTP_WINDOW; step++) {
    const equal = sameText(codeAt(step), code);
    if (equal && step > lastUsedStep && fresh === null) fresh = step;
    if (equal && step <= lastUsedStep) used = true;
  }
  if (fresh !== null) return { ok: true, step: fresh };
  return { ok: false, reason: used ? 'replayed' : 'wrong' };
}

/**
 * What a step-up code is asked for (issue #35 item 4): the kind of action (`scope`, e.g. the route) and whether the
 * code may authorise more actions of that kind for STEP_UP_TTL_MS (`reusable`), or this one only.
 */
export interface StepUpGrant {
  readonly scope: string;
  readonly reusable: boolean;
}

/**
 * True when `proof` lets the session (by its token's hash) in again with the same code (by its hash) for `grant`: the
 * code was accepted for this very session, for the same scope, which is a reusable one, less than STEP_UP_TTL_MS ago.
 * A proof without a scope (a login's, or one written before scopes) authorises nothing more.
 */
export function proofReusable(proof: StepUpProof | null, sessionHash: string, proofHash: string, grant: StepUpGrant, now: Millis): boolean {
  return proof !== null && grant.reusable && proof.scope !== undefined && proof.scope === grant.scope
    && sameText(proof.sessionHash, sessionHash) && sameText(proof.proofHash, proofHash)
    && now >= proof.at && now < proof.at + STEP_UP_TTL_MS;
}

/**
 * Which purposes a kind of code may serve (issue #35 item 4): a current code any; a recovery code only 2FA recovery,
 * that is logging in without the app and turning 2FA off, never a step-up action.
 */
export function codeServes(kind: TypedCode['kind'], purpose: 'login' | 'step-up' | 'enable' | 'disable'): boolean {
  if (kind === 'totp') return true;
  return kind === 'recovery' && (purpose === 'login' || purpose === 'disable');
}

/** Wrong codes (login, step-up and disable share the count) after which the account locks until a password reset. */
export const CODE_GUESS_BUDGET = 10;

/** The second factor after a wrong code: one more counted; locked at `now` when that spends the budget. */
export function afterWrongCode(twoFactor: TwoFactor, now: Millis): TwoFactor {
  const failedCodes = (twoFactor.failedCodes ?? 0) + 1;
  return { ...twoFactor, failedCodes, lockedAt: twoFactor.lockedAt ?? (failedCodes >= CODE_GUESS_BUDGET ? now : null) };
}

/** True while the guessing budget is spent and no password reset has lifted the lock. */
export function isLocked(twoFactor: TwoFactor | null | undefined): boolean {
  return twoFactor != null && twoFactor.lockedAt != null;
}

/** The index of `hash` among the unused recovery-code hashes, or -1; every entry is compared (constant time). */
export function recoveryIndex(hashes: readonly string[], hash: string): number {
  let found = -1;
  hashes.forEach((stored, i) => { if (sameText(stored, hash) && found === -1) found = i; });
  return found;
}
