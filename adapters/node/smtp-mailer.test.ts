import { afterEach, describe, expect, it } from 'vitest';
import { InfrastructureError } from '../../core/domain/errors.js';
import { startLocalSmtpReceiver as startReceiver } from './local-smtp-receiver.js';
import { SmtpMailer } from './smtp-mailer.js';

let closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

describe('SmtpMailer (against a local SMTP receiver)', () => {
  it('sends the verification code to the address, from MAIL_FROM, authenticating with the URL credentials', async () => {
    const receiver = await startReceiver({ user: 'mailer', pass: 's3cret-pass' });
    closers.push(receiver.close);
    const mailer = new SmtpMailer({ url: `smtp://mailer:s3cret-pass@127.0.0.1:${receiver.port}`, from: 'Custody Hub <no-reply@custody.test>' });
    closers.push(() => mailer.close());
    await mailer.sendVerificationCode('alice@example.com', '482913', { number: 7, registeredAt: '2026-01-01T00:00:00+00:00' });
    expect(receiver.mails).toHaveLength(1);
    const [mail] = receiver.mails;
    expect(mail!.from).toBe('no-reply@custody.test');
    expect(mail!.to).toEqual(['alice@example.com']);
    expect(mail!.raw).toContain('Subject: Your Custody Hub verification code for registration #7');
    expect(mail!.raw).toContain('482913');
    // Which registration the code confirms (issue #35 item 7): its number and when it was made.
    expect(mail!.raw).toContain('registration #7');
    expect(mail!.raw).toContain('2026-01-01T00:00:00+00:00');
  });

  it('sends a password-reset code, and a codeless "no account" answer to an unknown address (issue #14)', async () => {
    const receiver = await startReceiver({ user: 'mailer', pass: 's3cret-pass' });
    closers.push(receiver.close);
    const mailer = new SmtpMailer({ url: `smtp://mailer:s3cret-pass@127.0.0.1:${receiver.port}`, from: 'no-reply@custody.test' });
    closers.push(() => mailer.close());
    await mailer.sendPasswordResetCode('carol@example.com', 'K7QX2M9RTA');
    await mailer.sendPasswordResetUnknown('dave@example.com');
    expect(receiver.mails.map((m) => m.to)).toEqual([['carol@example.com'], ['dave@example.com']]);
    expect(receiver.mails[0]!.raw).toContain('Subject: Your Custody Hub password reset code');
    expect(receiver.mails[0]!.raw).toContain('K7QX2M9RTA');
    expect(receiver.mails[1]!.raw).toContain('Subject: Custody Hub password reset');
    expect(receiver.mails[1]!.raw).toContain('nothing was changed');
  });

  it('sends a team invitation naming the inviting account, the role and the code (issue #35)', async () => {
    const receiver = await startReceiver({ user: 'mailer', pass: 's3cret-pass' });
    closers.push(receiver.close);
    const mailer = new SmtpMailer({ url: `smtp://mailer:s3cret-pass@127.0.0.1:${receiver.port}`, from: 'no-reply@custody.test' });
    closers.push(() => mailer.close());
    await mailer.sendInvitationCode('ops@team.example', 'K7QX2M9RTA3B', { accountEmail: 'owner@team.example', role: 'approver' });
    expect(receiver.mails.map((m) => m.to)).toEqual([['ops@team.example']]);
    expect(receiver.mails[0]!.raw).toContain('Subject: Custody Hub team invitation');
    for (const text of ['owner@team.example', 'approver', 'K7QX2M9RTA3B', 'invitation_code']) expect(receiver.mails[0]!.raw).toContain(text);
  });

  it('a refused login or an unreachable server is SERVICE-UNAVAILABLE, naming neither the code nor the password', async () => {
    const receiver = await startReceiver({ user: 'mailer', pass: 'right' });
    closers.push(receiver.close);
    for (const url of [`smtp://mailer:wrong-pass@127.0.0.1:${receiver.port}`, 'smtp://127.0.0.1:1']) {
      const mailer = new SmtpMailer({ url, from: 'no-reply@custody.test', timeoutMs: 2_000 });
      closers.push(() => mailer.close());
      const error = await mailer.sendVerificationCode('bob@example.com', '777111', { number: 7, registeredAt: '2026-01-01T00:00:00+00:00' }).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(InfrastructureError);
      expect((error as InfrastructureError).code).toBe('SERVICE-UNAVAILABLE');
      expect((error as Error).message).not.toMatch(/777111|wrong-pass/);
    }
    expect(receiver.mails).toHaveLength(0);
  });
});
