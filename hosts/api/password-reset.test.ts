import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SmtpMailer } from '../../adapters/node/index.js';
import { startLocalSmtpReceiver, type LocalSmtpReceiver } from '../../adapters/node/local-smtp-receiver.js';
import { startHarness, type ApiHarness, type HttpResult } from './test-harness.js';
import { expectAnswersDocumented, expectDocumented, fails, ok, signUp, TEST_PASSWORD } from './api-test-fixtures.js';
import { DEFAULT_RATE_LIMITS } from './rate-limit.js';

/** Issue #14: the password reset over real HTTP, with the mail as the RecordingMailer received it. */
const HOUR = 60 * 60_000;
const NEW_PASSWORD = 'a brand new passphrase';

const request = (h: ApiHarness, email: unknown): Promise<HttpResult> => h.call('POST', '/api/auth/password-reset/request', { body: { email } });
const confirm = (h: ApiHarness, email: string, code: string, password = NEW_PASSWORD): Promise<HttpResult> =>
  h.call('POST', '/api/auth/password-reset/confirm', { body: { email, code, new_password: password } });
const login = (h: ApiHarness, email: string, password: string): Promise<HttpResult> => h.call('POST', '/api/auth/login', { body: { email, password } });
const resetCode = (h: ApiHarness, email: string): string => h.mailer.lastCodeFor(email, 'password-reset')!;
const wrongCodeFor = (code: string): string => (code === 'ZZZZZZZZZZ' ? 'YYYYYYYYYY' : 'ZZZZZZZZZZ');
const count = (results: readonly HttpResult[], status: number): number => results.filter((r) => r.status === status).length;

