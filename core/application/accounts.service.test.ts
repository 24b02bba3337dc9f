import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { DomainError } from '../domain/errors.js';
import { rejectionOf, signUp, TEST_PASSWORD } from './testing/user-journeys.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

const MINUTE = 60_000;

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe(code);
}

describe('accounts: register → mailed code → verify → login → logout', () => {
  let core: TestCore;
  beforeAll(() => { core = buildTestCore(devnet); });

  it('walks the whole flow; the session authenticates until logout', async () => {
    const { app, mailer } = core;
    const registered = await app.accounts.register({ email: 'Alice@Example.com', password: TEST_PASSWORD });
    expect(registered).toEqual({ user_id: expect.any(Number), email: 'alice@example.com' });
    expect(mailer.sent).toHaveLength(1);
    const code = mailer.lastCodeFor('alice@example.com')!;
    expect(code).toMatch(/^\d{6}$/);
    await expectCode(app.accounts.login({ email: 'alice@example.com', password: TEST_PASSWORD }), 'AUTH-NOT-VERIFIED');
    expect(await app.accounts.verify({ email: 'alice@example.com', code })).toEqual({
      user_id: registered.user_id, email: 'alice@example.com', verified: true,
    });
    const login = await app.accounts.login({ email: 'ALICE@example.com', password: TEST_PASSWORD });
    expect(login.user_id).toBe(registered.user_id);
    expect(login.session_token).toMatch(/^st_/);
    expect(Date.parse(login.expires_at)).toBe(core.clock.now() + 24 * 60 * MINUTE);
    expect(await app.accounts.authenticateSession(login.session_token)).toEqual({ userId: registered.user_id });
    await app.accounts.logout(login.session_token);
    expect(await app.accounts.authenticateSession(login.session_token)).toBeNull();
  });

  it('a session token stops working when it expires (24 h on the clock)', async () => {
    const { app, clock, readCode } = core;
    const user = await signUp(app, readCode, 'expiry@example.com');
    clock.advance(24 * 60 * MINUTE - 1);
    expect(await app.accounts.authenticateSession(user.sessionToken)).toEqual({ userId: user.userId });
    clock.advance(1);
    expect(await app.accounts.authenticateSession(user.sessionToken)).toBeNull();
  });

  it('tokens that are not st_ session tokens are refused; logout of an unknown token is harmless', async () => {
    const { app } = core;
    expect(await app.accounts.authenticateSession('dk_whatever')).toBeNull();
    expect(await app.accounts.authenticateSession('st_unknown')).toBeNull();
    await expect(app.accounts.logout('st_unknown')).resolves.toBeUndefined();
  });
});

