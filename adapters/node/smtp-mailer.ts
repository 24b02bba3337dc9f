import { createTransport, type Transporter } from 'nodemailer';
import { InfrastructureError } from '../../core/domain/errors.js';
import type { Mailer, PolicyChangeNotice, RegistrationNotice, InvitationNotice } from '../../core/ports/mailer.port.js';

/** Options of SmtpMailer. */
export interface SmtpMailerOptions {
  /** SMTP_URL: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465` (TLS from the start). */
  readonly url: string;
  /** MAIL_FROM: the From address (`Custody Hub <no-reply@example.com>`). */
  readonly from: string;
  /** Per-message budget for connecting and sending (default 15 s): a hung server must not hold a registration. */
  readonly timeoutMs?: number;
}

/**
 * The production Mailer: one plain-text message per verification or password-reset code over SMTP (nodemailer, pooled connection).
 * The code is in the message only, never in a log line; a failure is an InfrastructureError SERVICE-UNAVAILABLE
 * (transient) whose message names neither the code nor the server's credentials.
 */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(private readonly options: SmtpMailerOptions) {
    const timeout = options.timeoutMs ?? 15_000;
    // nodemailer's SMTP transport reads host, port, TLS and credentials from `url`, the rest from the object.
    this.transport = createTransport({ url: options.url, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout } as never);
  }

  async sendVerificationCode(email: string, code: string, registration: RegistrationNotice): Promise<void> {
    await this.send(email, `Your Custody Hub verification code for registration #${registration.number}`,
      `Your Custody Hub verification code is ${code}.\n\n`
      + `It confirms registration #${registration.number}, made at ${registration.registeredAt}: the number your registration `
      + 'was answered with. Confirm it only if that registration is yours; whoever confirms a registration gets the password '
      + 'chosen in it. If this address has several registrations pending, each has its own mail and code, and a code is '
      + 'accepted only together with the password of its own registration.\n\n'
      + 'The code expires soon. If you did not register, ignore this message.\n');
  }

  async sendPasswordResetCode(email: string, code: string): Promise<void> {
    await this.send(email, 'Your Custody Hub password reset code',
      `Your Custody Hub password reset code is ${code}.\n\nIt can be used once and expires in 30 minutes. Every session of `
      + 'your account ends when the password changes. If you did not ask for it, ignore this message: your password stays as it is.\n');
  }

  async sendPasswordResetUnknown(email: string): Promise<void> {
    await this.send(email, 'Custody Hub password reset',
      'Someone asked to reset the password of a Custody Hub account at this address, but no verified account uses it, '
      + 'so nothing was changed. If you did not ask, ignore this message.\n');
  }

  async sendAccountExists(email: string): Promise<void> {
    await this.send(email, 'Custody Hub registration',
      'Someone tried to register a Custody Hub account with this address, which already has one, so nothing was created. '
      + 'If it was you, log in, or reset your password if you forgot it. Otherwise ignore this message.\n');
  }

  async sendPolicyChangeRequested(email: string, notice: PolicyChangeNotice): Promise<void> {
    await this.send(email, 'Custody Hub withdrawal policy change requested',
      `A change loosening your withdrawal policy was requested (change ${notice.changeId}): ${notice.loosens.join(', ')}. `
      + `It takes effect at ${notice.effectiveAt}. If it was not you, cancel it before then with `
      + `POST /policies/changes/${notice.changeId}/cancel, and change your password.\n`);
  }

  async sendInvitationCode(email: string, code: string, invitation: InvitationNotice): Promise<void> {
    await this.send(email, 'Custody Hub team invitation',
      `${invitation.accountEmail} invites you to their Custody Hub account as ${invitation.role}. To accept, register with `
      + `POST /auth/register {email, password, invitation_code}, the code being: ${code}\nIf you did not expect this, ignore this mail.\n`);
  }

  async sendTwoFactorChanged(email: string, change: 'enabled' | 'disabled'): Promise<void> {
    await this.send(email, `Custody Hub two-factor sign-in ${change}`,
      `Two-factor sign-in was ${change} for your Custody Hub account. Withdrawals to destinations not on the allow-list `
      + 'are held for the policy change delay. If it was not you, reset your password at POST /auth/password-reset/request: '
      + 'the reset ends every session and, with two-factor on, turns it off once the delay has passed.\n');
  }

  async sendAccountLocked(email: string): Promise<void> {
    await this.send(email, 'Custody Hub account locked',
      'Your Custody Hub account was locked after too many wrong two-factor codes: someone who knows your password may be '
      + 'guessing codes. Logins and confirmed actions are refused until you reset your password (ask for a reset code at '
      + 'POST /auth/password-reset/request); the reset unlocks the account and ends every session.\n');
  }

  private async send(to: string, subject: string, text: string): Promise<void> {
    try {
      await this.transport.sendMail({ from: this.options.from, to, subject, text });
    } catch (error) {
      throw new InfrastructureError('SERVICE-UNAVAILABLE', `mail could not be sent: ${(error as { code?: string }).code ?? (error as Error).name}`, {
        transient: true, cause: error,
      });
    }
  }

  /** Closes pooled connections. */
  close(): void {
    this.transport.close();
  }
}
