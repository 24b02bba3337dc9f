import type { EncryptedEnvelope, Millis, UserId, Versioned } from './common.js';

export interface Account extends Versioned {
  readonly id: UserId;
  readonly email: string;
  /** scrypt hash (see SecretHasher); never returned. */
  readonly passwordHash: string;
  readonly verified: boolean;
  /** SHA-256 of the 6-digit code sent by the Mailer; null once verified. */
  readonly verificationCodeHash: string | null;
  readonly verificationExpiresAt: Millis | null;
  readonly verificationAttempts: number;
  readonly createdAt: Millis;
  /** The pending password reset (issue #14); absent or null when none (accounts stored before it have none). */
  readonly passwordReset?: PasswordReset | null;
  /** TOTP two-factor (issue #26 item 3); absent or null when never set up or disabled. */
  readonly twoFactor?: TwoFactor | null;
}

/**
 * An account's TOTP second factor (RFC 6238). Set up (`enabledAt` null) it changes nothing; once confirmed by a code
 * (`enabledAt` set) login and the step-up routes need a code.
 */
export interface TwoFactor {
  /** The shared secret under KeyCipher (aad `totp:<userId>`), like a private key; never returned after setup. */
  readonly secret: EncryptedEnvelope;
  /** When a code confirmed it; null while only set up. */
  readonly enabledAt: Millis | null;
  /** The highest time-step a code was accepted for: a code of it or an earlier step is refused (never used twice). */
  readonly lastUsedStep: number;
  /** SHA-256 of each recovery code not used yet (single-use stand-ins for a code). */
  readonly recoveryCodeHashes: readonly string[];
  /** The last accepted step-up proof: the same session may present the same code again, for the same scope, until it is 5 minutes old. */
  readonly stepUp: StepUpProof | null;
  /**
   * Wrong codes since the last accepted one, at login, step-up and disable alike (issue #35 item 4: one budget); absent
   * on records written before it: 0.
   */
  readonly failedCodes?: number;
  /** When the guessing budget ran out: login and step-up are refused (AUTH-ACCOUNT-LOCKED) until a password reset. */
  readonly lockedAt?: Millis | null;
}

/** A code accepted for a session (at login or at a step-up route). */
export interface StepUpProof {
  /** SHA-256 of the session token the code was presented with. */
  readonly sessionHash: string;
  /** SHA-256 of the code (normalized) as presented. */
  readonly proofHash: string;
  readonly at: Millis;
  /**
   * What the code was accepted for (issue #35 item 4): the one kind of step-up action it keeps authorising, or absent
   * (records before it, a login): nothing.
   */
  readonly scope?: string;
}

/** A password-reset code mailed to a verified account: single-use, expiring, burnt after too many wrong tries. */
export interface PasswordReset {
  /** SHA-256 of the code sent by the Mailer; the code itself is never stored. */
  readonly codeHash: string;
  readonly expiresAt: Millis;
  /** Wrong codes tried against this one. */
  readonly attempts: number;
}

export interface Session {
  /** SHA-256 hex of the `st_` token; the token itself is shown once at login and never stored. */
  readonly tokenHash: string;
  readonly userId: UserId;
  readonly createdAt: Millis;
  readonly expiresAt: Millis;
  readonly revokedAt: Millis | null;
}

export type ServiceCode = 'developer' | 'sub_address';

export interface Subscription extends Versioned {
  readonly userId: UserId;
  readonly serviceCode: ServiceCode;
  readonly planCode: string;
  readonly status: 'active' | 'cancelled';
  /** For `sub_address`: maxSubAddresses (-1 unlimited). An admin quota override rewrites it. */
  readonly meta: { readonly maxSubAddresses?: number };
  readonly activatedAt: Millis;
}

export const API_ACCESS_ABILITY = 'api:access';

export interface ApiToken {
  readonly id: number;
  readonly userId: UserId;
  readonly name: string;
  /** SHA-256 hex of the `dk_` token. */
  readonly tokenHash: string;
  readonly abilities: readonly string[];
  readonly createdAt: Millis;
  readonly revokedAt: Millis | null;
  /** When the token last authenticated a request, to the minute (a write per request would cost every call). */
  readonly lastUsedAt: Millis | null;
  /** Issue #35 item 4: from when the token no longer authenticates; null or absent: never expires. */
  readonly expiresAt?: Millis | null;
  /**
   * Issue #35 item 4: when a password reset marked the token for the owner's review (it keeps working; the list shows
   * it); null or absent: not marked. Setting the expiry (a review) clears it.
   */
  readonly reviewSince?: Millis | null;
}