describe('accounts: failures', () => {
  let core: TestCore;
  beforeAll(() => { core = buildTestCore(devnet); });

  it('registering an owned e-mail answers like a free one (a fresh id), mails an "account exists" note and changes nothing', async () => {
    const { app, readCode, mailer } = core;
    const owner = await signUp(app, readCode, 'taken@example.com');
    const codes = mailer.sent.length;
    const again = await app.accounts.register({ email: 'TAKEN@example.com', password: 'another password!' });
    expect(again).toEqual({ user_id: expect.any(Number), email: 'taken@example.com' });
    expect(again.user_id).not.toBe(owner.userId);
    expect(mailer.sent.length).toBe(codes);
    expect(mailer.accountExistsSent.at(-1)).toBe('taken@example.com');
    await expectCode(app.accounts.login({ email: 'taken@example.com', password: 'another password!' }), 'AUTH-INVALID-CREDENTIALS');
    expect((await app.accounts.login({ email: 'taken@example.com', password: TEST_PASSWORD })).user_id).toBe(owner.userId);
  });

  it('each registration of an unverified e-mail gets its own code; the first verified wins and voids the other', async () => {
    const { app, mailer } = core;
    const first = await app.accounts.register({ email: 'again@example.com', password: TEST_PASSWORD });
    const firstCode = mailer.lastCodeFor('again@example.com')!;
    const second = await app.accounts.register({ email: 'again@example.com', password: 'another password!' });
    const secondCode = mailer.lastCodeFor('again@example.com')!;
    expect(second.user_id).not.toBe(first.user_id);
    // Two are pending: a code counts with its own registration's password (issue #35 item 7).
    await expectCode(app.accounts.verify({ email: 'again@example.com', code: secondCode }), 'VALIDATION-ERROR');
    await expectCode(app.accounts.verify({ email: 'again@example.com', code: secondCode, password: TEST_PASSWORD }), 'AUTH-VERIFICATION-FAILED');
    expect(await app.accounts.verify({ email: 'again@example.com', code: secondCode, password: 'another password!' }))
      .toEqual({ user_id: second.user_id, email: 'again@example.com', verified: true });
    // Repeating the winning verification answers the same; the voided registration's code no longer works.
    expect((await app.accounts.verify({ email: 'again@example.com', code: secondCode })).user_id).toBe(second.user_id);
    if (firstCode !== secondCode) await expectCode(app.accounts.verify({ email: 'again@example.com', code: firstCode }), 'AUTH-VERIFICATION-FAILED');
    await expectCode(app.accounts.login({ email: 'again@example.com', password: TEST_PASSWORD }), 'AUTH-INVALID-CREDENTIALS');
    expect((await app.accounts.login({ email: 'again@example.com', password: 'another password!' })).user_id).toBe(second.user_id);
  });

  it('a wrong code fails (422) and leaves the right one usable', async () => {
    const { app, mailer } = core;
    await app.accounts.register({ email: 'wrong@example.com', password: TEST_PASSWORD });
    const code = mailer.lastCodeFor('wrong@example.com')!;
    const wrong = code === '000000' ? '000001' : '000000';
    await expectCode(app.accounts.verify({ email: 'wrong@example.com', code: wrong }), 'AUTH-VERIFICATION-FAILED');
    expect((await app.accounts.verify({ email: 'wrong@example.com', code })).verified).toBe(true);
  });

  it('five wrong codes burn the code: even the right one fails until a new registration attempt', async () => {
    const { app, mailer } = core;
    await app.accounts.register({ email: 'burnt@example.com', password: TEST_PASSWORD });
    const code = mailer.lastCodeFor('burnt@example.com')!;
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i++) {
      await expectCode(app.accounts.verify({ email: 'burnt@example.com', code: wrong }), 'AUTH-VERIFICATION-FAILED');
    }
    await expectCode(app.accounts.verify({ email: 'burnt@example.com', code }), 'AUTH-VERIFICATION-FAILED');
    await app.accounts.register({ email: 'burnt@example.com', password: TEST_PASSWORD });
    const fresh = mailer.lastCodeFor('burnt@example.com')!;
    expect((await app.accounts.verify({ email: 'burnt@example.com', code: fresh })).verified).toBe(true);
  });

  it('an expired code fails (15 min on the clock)', async () => {
    const { app, mailer, clock } = core;
    await app.accounts.register({ email: 'late@example.com', password: TEST_PASSWORD });
    const code = mailer.lastCodeFor('late@example.com')!;
    clock.advance(15 * MINUTE);
    await expectCode(app.accounts.verify({ email: 'late@example.com', code }), 'AUTH-VERIFICATION-FAILED');
  });

  it('a code just before expiry still works', async () => {
    const { app, mailer, clock } = core;
    await app.accounts.register({ email: 'intime@example.com', password: TEST_PASSWORD });
    const code = mailer.lastCodeFor('intime@example.com')!;
    clock.advance(15 * MINUTE - 1);
    expect((await app.accounts.verify({ email: 'intime@example.com', code })).verified).toBe(true);
  });

  it('verifying an unknown e-mail fails like a wrong code', async () => {
    await expectCode(core.app.accounts.verify({ email: 'nobody@example.com', code: '123456' }), 'AUTH-VERIFICATION-FAILED');
  });

  it('login with an unknown e-mail or a wrong password is the same 401', async () => {
    const { app, readCode } = core;
    await signUp(app, readCode, 'login@example.com');
    await expectCode(app.accounts.login({ email: 'login@example.com', password: 'wrong password' }), 'AUTH-INVALID-CREDENTIALS');
    await expectCode(app.accounts.login({ email: 'ghost@example.com', password: TEST_PASSWORD }), 'AUTH-INVALID-CREDENTIALS');
  });

  it('invalid input names the field', async () => {
    const { app } = core;
    for (const [body, field] of [
      [{ email: 'not-an-email', password: TEST_PASSWORD }, 'email'],
      [{ email: 'short@example.com', password: 'short' }, 'password'],
      [{ password: TEST_PASSWORD }, 'email'],
    ] as const) {
      const error = await rejectionOf(app.accounts.register(body));
      expect(error).toMatchObject({ code: 'VALIDATION-ERROR', field });
    }
  });

  it('parallel wrong codes are each judged 422 and counted; the burnt code then refuses the right one', async () => {
    const { app, mailer, stores } = core;
    await app.accounts.register({ email: 'guesser@example.com', password: TEST_PASSWORD });
    const code = mailer.lastCodeFor('guesser@example.com')!;
    const wrong = Array.from({ length: 12 }, (_, i) => String((Number(code) + i + 1) % 1_000_000).padStart(6, '0'));
    const results = await Promise.allSettled(wrong.map((guess) => app.accounts.verify({ email: 'guesser@example.com', code: guess })));
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toMatchObject({ code: 'AUTH-VERIFICATION-FAILED' });
    }
    expect((await stores.accounts.listPendingByEmail('guesser@example.com'))[0]?.verificationAttempts).toBe(5);
    await expectCode(app.accounts.verify({ email: 'guesser@example.com', code }), 'AUTH-VERIFICATION-FAILED');
  });
});
