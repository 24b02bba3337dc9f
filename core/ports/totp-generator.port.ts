/**
 * RFC 6238 time-based one-time passwords as authenticator apps compute them: HMAC-SHA1, 6 digits, 30-second steps
 * from the Unix epoch. Which step to ask for, and what a match allows, is the core's rule (core/domain/two-factor-rules.ts).
 *
 * Known answer (RFC 6238 appendix B, secret = ASCII "12345678901234567890"): step 1 (T = 59 s) gives "287082",
 * step 37037036 (T = 1111111109 s) gives "081804".
 */
export interface TotpGenerator {
  /** The 6-digit code of `secret` for time-step `step` (a non-negative integer), zero-padded. */
  codeAt(secret: Uint8Array, step: number): string;
  /**
   * The `otpauth://totp/...` key URI an authenticator app enrols from (base32 secret, SHA1, 6 digits, 30 s), labelled
   * `issuer:account` with an `issuer` parameter.
   */
  keyUri(secret: Uint8Array, account: string, issuer: string): string;
}
