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
  /**
   * The answer to a registration of an address that a verified account already owns (issue #26 item 6): no code, a
   * note that the address has an account (log in, or reset the password). Registering mails exactly one message
   * either way, so neither the answer nor its timing tells who has an account.
   */
  sendAccountExists(email: string): Promise<void>;
}
