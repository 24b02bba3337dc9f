import assert from 'node:assert/strict';
import {
  assertInvariants, expectFailure, expectOk, expectSameAsMissing, outcome, type ModelSystem, type Outcome,
} from './model-system.js';
import { MODEL_NETWORK, MODEL_PLAN_QUOTAS, type ModelPlan, type UseCaseModel, type Caller } from './reference-model.js';
import type { WalletCreatedView } from '../../views.js';

/** One step of the model run; structurally an fc.AsyncCommand<UseCaseModel, ModelSystem>. */
export interface ModelCommand {
  check(model: Readonly<UseCaseModel>): boolean;
  run(model: UseCaseModel, real: ModelSystem): Promise<void>;
  toString(): string;
}

/** POST /subscriptions/activate for sub_address: the same active plan changes nothing, another takes its quota. */
export class ActivatePlanCommand implements ModelCommand {
  constructor(readonly user: number, readonly plan: ModelPlan) {}
  check(): boolean { return true; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const user = model.users[this.user]!;
    const view = expectOk(await outcome(real.app.subscriptions.activate(user.userId, { service_code: 'sub_address', plan_code: this.plan })), String(this));
    if (user.subscription?.plan !== this.plan) user.subscription = { plan: this.plan, quota: MODEL_PLAN_QUOTAS[this.plan] };
    assert.equal(view.meta.max_sub_addresses, user.subscription.quota, `${this}: quota`);
    await assertInvariants(model, real);
  }
  toString(): string { return `activate(u${this.user}, ${this.plan})`; }
}

/** Admin quota override: needs an active sub_address subscription. */
export class SetQuotaCommand implements ModelCommand {
  constructor(readonly user: number, readonly quota: number) {}
  check(): boolean { return true; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const user = model.users[this.user]!;
    const result = await outcome(real.app.admin.setQuota(String(user.userId), { max_sub_addresses: this.quota }));
    if (user.subscription === null) {
      expectFailure(result, 'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED', String(this));
    } else {
      expectOk(result, String(this));
      user.subscription.quota = this.quota;
    }
    await assertInvariants(model, real);
  }
  toString(): string { return `setQuota(u${this.user}, ${this.quota})`; }
}

/**
 * POST /wallets, `parallel` times at once. The store decides races atomically, so the outcomes must be those of
 * the same requests one after another: exactly one main per user and network, never more subs than the quota.
 */
export class CreateWalletCommand implements ModelCommand {
  constructor(readonly user: number, readonly type: number, readonly network: string, readonly parallel: number) {}
  check(): boolean { return true; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const { userId } = model.users[this.user]!;
    const body = { network_code: this.network, address_type: this.type };
    const results = await Promise.all(Array.from({ length: this.parallel }, () => outcome(real.app.wallets.create(userId, body))));
    const expected: (string | null)[] = [];
    let added = 0;
    for (let i = 0; i < this.parallel; i += 1) {
      const error = this.network !== MODEL_NETWORK ? 'BIZ-NETWORK-NOT-FOUND' : this.predict(model, userId, added);
      if (error === null) added += 1;
      expected.push(error);
    }
    const codes = (rs: readonly Outcome<WalletCreatedView>[]): string[] => rs.map((r) => (r.ok ? 'created' : r.code)).sort();
    assert.deepEqual(codes(results), expected.map((e) => e ?? 'created').sort(), `${this}: outcomes`);
    for (const result of results) {
      if (!result.ok) continue;
      const view = result.value;
      assert.equal(view.network_code, MODEL_NETWORK);
      assert.equal(view.address_type, this.type);
      assert.equal(view.status, 1);
      assert.ok(!model.wallets.some((w) => w.id === view.wallet_address_id || w.address === view.address), `${this}: reused id or address`);
      model.wallets.push({ userId, id: view.wallet_address_id, address: view.address, type: this.type as 1 | 2 });
    }
    await assertInvariants(model, real);
  }

  /** The error of the next request after `added` successful ones of this batch. */
  private predict(model: UseCaseModel, userId: number, added: number): string | null {
    if (this.type === 1) return model.walletCreationError(userId, 1) ?? (added > 0 ? 'BIZ-MAIN-ADDRESS-ALREADY-EXISTS' : null);
    const error = model.walletCreationError(userId, this.type);
    if (error !== null || this.type !== 2) return error;
    const quota = model.user(userId).subscription!.quota;
    return quota !== -1 && model.walletsOf(userId, 2).length + added >= quota ? 'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED' : null;
  }

  toString(): string { return `createWallet(u${this.user}, type ${this.type}, ${this.network}, x${this.parallel})`; }
}

/** GET /wallets/{address}: the owner sees the record; anyone else gets what a missing address gets (404). */
export class GetWalletCommand implements ModelCommand {
  constructor(readonly caller: Caller, readonly pick: number) {}
  check(model: Readonly<UseCaseModel>): boolean { return model.wallets.length > 0; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const wallet = model.wallets[this.pick % model.wallets.length]!;
    const userId = model.callerFor(wallet.userId, this.caller);
    const result = await outcome(real.app.wallets.get(userId, wallet.address));
    if (wallet.userId === userId) {
      const view = expectOk(result, String(this));
      assert.deepEqual([view.wallet_address_id, view.address, view.address_type, view.status, view.network_code],
        [wallet.id, wallet.address, wallet.type, 1, MODEL_NETWORK]);
    } else {
      expectFailure(result, 'BIZ-WALLET-ADDRESS-NOT-FOUND', String(this));
      expectSameAsMissing(result, await outcome(real.app.wallets.get(userId, real.missingAddress)), String(this));
    }
  }
  toString(): string { return `getWallet(${this.caller}, #${this.pick})`; }
}

/** Moves the manual clock (tokens expire on it). */
export class AdvanceClockCommand implements ModelCommand {
  constructor(readonly ms: number) {}
  check(): boolean { return true; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    real.clock.advance(this.ms);
    model.now += this.ms;
    assert.equal(real.clock.now(), model.now);
    await assertInvariants(model, real);
  }
  toString(): string { return `advance(${this.ms} ms)`; }
}
