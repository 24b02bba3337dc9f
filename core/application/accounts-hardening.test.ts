import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { NodeSecretHasher } from '../../adapters/node/index.js';
import { AccountsUseCases } from './accounts.service.js';
import { DEFAULT_CORE_SETTINGS } from './deps.js';
import { failureOf, TEST_PASSWORD } from './testing/user-journeys.js';

/** Issue #13 regressions in the account flow: equal-time login, abandoned unverified accounts. */

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

const DAY = 24 * 60 * 60 * 1000;

describe('login does the same scrypt work for an unknown e-mail as for a known one', () => {
  it('an unknown e-mail is checked against a real scrypt hash, like a wrong password of a known one', async () => {
    const core = buildTestCore(devnet);
    await core.app.accounts.register({ email: 'known@example.com', password: TEST_PASSWORD });
    const hasher = (core.app.accounts as unknown as { deps: { hasher: { verifyPassword: (p: string, h: string) => Promise<boolean> } } }).deps.hasher;
    const verify = vi.spyOn(hasher, 'verifyPassword');
    expect(await failureOf(core.app.accounts.login({ email: 'known@example.com', password: 'wrong password' }))).toEqual({ code: 'AUTH-INVALID-CREDENTIALS' });
    expect(await failureOf(core.app.accounts.login({ email: 'nobody@example.com', password: 'wrong password' }))).toEqual({ code: 'AUTH-INVALID-CREDENTIALS' });
    expect(await failureOf(core.app.accounts.login({ email: 'nobody2@example.com', password: 'wrong password' }))).toEqual({ code: 'AUTH-INVALID-CREDENTIALS' });
    expect(verify).toHaveBeenCalledTimes(3);
    const [known, unknown, unknown2] = verify.mock.calls.map((call) => call[1]);
    // Same scheme and parameters: the same cost; the decoy is made once.
    expect(unknown!.split('$').slice(0, -2)).toEqual(known!.split('$').slice(0, -2));
    expect(unknown).toBe(unknown2);
    expect(unknown).not.toBe(known);
  });
});

describe('login timing does not tell registered e-mails apart (production scrypt cost)', () => {
  it('the median time of a wrong password is the same for a known and an unknown e-mail, within noise', async () => {
    const core = buildTestCore(devnet);
    const accounts = new AccountsUseCases({
      accounts: core.stores.accounts, sessions: core.stores.sessions, hasher: new NodeSecretHasher(), mailer: core.mailer,
      clock: core.clock, ids: core.stores.ids, settings: DEFAULT_CORE_SETTINGS, auditLog: core.stores.auditLog,
    });
    await accounts.register({ email: 'timed@example.com', password: TEST_PASSWORD });
    const median = async (email: string): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < 7; i++) {
        const started = performance.now();
        await accounts.login({ email, password: 'wrong password!' }).catch(() => undefined);
        times.push(performance.now() - started);
      }
      return times.sort((a, b) => a - b)[3]!;
    };
    await median('warm-up@example.com');
    const known = await median('timed@example.com');
    const unknown = await median('nobody-here@example.com');
    // Before the fix: about 25 ms against 1 ms.
    expect(unknown / known).toBeGreaterThan(0.4);
    expect(unknown / known).toBeLessThan(2.5);
  }, 30_000);
});

describe('unverified accounts expire after 24 h and a later registration takes them over', () => {
  let core: TestCore;
  beforeEach(() => { core = buildTestCore(devnet); });
  const register = (password: string) => core.app.accounts.register({ email: 'owner@example.com', password });

  it('before 24 h another password is 409; at 24 h it takes the account over with its own code and password', async () => {
    const squatted = await register('squatter password');
    const squatterCode = core.readCode('owner@example.com')!;
    core.clock.advance(DAY - 1);
    expect(await failureOf(register(TEST_PASSWORD))).toEqual({ code: 'AUTH-EMAIL-TAKEN' });
    core.clock.advance(1);
    const owner = await register(TEST_PASSWORD);
    expect(owner.user_id).toBe(squatted.user_id);
    const ownerCode = core.readCode('owner@example.com')!;
    if (ownerCode !== squatterCode) {
      expect(await failureOf(core.app.accounts.verify({ email: 'owner@example.com', code: squatterCode }))).toEqual({ code: 'AUTH-VERIFICATION-FAILED' });
    }
    await core.app.accounts.verify({ email: 'owner@example.com', code: ownerCode });
    expect(await failureOf(core.app.accounts.login({ email: 'owner@example.com', password: 'squatter password' }))).toEqual({ code: 'AUTH-INVALID-CREDENTIALS' });
    expect((await core.app.accounts.login({ email: 'owner@example.com', password: TEST_PASSWORD })).user_id).toBe(owner.user_id);
    // Verified accounts never expire.
    core.clock.advance(3 * DAY);
    expect(await failureOf(register('another password'))).toEqual({ code: 'AUTH-EMAIL-TAKEN' });
  });

  it('exactly 1 of 6 parallel registrations takes an expired account over; the others are 409', async () => {
    await register('squatter password');
    core.clock.advance(DAY);
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => register(`${TEST_PASSWORD} ${i}`)));
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as { code: string }).code).toBe('AUTH-EMAIL-TAKEN');
  });
});
