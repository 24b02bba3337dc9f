import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpMailer } from '../../adapters/node/index.js';
import { startLocalSmtpReceiver, type LocalSmtpReceiver } from '../../adapters/node/local-smtp-receiver.js';
import { fails, ok, TEST_PASSWORD } from './api-test-fixtures.js';
import { DEFAULT_RATE_LIMITS } from './rate-limit.js';
import { startHarness, type ApiHarness, type HttpResult } from './test-harness.js';

/**
 * Issue #26 item 6, attack-style through the real HTTP app with mail through a local SMTP server and the shipped
 * limits: someone else's earlier registrations of an address never keep the mailbox's owner out, not for a minute,
 * and the answers do not tell a registered address from a free one. One trusted proxy lets each actor speak from its
 * own client network (X-Forwarded-For).
 */
const SQUATTER = { 'x-forwarded-for': '203.0.113.7' };
const OWNER = { 'x-forwarded-for': '198.51.100.9' };
const CODE = /verification code is (\d{6})/;

describe('registration squatting (SMTP mail, shipped limits)', () => {
  let smtp: LocalSmtpReceiver;
  let mailer: SmtpMailer;
  let h: ApiHarness;
  beforeAll(async () => {
    smtp = await startLocalSmtpReceiver();
    mailer = new SmtpMailer({ url: smtp.url, from: 'Custody Hub <no-reply@custody.test>' });
    h = await startHarness({ mailer, rateLimits: DEFAULT_RATE_LIMITS, env: { TRUSTED_PROXY_HOPS: '1' } });
  });
  afterAll(async () => {
    await h.close();
    mailer.close();
    await smtp.close();
  });

  const register = (email: string, password: string, from: Record<string, string>): Promise<HttpResult> =>
    h.call('POST', '/api/auth/register', { body: { email, password }, headers: from });
  const mailsTo = (email: string): string[] => smtp.mails.filter((m) => m.to.includes(email)).map((m) => m.raw);

  it("a squatter's earlier registrations cannot keep the mailbox's owner out for a single minute", async () => {
    const email = `owner-${randomUUID()}@example.com`;
    const started = h.clock.now();
    // The squatter registers the owner's address as often as its quota lets it, with its own password.
    const squatted: HttpResult[] = [];
    for (let i = 0; i < 4; i++) squatted.push(await register(email, 'the squatter password', SQUATTER));
    expect(squatted.map((r) => r.status)).toEqual([201, 201, 201, 429]);
    const squatterCodes = mailsTo(email).map((raw) => CODE.exec(raw)![1]!);
    expect(squatterCodes).toHaveLength(3);
    // The owner registers right away: nothing is refused, and the mail in the mailbox carries the owner's own code.
    const mine = ok(await register(email, TEST_PASSWORD, OWNER), 201);
    const ownerCode = CODE.exec(mailsTo(email).at(-1)!)![1]!;
    // Several registrations are pending: the owner's code counts with the owner's password (issue #35 item 7).
    const verified = ok(await h.call('POST', '/api/auth/verify', { body: { email, code: ownerCode, password: TEST_PASSWORD }, headers: OWNER }));
    expect(verified).toEqual({ user_id: mine.user_id, email, verified: true });
    ok(await h.call('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD }, headers: OWNER }));
    expect(h.clock.now()).toBe(started);
    // Every registration of the squatter is void now: its password opens nothing, its codes (had it read them) neither.
    fails(await h.call('POST', '/api/auth/login', { body: { email, password: 'the squatter password' }, headers: SQUATTER }), 401, 'AUTH-INVALID-CREDENTIALS');
    for (const code of squatterCodes.filter((c) => c !== ownerCode)) {
      fails(await h.call('POST', '/api/auth/verify', { body: { email, code }, headers: SQUATTER }), 422, 'AUTH-VERIFICATION-FAILED');
    }
  });

  it('a registered and a free address get the same answer (status, fields, headers) and one mail each', async () => {
    const owned = `owned-${randomUUID()}@example.com`;
    ok(await register(owned, TEST_PASSWORD, OWNER), 201);
    ok(await h.call('POST', '/api/auth/verify', { body: { email: owned, code: CODE.exec(mailsTo(owned).at(-1)!)![1] }, headers: OWNER }));
    const free = `free-${randomUUID()}@example.com`;
    const answers = [await register(owned, 'a probing password', SQUATTER), await register(free, 'a probing password', SQUATTER)];
    const shape = (r: HttpResult) => ({
      status: r.status, keys: Object.keys(r.json.data).sort(), code: r.json.code, message: r.json.message,
      headers: [...r.headers.keys()].filter((k) => k !== 'date' && k !== 'x-request-id' && k !== 'content-length').sort(),
    });
    expect(shape(answers[0]!)).toEqual(shape(answers[1]!));
    expect(answers[0]!.json.data.email).toBe(owned);
    expect(answers[0]!.json.data.user_id).not.toBe(answers[1]!.json.data.user_id);
    // One message each: the owner is told someone tried (no code); the free address gets its code.
    expect(mailsTo(owned)).toHaveLength(2);
    expect(mailsTo(owned).at(-1)).toContain('already has one');
    expect(mailsTo(owned).at(-1)).not.toMatch(CODE);
    expect(mailsTo(free)).toHaveLength(1);
    expect(mailsTo(free)[0]).toMatch(CODE);
  });
});
