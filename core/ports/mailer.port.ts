/**
 * Which pending registration a verification code confirms (issue #35 item 7): several registrations of one address
 * may be pending, each with its own code, and every one of them mails the address. The mail names its registration
 * so that no two are alike and the person who registered can tell theirs.
 */
export interface RegistrationNotice {
  /** The registration's number: the `user_id` its 201 answer showed the registrant. */
  readonly number: number;
  /** When it was made, ISO 8601 with offset. */
  readonly registeredAt: string;
}

/** Outbound mail. The embedded adapter prints `verification code for <email>: <code>` (after a line naming the registration). */
export interface Mailer {
  /** The code of one pending registration, naming that registration. */
  sendVerificationCode(email: string, code: string, registration: RegistrationNotice): Promise<void>;
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