describe('password reset', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('request 202 mails a single-use code; confirm sets the password, revokes every session, keeps dk_ tokens', async () => {
    const user = await signUp(h);
    const second = ok(await login(h, user.email, TEST_PASSWORD)).session_token as string;
    const asked = await request(h, user.email.toUpperCase());
    expect(ok(asked, 202)).toEqual({});
    expectDocumented(h, 'POST', '/api/auth/password-reset/request', asked.json.data);
    const code = resetCode(h, user.email);
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}$/);
    // Nothing changes before the code is used: the old password and the sessions still work.
    ok(await h.call('GET', '/api/api-tokens', { token: user.session }));
    fails(await confirm(h, user.email, wrongCodeFor(code)), 422, 'AUTH-RESET-FAILED');
    fails(await confirm(h, user.email, code, 'short'), 422, 'VALIDATION-ERROR');
    // Typed in lower case with a separator, as a person may copy it.
    const done = ok(await confirm(h, user.email, `${code.slice(0, 5).toLowerCase()}-${code.slice(5)}`));
    expectDocumented(h, 'POST', '/api/auth/password-reset/confirm', done);
    expect(done).toEqual({ user_id: user.userId, email: user.email });
    for (const session of [user.session, second]) fails(await h.call('GET', '/api/api-tokens', { token: session }), 401, 'UNAUTHENTICATED');
    fails(await login(h, user.email, TEST_PASSWORD), 401, 'AUTH-INVALID-CREDENTIALS');
    const fresh = ok(await login(h, user.email, NEW_PASSWORD)).session_token as string;
    ok(await h.call('GET', '/api/api-tokens', { token: fresh }));
    // Integrations keep running: Developer API Tokens are revoked one by one (docs/decisions.md).
    ok(await h.call('GET', '/api/wallets', { token: user.apiToken }));
    // Single use: the same code again fails, and changes nothing.
    fails(await confirm(h, user.email, code, 'yet another passphrase'), 422, 'AUTH-RESET-FAILED');
    ok(await login(h, user.email, NEW_PASSWORD));
  });

  it('no enumeration: a known, an unknown and an unverified e-mail get the same status, body and one mail each', async () => {
    const user = await signUp(h);
    const unverified = `pending-${randomUUID()}@example.com`;
    ok(await h.call('POST', '/api/auth/register', { body: { email: unverified, password: TEST_PASSWORD } }), 201);
    const unknown = `nobody-${randomUUID()}@example.com`;
    const codesBefore = h.mailer.sent.length;
    const unknownBefore = h.mailer.resetUnknownSent.length;
    const answers = [await request(h, user.email), await request(h, unknown), await request(h, unverified)];
    for (const answer of answers) {
      expect({ status: answer.status, text: answer.text }).toEqual({ status: 202, text: answers[0]!.text });
      expect([...answer.headers.keys()].filter((k) => k !== 'date' && k !== 'x-request-id').sort())
        .toEqual([...answers[0]!.headers.keys()].filter((k) => k !== 'date' && k !== 'x-request-id').sort());
    }
    expect(h.mailer.sent.slice(codesBefore).map((m) => [m.email, m.kind])).toEqual([[user.email, 'password-reset']]);
    expect(h.mailer.resetUnknownSent.slice(unknownBefore)).toEqual([unknown, unverified]);
    // Confirming for an address without a pending reset is the same failure as a wrong code.
    fails(await confirm(h, unknown, 'ABCDEFGHJK'), 422, 'AUTH-RESET-FAILED');
    fails(await confirm(h, unverified, 'ABCDEFGHJK'), 422, 'AUTH-RESET-FAILED');
    fails(await login(h, unverified, TEST_PASSWORD), 403, 'AUTH-NOT-VERIFIED');
    fails(await request(h, 'not-an-email'), 422, 'VALIDATION-ERROR');
  });

  it('a code expires after 30 minutes (ManualClock); a new request replaces the earlier code', async () => {
    const user = await signUp(h);
    ok(await request(h, user.email), 202);
    const first = resetCode(h, user.email);
    h.clock.advance(30 * 60_000);
    fails(await confirm(h, user.email, first), 422, 'AUTH-RESET-FAILED');
    ok(await request(h, user.email), 202);
    const second = resetCode(h, user.email);
    expect(second).not.toBe(first);
    h.clock.advance(30 * 60_000 - 1);
    fails(await confirm(h, user.email, first), 422, 'AUTH-RESET-FAILED');
    ok(await confirm(h, user.email, second));
    ok(await login(h, user.email, NEW_PASSWORD));
  });

  it('5 wrong codes burn the code, as for verification; a new request gives 5 more tries', async () => {
    const user = await signUp(h);
    ok(await request(h, user.email), 202);
    const code = resetCode(h, user.email);
    for (let i = 0; i < 5; i++) fails(await confirm(h, user.email, wrongCodeFor(code)), 422, 'AUTH-RESET-FAILED');
    fails(await confirm(h, user.email, code), 422, 'AUTH-RESET-FAILED');
    ok(await login(h, user.email, TEST_PASSWORD));
    h.clock.advance(HOUR);
    ok(await request(h, user.email), 202);
    ok(await confirm(h, user.email, resetCode(h, user.email)));
  });

  it('of 10 parallel confirmations with the right code exactly one changes the password', async () => {
    const user = await signUp(h);
    ok(await request(h, user.email), 202);
    const code = resetCode(h, user.email);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => confirm(h, user.email, code, `parallel passphrase ${i}`)));
    expect(count(results, 200)).toBe(1);
    for (const refused of results.filter((r) => r.status !== 200)) fails(refused, 422, 'AUTH-RESET-FAILED');
    const winner = results.findIndex((r) => r.status === 200);
    ok(await login(h, user.email, `parallel passphrase ${winner}`));
  });
});

