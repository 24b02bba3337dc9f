import type { InvitationNotice, Mailer, PolicyChangeNotice, RegistrationNotice } from '../../core/ports/mailer.port.js';

/**
 * The `npm start` mailer: prints every message as the console mailer does (the inner Mailer) and keeps the latest
 * verification code per address, which `GET /dev/verification-code?email=` answers so the printed quickstart can
 * verify its account by itself. Only the dev host builds it: no production mailer keeps a code.
 */
export class DevMailbox implements Mailer {
  private readonly codes = new Map<string, string>();

  constructor(private readonly inner: Mailer) {}

  async sendVerificationCode(email: string, code: string, registration: RegistrationNotice): Promise<void> {
    this.codes.set(email.toLowerCase(), code);
    await this.inner.sendVerificationCode(email, code, registration);
  }

  sendPasswordResetCode(email: string, code: string): Promise<void> {
    return this.inner.sendPasswordResetCode(email, code);
  }

  sendPasswordResetUnknown(email: string): Promise<void> {
    return this.inner.sendPasswordResetUnknown(email);
  }

  sendAccountExists(email: string): Promise<void> {
    return this.inner.sendAccountExists(email);
  }

  sendPolicyChangeRequested(email: string, notice: PolicyChangeNotice): Promise<void> {
    return this.inner.sendPolicyChangeRequested(email, notice);
  }

  sendInvitationCode(email: string, code: string, invitation: InvitationNotice): Promise<void> {
    return this.inner.sendInvitationCode(email, code, invitation);
  }

  sendTwoFactorChanged(email: string, change: 'enabled' | 'disabled'): Promise<void> {
    return this.inner.sendTwoFactorChanged(email, change);
  }

  sendAccountLocked(email: string): Promise<void> {
    return this.inner.sendAccountLocked(email);
  }

  /** The latest verification code sent to `email` in this run (case-insensitive), or null when none was. */
  verificationCode(email: string): string | null {
    return this.codes.get(email.toLowerCase()) ?? null;
  }
}
