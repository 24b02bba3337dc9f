import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { AesGcmKeyCipher, NodeSecretHasher, OtpauthTotpGenerator, SmtpMailer, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { startLocalSmtpReceiver } from '../../adapters/node/local-smtp-receiver.js';
import { InfrastructureError } from '../domain/errors.js';
import { AccountsUseCases } from './accounts.service.js';
import { DEFAULT_CORE_SETTINGS } from './deps.js';
import { rejectionOf, signUp, TEST_PASSWORD } from './testing/user-journeys.js';
import { medianPair } from './testing/timing.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

/** Issue #14: what the HTTP tests cannot reach, a store failing between the reset's writes. */
describe('password reset: a store failure half-way', () => {
  let core: TestCore;
  beforeAll(() => { core = buildTestCore(devnet); });

  it('a failed consumption lands nothing of the reset (one atomic scope, decision 144): the code stays usable, the old password and the session too; the retry revokes the session', async () => {
    const { app, mailer, stores } = core;
    const user = await signUp(app, core.readCode, 'half@example.com');
    await app.accounts.requestPasswordReset({ email: user.email });
    const code = mailer.lastCodeFor(user.email, 'password-reset')!;
    const update = stores.accounts.update.bind(stores.accounts);
    stores.accounts.update = () => Promise.reject(new InfrastructureError('SERVICE-UNAVAILABLE', 'store down'));
    const failure = await rejectionOf(app.accounts.confirmPasswordReset({ email: user.email, code, new_password: 'the new passphrase' }));
    stores.accounts.update = update;
    expect(failure).toBeInstanceOf(InfrastructureError);
    // The memory store keeps the guarantee of the durable ones (issue #39 item 7): the revocation made before the
    // failing write is taken back with it, as the password is unchanged.
    expect(await app.accounts.authenticateSession(user.sessionToken)).not.toBeNull();
    await app.accounts.login({ email: user.email, password: TEST_PASSWORD });
    expect(await app.accounts.confirmPasswordReset({ email: user.email, code, new_password: 'the new passphrase' }))
      .toEqual({ user_id: user.userId, email: user.email });
    expect(await app.accounts.authenticateSession(user.sessionToken)).toBeNull();
    await app.accounts.login({ email: user.email, password: 'the new passphrase' });
  });
});

describe('reset request timing does not tell who has an account (mail over a local SMTP server)', () => {
  it('the median time of a request is the same for a verified account and an unknown e-mail, within noise', async () => {
    const smtp = await startLocalSmtpReceiver();
    const mailer = new SmtpMailer({ url: smtp.url, from: 'no-reply@custody.test' });
    try {
      const core = buildTestCore(devnet);
      const user = await signUp(core.app, core.readCode, 'timed-reset@example.com');
      const accounts = new AccountsUseCases({
        accounts: core.stores.accounts, sessions: core.stores.sessions, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
        mailer, clock: core.clock, ids: core.stores.ids, settings: DEFAULT_CORE_SETTINGS, auditLog: core.stores.auditLog, uow: core.stores.uow,
        cipher: AesGcmKeyCipher.fromConfig(Buffer.alloc(32, 3).toString('base64')), totp: new OtpauthTotpGenerator(),
      });
      const request = (email: string) => async () => expect(await accounts.requestPasswordReset({ email })).toEqual({});
      await request('warm-up@example.com')();
      // 27 requests in all: this warm-up, one of each, and 12 of each in turn.
      const { first: known, second: unknown } = await medianPair(request(user.email), request('nobody-here@example.com'), 12);
      // A code-or-nothing mailer would answer an unknown e-mail without the SMTP round trip: a ratio near 0.
      expect(unknown / known).toBeGreaterThan(0.4);
      expect(unknown / known).toBeLessThan(2.5);
      expect(smtp.mails).toHaveLength(27);
    } finally {
      mailer.close();
      await smtp.close();
    }
  }, 30_000);
});
