import type { InvitationNotice, Mailer, PolicyChangeNotice, RegistrationNotice } from '../../core/ports/mailer.port.js';

/** Where ConsoleMailer writes: one line at a time, without the trailing newline. */
export type LineWriter = (line: string) => void;

const stdoutLine: LineWriter = (line) => {
  process.stdout.write(`${line}\n`);
};

/**
 * The embedded Mailer: prints `verification code for <email>: <code>` (the dev host has no mail server), after a line
 * naming the registration the code confirms (`registration #<n> of <email>, made <time>: its code follows`); the code
 * line stays exactly as tools and tests read it.
 */
export class ConsoleMailer implements Mailer {
  constructor(private readonly writeLine: LineWriter = stdoutLine) {}

  async sendVerificationCode(email: string, code: string, registration: RegistrationNotice): Promise<void> {
    this.writeLine(`registration #${registration.number} of ${email}, made ${registration.registeredAt}: its code follows`);
    this.writeLine(`verification code for ${email}: ${code}`);
  }

  async sendPasswordResetCode(email: string, code: string): Promise<void> {
    this.writeLine(`password reset code for ${email}: ${code}`);
  }

  async sendPasswordResetUnknown(email: string): Promise<void> {
    this.writeLine(`password reset asked for ${email}: no verified account, no code`);
  }

  async sendAccountExists(email: string): Promise<void> {
    this.writeLine(`registration asked for ${email}: the address already has an account, no code`);
  }

  async sendPolicyChangeRequested(email: string, notice: PolicyChangeNotice): Promise<void> {
    this.writeLine(`policy change ${notice.changeId} for ${email}: ${notice.loosens.join(', ')} takes effect at ${notice.effectiveAt} unless cancelled`);
  }

  async sendInvitationCode(email: string, code: string, invitation: InvitationNotice): Promise<void> {
    this.writeLine(`invitation of ${email} to ${invitation.accountEmail}'s account as ${invitation.role}: its code follows`);
    this.writeLine(`invitation code for ${email}: ${code}`);
  }

  async sendTwoFactorChanged(email: string, change: 'enabled' | 'disabled'): Promise<void> {
    this.writeLine(`two-factor ${change} for ${email}: if it was not you, reset the password`);
  }

  async sendAccountLocked(email: string): Promise<void> {
    this.writeLine(`account locked for ${email}: too many wrong two-factor codes; reset the password to unlock`);
  }
}
