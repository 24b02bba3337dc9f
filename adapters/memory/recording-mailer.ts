import type { InvitationNotice, Mailer, PolicyChangeNotice, RegistrationNotice } from '../../core/ports/mailer.port.js';

/** What a recorded mail was for. */
export type MailKind = 'verification' | 'password-reset' | 'invitation';

/** One code-carrying mail as the RecordingMailer kept it. */
export interface RecordedMail {
  readonly email: string;
  readonly code: string;
  readonly kind: MailKind;
  /** The registration a verification code confirms (issue #35 item 7); absent on a reset code. */
  readonly registration?: RegistrationNotice;
}

/** A Mailer for tests: keeps every sent code so a test can complete the verification or reset step. */
export class RecordingMailer implements Mailer {
  private readonly mails: RecordedMail[] = [];
  private readonly unknown: string[] = [];
  private readonly exists: string[] = [];
  private readonly locked: string[] = [];
  private readonly twoFactorChanges: { email: string; change: 'enabled' | 'disabled' }[] = [];
  private readonly policyChanges: { email: string; notice: PolicyChangeNotice }[] = [];

  async sendVerificationCode(email: string, code: string, registration: RegistrationNotice): Promise<void> {
    this.mails.push({ email, code, kind: 'verification', registration });
  }

  async sendPasswordResetCode(email: string, code: string): Promise<void> {
    this.mails.push({ email, code, kind: 'password-reset' });
  }

  async sendPasswordResetUnknown(email: string): Promise<void> {
    this.unknown.push(email);
  }

  async sendAccountExists(email: string): Promise<void> {
    this.exists.push(email);
  }

  async sendPolicyChangeRequested(email: string, notice: PolicyChangeNotice): Promise<void> {
    this.policyChanges.push({ email, notice });
  }

  /** The notices of pending policy changes sent, oldest first (issue #35 item 3). */
  get policyChangesSent(): readonly { email: string; notice: PolicyChangeNotice }[] {
    return [...this.policyChanges];
  }

  async sendInvitationCode(email: string, code: string, _invitation: InvitationNotice): Promise<void> {
    this.mails.push({ email, code, kind: 'invitation' });
  }

  async sendTwoFactorChanged(email: string, change: 'enabled' | 'disabled'): Promise<void> {
    this.twoFactorChanges.push({ email, change });
  }

  /** The two-factor on/off notices sent, oldest first (issue #35 item 4). */
  get twoFactorChangesSent(): readonly { email: string; change: 'enabled' | 'disabled' }[] {
    return [...this.twoFactorChanges];
  }

  async sendAccountLocked(email: string): Promise<void> {
    this.locked.push(email);
  }

  /** The addresses sent an "account locked" notice, oldest first (issue #35 item 4). */
  get accountLockedSent(): readonly string[] {
    return [...this.locked];
  }

  /** The addresses sent an "already has an account" answer to a registration, oldest first (issue #26 item 6). */
  get accountExistsSent(): readonly string[] {
    return [...this.exists];
  }

  /** Every code-carrying mail sent so far, oldest first. */
  get sent(): readonly RecordedMail[] {
    return [...this.mails];
  }

  /** The addresses sent a "no account here" answer to a reset request, oldest first. */
  get resetUnknownSent(): readonly string[] {
    return [...this.unknown];
  }

  /** The latest code of the kind (a verification code unless said) sent to `email` (compared case-insensitively), or undefined. */
  lastCodeFor(email: string, kind: MailKind = 'verification'): string | undefined {
    const wanted = email.toLowerCase();
    for (let i = this.mails.length - 1; i >= 0; i--) {
      const mail = this.mails[i]!;
      if (mail.kind === kind && mail.email.toLowerCase() === wanted) return mail.code;
    }
    return undefined;
  }
}
