import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { TEST_PASSWORD } from './testing/user-journeys.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

const HOUR = 60 * 60_000;

/** Issue #14: the worker's job deletes accounts left unverified for 24 h, on the Clock, and nothing else. */
describe('expiring unverified accounts', () => {
  let core: TestCore;
  beforeAll(() => { core = buildTestCore(devnet); });

  it('deletes an account exactly 24 h after registering unverified; verified and younger ones stay; the e-mail is free again', async () => {
    const { app, mailer, clock } = core;
    await app.accounts.register({ email: 'stale@example.com', password: TEST_PASSWORD });
    const verified = await app.accounts.register({ email: 'kept@example.com', password: TEST_PASSWORD });
    await app.accounts.verify({ email: 'kept@example.com', code: mailer.lastCodeFor('kept@example.com') });
    clock.advance(HOUR);
    await app.accounts.register({ email: 'young@example.com', password: TEST_PASSWORD });
    clock.advance(23 * HOUR - 1);
    expect(await app.accounts.expireUnverifiedAccounts()).toBe(0);
    clock.advance(1);
    expect(await app.accounts.expireUnverifiedAccounts()).toBe(1);
    expect(await app.accounts.expireUnverifiedAccounts()).toBe(0);
    const accounts = core.stores.accounts;
    expect(await accounts.findByEmail('stale@example.com')).toBeNull();
    expect((await accounts.findByEmail('kept@example.com'))!.id).toBe(verified.user_id);
    expect(await accounts.listPendingByEmail('young@example.com')).toHaveLength(1);
    clock.advance(HOUR);
    expect(await app.accounts.expireUnverifiedAccounts()).toBe(1);
    // A verified account never expires; a deleted e-mail registers afresh with any password.
    clock.advance(400 * 24 * HOUR);
    expect(await app.accounts.expireUnverifiedAccounts()).toBe(0);
    expect(await app.accounts.register({ email: 'stale@example.com', password: 'another password' })).toMatchObject({ email: 'stale@example.com' });
  });
});
