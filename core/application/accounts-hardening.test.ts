import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { AesGcmKeyCipher, NodeSecretHasher, OtpauthTotpGenerator } from '../../adapters/node/index.js';
import { AccountsUseCases } from './accounts.service.js';
import { DEFAULT_CORE_SETTINGS } from './deps.js';
import { failureOf, TEST_PASSWORD } from './testing/user-journeys.js';
import { medianPair } from './testing/timing.js';

/** Account-flow hardening: equal-time login and registration (issue #13), pending registrations never block (issue #26). */

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
      clock: core.clock, ids: core.stores.ids, settings: DEFAULT_CORE_SETTINGS, auditLog: core.stores.auditLog, uow: core.stores.uow,
      cipher: AesGcmKeyCipher.fromConfig(Buffer.alloc(32, 3).toString('base64')), totp: new OtpauthTotpGenerator(),
    });
    await accounts.register({ email: 'timed@example.com', password: TEST_PASSWORD });
    const login = (email: string) => () => accounts.login({ email, password: 'wrong password!' }).catch(() => undefined);
    await login('warm-up@example.com')();
    const { first: known, second: unknown } = await medianPair(login('timed@example.com'), login('nobody-here@example.com'));
    // Before the fix: about 25 ms against 1 ms.
    expect(unknown / known).toBeGreaterThan(0.4);
    expect(unknown / known).toBeLessThan(2.5);
  }, 30_000);
});

describe('registration timing does not tell registered e-mails apart (production scrypt cost)', () => {
  it('the median time of registering an owned e-mail is that of a free one, within noise (issue #26 item 6)', async () => {
    const core = buildTestCore(devnet);
    const accounts = new AccountsUseCases({
      accounts: core.stores.accounts, sessions: core.stores.sessions, hasher: new NodeSecretHasher(), mailer: core.mailer,
      clock: core.clock, ids: core.stores.ids, settings: DEFAULT_CORE_SETTINGS, auditLog: core.stores.auditLog, uow: core.stores.uow,
      cipher: AesGcmKeyCipher.fromConfig(Buffer.alloc(32, 3).toString('base64')), totp: new OtpauthTotpGenerator(),
    });
    await accounts.register({ email: 'owned@example.com', password: TEST_PASSWORD });
    await accounts.verify({ email: 'owned@example.com', code: core.readCode('owned@example.com') });
    let n = 0;
    const register = (email: () => string) => () => accounts.register({ email: email(), password: 'a probing password' });
    await register(() => `warm-${n++}@example.com`)();
    const { first: owned, second: free } = await medianPair(register(() => 'owned@example.com'), register(() => `free-${n++}@example.com`));
    // Both hash the password with scrypt, draw a code and an id and send one mail; they differ in one store write.
    expect(owned / free).toBeGreaterThan(0.5);
    expect(owned / free).toBeLessThan(2);
  }, 30_000);
});

describe('an e-mail belongs to whoever proves the mailbox (issue #26 item 6)', () => {
  let core: TestCore;
  beforeEach(() => { core = buildTestCore(devnet); });
  const register = (password: string) => core.app.accounts.register({ email: 'owner@example.com', password });

  it("a squatter's earlier registration blocks nothing: the owner registers at once, verifies, and the squatter's code is void", async () => {
    const squatted = await register('squatter password');
    const squatterCode = core.readCode('owner@example.com')!;
    const owner = await register(TEST_PASSWORD);
    expect(owner.user_id).not.toBe(squatted.user_id);
    const ownerCode = core.readCode('owner@example.com')!;
    // Two are pending: the owner's code counts with the owner's password (issue #35 item 7).
    await core.app.accounts.verify({ email: 'owner@example.com', code: ownerCode, password: TEST_PASSWORD });
    if (ownerCode !== squatterCode) {
      expect(await failureOf(core.app.accounts.verify({ email: 'owner@example.com', code: squatterCode }))).toEqual({ code: 'AUTH-VERIFICATION-FAILED' });
    }
    expect(await failureOf(core.app.accounts.login({ email: 'owner@example.com', password: 'squatter password' }))).toEqual({ code: 'AUTH-INVALID-CREDENTIALS' });
    expect((await core.app.accounts.login({ email: 'owner@example.com', password: TEST_PASSWORD })).user_id).toBe(owner.user_id);
    // Owned now: a later registration changes nothing, whatever its password, and the answer has the same shape.
    core.clock.advance(3 * DAY);
    const later = await register('another password');
    expect(Object.keys(later).sort()).toEqual(['email', 'user_id']);
    expect((await core.app.accounts.login({ email: 'owner@example.com', password: TEST_PASSWORD })).user_id).toBe(owner.user_id);
  });

  it('of 6 parallel verifications of 6 registrations of one e-mail exactly 1 wins; the others fail and are void', async () => {
    const codes: string[] = [];
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push((await register(`${TEST_PASSWORD} ${i}`)).user_id);
      codes.push(core.readCode('owner@example.com')!);
    }
    const results = await Promise.allSettled(codes.map((code, i) => core.app.accounts.verify({ email: 'owner@example.com', code, password: `${TEST_PASSWORD} ${i}` })));
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as { code: string }).code).toBe('AUTH-VERIFICATION-FAILED');
    const owner = (await core.stores.accounts.findByEmail('owner@example.com'))!;
    expect(ids).toContain(owner.id);
    expect(await core.stores.accounts.listPendingByEmail('owner@example.com')).toEqual([]);
  });
});
