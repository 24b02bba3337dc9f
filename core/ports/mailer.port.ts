/** Outbound mail. The embedded adapter prints `verification code for <email>: <code>`. */
export interface Mailer {
  sendVerificationCode(email: string, code: string): Promise<void>;
}
