import type { Mailer } from '../../core/ports/mailer.port.js';

/** One verification mail as the RecordingMailer kept it. */
export interface RecordedMail {
  readonly email: string;
  readonly code: string;
}

/** A Mailer for tests: keeps every sent code so a test can complete the verification step. */
export class RecordingMailer implements Mailer {
  private readonly mails: RecordedMail[] = [];

  async sendVerificationCode(email: string, code: string): Promise<void> {
    this.mails.push({ email, code });
  }

  /** Every mail sent so far, oldest first. */
  get sent(): readonly RecordedMail[] {
    return [...this.mails];
  }

  /** The latest code sent to `email` (compared case-insensitively), or undefined. */
  lastCodeFor(email: string): string | undefined {
    const wanted = email.toLowerCase();
    for (let i = this.mails.length - 1; i >= 0; i--) {
      if (this.mails[i]!.email.toLowerCase() === wanted) return this.mails[i]!.code;
    }
    return undefined;
  }
}
