/** Outbound mail. The embedded adapter prints `verification code for <email>: <code>`. */
export interface Mailer {
  sendVerificationCode(email: string, code: string): Promise<void>;
  /** A password-reset code for a verified account (issue #14); the embedded adapter prints `password reset code for <email>: <code>`. */
  sendPasswordResetCode(email: string, code: string): Promise<void>;
  /**
   * The answer to a reset request for an address with no verified account: no code, a note that nothing was
   * changed. Every reset request mails exactly one message, so neither the answer nor its timing tells who has an
   * account (docs/decisions.md 66).
   */
  sendPasswordResetUnknown(email: string): Promise<void>;
}