describe('password reset over SMTP (a local SMTP receiver)', () => {
  let h: ApiHarness;
  let smtp: LocalSmtpReceiver;
  let mailer: SmtpMailer;
  beforeAll(async () => {
    smtp = await startLocalSmtpReceiver({ user: 'mailer', pass: 'mail-pass-0123' });
    mailer = new SmtpMailer({ url: smtp.url, from: 'Custody Hub <no-reply@custody.test>' });
    h = await startHarness({ mailer });
  });
  afterAll(async () => {
    await h.close();
    mailer.close();
    await smtp.close();
  });

  it('the code arrives in the mail and resets the password; an unknown address gets the codeless note; no code is logged', async () => {
    const email = `smtp-${randomUUID()}@example.com`;
    ok(await h.call('POST', '/api/auth/register', { body: { email, password: TEST_PASSWORD } }), 201);
    const verification = /verification code is (\d{6})/.exec(smtp.mails.at(-1)!.raw)![1]!;
    ok(await h.call('POST', '/api/auth/verify', { body: { email, code: verification } }));
    ok(await request(h, email), 202);
    const mail = smtp.mails.at(-1)!;
    expect(mail.to).toEqual([email]);
    const code = /password reset code is ([0-9A-Z]{10})/.exec(mail.raw)![1]!;
    ok(await confirm(h, email, code));
    ok(await login(h, email, NEW_PASSWORD));
    const unknown = `nobody-${randomUUID()}@example.com`;
    ok(await request(h, unknown), 202);
    expect(smtp.mails.at(-1)!.to).toEqual([unknown]);
    expect(smtp.mails.at(-1)!.raw).toContain('nothing was changed');
    expect(smtp.mails.at(-1)!.raw).not.toMatch(/reset code is/);
    expect(h.logLines.join('\n')).not.toContain(code);
  });
});

describe('password reset limits (shipped limits, client-address throttles included)', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness({ rateLimits: DEFAULT_RATE_LIMITS }); });
  afterAll(async () => { await h.close(); });
  beforeEach(() => h.clock.advance(24 * HOUR));

  /** `allowed` answers got through; every other one is the 429 envelope with the window's headers. */
  function expectLimited(results: readonly HttpResult[], allowed: number, ...limits: number[]): void {
    expect(results.length - count(results, 429)).toBe(allowed);
    for (const refused of results.filter((r) => r.status === 429)) {
      fails(refused, 429, 'RATE-LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limits.map(String)).toContain(refused.headers.get('x-ratelimit-limit'));
    }
  }

  it('requests: exactly 3 of 12 parallel per e-mail an hour (3 mails), exactly 10 of 15 parallel per client address a minute', async () => {
    const user = await signUp(h);
    const before = h.mailer.sent.length;
    const perEmail = await Promise.all(Array.from({ length: 12 }, () => request(h, user.email)));
    // Refused by the e-mail's hour (3), or by the client address's minute (10) for the last two.
    expectLimited(perEmail, 3, 3, 10);
    expect(count(perEmail, 202)).toBe(3);
    expect(h.mailer.sent.length - before).toBe(3);
    h.clock.advance(61_000);
    // Still within the e-mail's hour.
    fails(await request(h, user.email), 429, 'RATE-LIMITED');
    h.clock.advance(HOUR);
    const perAddress = await Promise.all(Array.from({ length: 15 }, () => request(h, `spray-${randomUUID()}@example.com`)));
    expectLimited(perAddress, 10, 10);
    expect(count(perAddress, 202)).toBe(10);
  });

  it('confirmations: exactly 10 of 15 parallel guesses per e-mail an hour are judged; exactly 30 of 40 per client address a minute', async () => {
    const user = await signUp(h);
    ok(await request(h, user.email), 202);
    const code = resetCode(h, user.email);
    const guesses = await Promise.all(Array.from({ length: 15 }, () => confirm(h, user.email, wrongCodeFor(code))));
    expectLimited(guesses, 10, 10, 30);
    expect(count(guesses, 422)).toBe(10);
    // The guesses burnt the code (5 tries), and the e-mail's hour is spent: the right code waits, then is refused.
    fails(await confirm(h, user.email, code), 429, 'RATE-LIMITED');
    h.clock.advance(HOUR);
    fails(await confirm(h, user.email, code), 422, 'AUTH-RESET-FAILED');
    ok(await login(h, user.email, TEST_PASSWORD));
    h.clock.advance(61_000);
    const spray = await Promise.all(Array.from({ length: 40 }, () => confirm(h, `spray-${randomUUID()}@example.com`, 'ABCDEFGHJK')));
    expectLimited(spray, 30, 30);
    expect(count(spray, 422)).toBe(30);
  });
});
