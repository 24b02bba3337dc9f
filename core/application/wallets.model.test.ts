import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { failureOf, signUp } from './testing/user-journeys.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

const PLAN_QUOTA = { starter: 10, pro: 1000, unlimited: -1 } as const;
type Plan = keyof typeof PLAN_QUOTA;

interface Model {
  hasMain: boolean;
  subs: number;
  plan: Plan | null;
  quota: number | null;
}

interface Real {
  readonly core: TestCore;
  readonly userId: number;
}

async function checkCounts(m: Model, r: Real): Promise<void> {
  expect((await r.core.app.wallets.list(r.userId, { type: '1' })).pagination.total).toBe(m.hasMain ? 1 : 0);
  expect((await r.core.app.wallets.list(r.userId, { type: '2' })).pagination.total).toBe(m.subs);
}

class CreateMain implements fc.AsyncCommand<Model, Real> {
  check(): boolean { return true; }
  async run(m: Model, r: Real): Promise<void> {
    const call = r.core.app.wallets.create(r.userId, { network_code: 'TRON', address_type: 1 });
    if (m.hasMain) expect(await failureOf(call)).toEqual({ code: 'BIZ-MAIN-ADDRESS-ALREADY-EXISTS' });
    else {
      expect((await call).address_type).toBe(1);
      m.hasMain = true;
    }
    await checkCounts(m, r);
  }
  toString(): string { return 'createMain'; }
}

class CreateSub implements fc.AsyncCommand<Model, Real> {
  check(): boolean { return true; }
  async run(m: Model, r: Real): Promise<void> {
    const call = r.core.app.wallets.create(r.userId, { network_code: 'TRON', address_type: 2 });
    if (!m.hasMain) expect(await failureOf(call)).toEqual({ code: 'BIZ-MAIN-ADDRESS-REQUIRED' });
    else if (m.quota === null) expect(await failureOf(call)).toEqual({ code: 'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED' });
    else if (m.quota !== -1 && m.subs >= m.quota) expect(await failureOf(call)).toEqual({ code: 'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED' });
    else {
      expect((await call).address_type).toBe(2);
      m.subs += 1;
    }
    await checkCounts(m, r);
  }
  toString(): string { return 'createSub'; }
}

class Activate implements fc.AsyncCommand<Model, Real> {
  constructor(readonly plan: Plan) {}
  check(): boolean { return true; }
  async run(m: Model, r: Real): Promise<void> {
    const view = await r.core.app.subscriptions.activate(r.userId, { service_code: 'sub_address', plan_code: this.plan });
    // Re-activating the active plan keeps an admin override; switching takes the plan's quota.
    if (m.plan !== this.plan) m.quota = PLAN_QUOTA[this.plan];
    m.plan = this.plan;
    expect(view).toMatchObject({ plan_code: this.plan, status: 'active', meta: { max_sub_addresses: m.quota } });
  }
  toString(): string { return `activate(${this.plan})`; }
}

class SetQuota implements fc.AsyncCommand<Model, Real> {
  constructor(readonly quota: number) {}
  check(): boolean { return true; }
  async run(m: Model, r: Real): Promise<void> {
    const call = r.core.app.admin.setQuota(String(r.userId), { max_sub_addresses: this.quota });
    if (m.plan === null) {
      expect(await failureOf(call)).toEqual({ code: 'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED' });
      return;
    }
    expect(await call).toEqual({ user_id: r.userId, max_sub_addresses: this.quota });
    m.quota = this.quota;
  }
  toString(): string { return `setQuota(${this.quota})`; }
}

describe('wallet creation rules against a model', () => {
  it('main/sub creation, plan switches and admin quotas agree with spec §4 POST /wallets', async () => {
    const commands = fc.commands([
      fc.constant(new CreateMain()),
      fc.constant(new CreateSub()),
      fc.constantFrom<Plan>('starter', 'pro', 'unlimited').map((plan) => new Activate(plan)),
      fc.integer({ min: -1, max: 4 }).map((quota) => new SetQuota(quota)),
    ], { maxCommands: 30 });
    await fc.assert(fc.asyncProperty(commands, async (cmds) => {
      const core = buildTestCore(devnet);
      const { userId } = await signUp(core.app, core.readCode, 'model@example.com');
      await fc.asyncModelRun(() => ({ model: { hasMain: false, subs: 0, plan: null, quota: null }, real: { core, userId } }), cmds);
    }), { numRuns: runs(25) });
  });
});
