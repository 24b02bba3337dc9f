import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { toCashierTaskView } from './mappers.js';
import { cacheBalances } from './testing/cached-balances.js';
import { failureOf, userWithWallets, type UserWithWallets } from './testing/user-journeys.js';

/** Issue #13 regressions in the use cases: deny-list spelling, lookups before checks, what payers are told. */

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

describe('deny-list values are normalised so that anything added can be removed', () => {
  let core: TestCore;
  beforeEach(() => { core = buildTestCore(devnet); });

  it('a lone surrogate is stored as U+FFFD, which is what a percent-decoded DELETE path can carry', async () => {
    const added = await core.app.admin.denyRisk({ kind: 'address', value: 'T\uD800x', reason: 'note' });
    expect(added.value).toBe('T\uFFFDx');
    expect(await core.app.admin.allowRisk({ kind: 'address', value: decodeURIComponent('T%EF%BF%BDx') })).toEqual({ removed: true });
    expect(await core.app.admin.listRisk()).toEqual([]);
  });

  it('composed and decomposed spellings and padding name one entry; a blank value is refused', async () => {
    await core.app.admin.denyRisk({ kind: 'user', value: ' caf\u0065\u0301 ' });
    expect((await core.app.admin.listRisk()).map((e) => e.value)).toEqual(['caf\u00e9']);
    expect(await core.app.admin.allowRisk({ kind: 'user', value: 'caf\u00e9' })).toEqual({ removed: true });
    expect(await failureOf(core.app.admin.denyRisk({ kind: 'user', value: '  ' }))).toEqual({ code: 'VALIDATION-ERROR' });
  });

  it('an entry stored unnormalised before this rule is still removable under its exact spelling', async () => {
    await core.stores.risk.deny({ kind: 'address', value: ' legacy ', reason: null });
    expect(await core.app.admin.allowRisk({ kind: 'address', value: ' legacy ' })).toEqual({ removed: true });
  });
});

describe('webhook URLs: localhost and IP literals are judged before any DNS lookup', () => {
  let core: TestCore;
  let user: UserWithWallets;
  beforeEach(async () => {
    core = buildTestCore(devnet);
    user = await userWithWallets(core.app, core.readCode, 'hooks@example.com', 0);
  });
  const put = (url: string) => core.app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: url, webhook_secret: 'secret-1' } });

  it('refuses localhost names and blocked literals, accepts a public literal, and resolves nothing for any of them', async () => {
    const lookups = vi.spyOn(core.dns, 'resolve');
    for (const url of ['https://localhost/h', 'https://api.localhost./h', 'https://10.0.0.1/h', 'https://[::1]/h', 'https://[::ffff:192.168.0.1]/h']) {
      expect(await failureOf(put(url)), url).toEqual({ code: 'BIZ-WEBHOOK-URL-BLOCKED' });
    }
    await put('https://93.184.216.34/h');
    expect(lookups).not.toHaveBeenCalled();
    await put('https://hooks.example.com/h');
    expect(lookups.mock.calls).toEqual([['hooks.example.com']]);
  });
});

describe('what a payer is told about a failed collection', () => {
  it('a plain reason chosen by the code: no node text, txid or address', async () => {
    const core = buildTestCore(devnet);
    const user = await userWithWallets(core.app, core.readCode, 'payer@example.com', 1);
    await cacheBalances({ balances: core.stores.balances, clock: core.clock }, user.subs[0]!);
    const created = await core.app.collections.create(user.userId, { address: user.subs[0], asset_symbol: 'TRX' });
    const task = (await core.stores.tasks.get(created.task_no))!;
    const txid = 'ab'.repeat(32);
    const failed = (errorCode: string, lastError: string) => toCashierTaskView({ ...task, status: 12, errorCode, lastError }).last_error;
    const reasons = [
      failed('CHAIN-TRANSACTION-FAILED', `funding transaction failed on chain: REVERT ${txid}`),
      failed('CHAIN-BROADCAST-FAILED', `funding transaction ${txid} expired unsent`),
      failed('BIZ-ENERGY-UNAVAILABLE', 'energy rental order ord-7 failed'),
      failed('BIZ-NOTHING-TO-COLLECT', `${user.subs[0]} holds no TRX to collect`),
      failed('RISK-REVIEW-BLOCKED', 'sanctioned by compliance ticket 42'),
    ];
    for (const reason of reasons) {
      expect(reason).not.toContain(txid);
      expect(reason).not.toContain(user.subs[0]);
      expect(reason).not.toMatch(/REVERT|ord-7|ticket|compliance/);
    }
    expect(reasons[3]).toBe('nothing to collect: the address holds none of this asset');
    expect(reasons[4]).toBe('blocked by risk control');
    expect(toCashierTaskView(task).last_error).toBeNull();
    // The merchant's own API keeps the stored detail.
    expect((await core.app.collections.get(user.userId, created.task_no)).last_error).toBe(task.lastError);
  });
});
