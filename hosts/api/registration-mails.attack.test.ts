/**
 * The squatting fix, finished (issue #35 item 7), attack-style through the real HTTP app with the mail port's
 * capture (RecordingMailer): a squatter registered the owner's address with the squatter's password, then the owner
 * registered it too. Both code mails land in the owner's mailbox. Each names the registration it confirms (the
 * number the registration's own 201 answer showed, and when it was made), so they are never identical; and whichever
 * code the owner types, verifying never sets a password the owner did not choose: while several registrations are
 * pending, a code counts only with the password of its own registration.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, ok, TEST_PASSWORD } from './api-test-fixtures.js';
import { startHarness, type ApiHarness } from './test-harness.js';

describe('registration mails are distinct, and a code never sets a password its verifier did not choose', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => { await h.close(); });

  const register = (email: string, password: string) => h.call('POST', '/api/auth/register', { body: { email, password } });
  const verify = (body: Record<string, string>) => h.call('POST', '/api/auth/verify', { body });
  const login = (email: string, password: string) => h.call('POST', '/api/auth/login', { body: { email, password } });
  const mailsTo = (email: string) => h.mailer.sent.filter((m) => m.email === email && m.kind === 'verification');

  it("the owner who types the squatter's code does not get the squatter's password; the owner's own code does", async () => {
    const email = `owner-${randomUUID()}@example.com`;
    const squatter = ok(await register(email, 'the squatter password'), 201);
    h.clock.advance(61_000);
    const owner = ok(await register(email, TEST_PASSWORD), 201);
    const [squattersMail, ownersMail] = mailsTo(email);
    // Two mails, each saying which registration it confirms: the number the registrant was answered, and when.
    expect(squattersMail!.registration).toEqual({ number: squatter.user_id, registeredAt: expect.any(String) });
    expect(ownersMail!.registration).toEqual({ number: owner.user_id, registeredAt: expect.any(String) });
    expect(squattersMail!.registration!.registeredAt).not.toBe(ownersMail!.registration!.registeredAt);

    // The owner picks the wrong mail. With a code alone, two pending registrations: the password is asked for.
    const codeOnly = await verify({ email, code: squattersMail!.code });
    fails(codeOnly, 422, 'VALIDATION-ERROR');
    expect(codeOnly.json.message).toMatch(/^password:/);
    // With the owner's password, the squatter's code confirms nothing.
    fails(await verify({ email, code: squattersMail!.code, password: TEST_PASSWORD }), 422, 'AUTH-VERIFICATION-FAILED');
    fails(await login(email, 'the squatter password'), 401, 'AUTH-INVALID-CREDENTIALS');

    // The owner's own code with the owner's password: the owner's registration becomes the account.
    expect(ok(await verify({ email, code: ownersMail!.code, password: TEST_PASSWORD }))).toEqual({ user_id: owner.user_id, email, verified: true });
    ok(await login(email, TEST_PASSWORD));
    fails(await login(email, 'the squatter password'), 401, 'AUTH-INVALID-CREDENTIALS');
    fails(await verify({ email, code: squattersMail!.code, password: 'the squatter password' }), 422, 'AUTH-VERIFICATION-FAILED');
  });

  it('a lone registration still verifies with {email, code} (DESIGN.md), and with its own password', async () => {
    const email = `solo-${randomUUID()}@example.com`;
    const mine = ok(await register(email, TEST_PASSWORD), 201);
    expect(ok(await verify({ email, code: mailsTo(email)[0]!.code }))).toEqual({ user_id: mine.user_id, email, verified: true });
    const other = `solo-${randomUUID()}@example.com`;
    ok(await register(other, TEST_PASSWORD), 201);
    fails(await verify({ email: other, code: mailsTo(other)[0]!.code, password: 'not the password' }), 422, 'AUTH-VERIFICATION-FAILED');
    ok(await verify({ email: other, code: mailsTo(other)[0]!.code, password: TEST_PASSWORD }));
  });
});
