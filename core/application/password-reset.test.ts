import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { InfrastructureError } from '../domain/errors.js';
import { rejectionOf, signUp, TEST_PASSWORD } from './testing/user-journeys.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

/** Issue #14: what the HTTP tests cannot reach, a store failing between the reset's writes. */
describe('password reset: a store failure half-way', () => {
  let core: TestCore;
  beforeAll(() => { core = buildTestCore(devnet); });

  it('sessions are revoked before the code is consumed: a failed consumption leaves the code usable and no session alive', async () => {
    const { app, mailer, stores } = core;
    const user = await signUp(app, core.readCode, 'half@example.com');
    await app.accounts.requestPasswordReset({ email: user.email });
    const code = mailer.lastCodeFor(user.email, 'password-reset')!;
    const update = stores.accounts.update.bind(stores.accounts);
    stores.accounts.update = () => Promise.reject(new InfrastructureError('SERVICE-UNAVAILABLE', 'store down'));
    const failure = await rejectionOf(app.accounts.confirmPasswordReset({ email: user.email, code, new_password: 'the new passphrase' }));
    stores.accounts.update = update;
    expect(failure).toBeInstanceOf(InfrastructureError);
    expect(await app.accounts.authenticateSession(user.sessionToken)).toBeNull();
    await app.accounts.login({ email: user.email, password: TEST_PASSWORD });
    expect(await app.accounts.confirmPasswordReset({ email: user.email, code, new_password: 'the new passphrase' }))
      .toEqual({ user_id: user.userId, email: user.email });
    await app.accounts.login({ email: user.email, password: 'the new passphrase' });
  });
});
