import assert from 'node:assert/strict';
import {
  assertBalanceItems, assertInvariants, expectOk, expectSameAsMissing, outcome, type ModelSystem,
} from './model-system.js';
import { MODEL_ASSETS, type UseCaseModel, type Caller } from './reference-model.js';
import type { ModelCommand } from './wallet-commands.js';

/** The balance scanner stores a snapshot of an address (refresh_source 1), as the worker job does. */
export class ScanBalanceCommand implements ModelCommand {
  constructor(readonly pick: number, readonly trx: bigint, readonly usdt: bigint) {}
  check(model: Readonly<UseCaseModel>): boolean { return model.wallets.length > 0; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const { address } = model.wallets[this.pick % model.wallets.length]!;
    const now = real.clock.now();
    await real.balances.put({
      address, refreshSource: 1, updatedAt: now,
      items: [{ symbol: 'TRX', available: this.trx, updatedAt: now }, { symbol: 'USDT', available: this.usdt, updatedAt: now }],
    });
    model.balances.set(address, { TRX: this.trx, USDT: this.usdt });
    await assertInvariants(model, real);
  }
  toString(): string { return `scan(#${this.pick}, TRX ${this.trx}, USDT ${this.usdt})`; }
}

/** PUT /subscriptions/config with min_collect_amounts: the whole map is replaced. */
export class SetMinimumsCommand implements ModelCommand {
  constructor(readonly user: number, readonly minimums: Readonly<Record<string, bigint>>) {}
  check(): boolean { return true; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const { userId } = model.users[this.user]!;
    const wire = Object.fromEntries(Object.entries(this.minimums).map(([symbol, amount]) => [symbol, amount.toString()]));
    const body = { service_code: 'developer', config: { min_collect_amounts: wire } };
    expectOk(await outcome(real.app.subscriptions.putConfig(userId, body)), String(this));
    model.minimums.set(userId, { ...this.minimums });
    await assertInvariants(model, real);
  }
  toString(): string {
    return `setMinimums(u${this.user}, ${Object.entries(this.minimums).map(([k, v]) => `${k} ${v}`).join(' ') || 'none'})`;
  }
}

/** GET /wallets/{address}/balances: the cached lines with the pending collection's hold; another user's is missing. */
export class GetBalancesCommand implements ModelCommand {
  constructor(readonly caller: Caller, readonly pick: number) {}
  check(model: Readonly<UseCaseModel>): boolean { return model.wallets.length > 0; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const wallet = model.wallets[this.pick % model.wallets.length]!;
    const userId = model.callerFor(wallet.userId, this.caller);
    const result = await outcome(real.app.wallets.balances(userId, wallet.address));
    if (wallet.userId !== userId) {
      expectSameAsMissing(result, await outcome(real.app.wallets.balances(userId, real.missingAddress)), String(this));
      assert.equal(result.ok ? null : result.code, 'BIZ-WALLET-ADDRESS-NOT-FOUND');
      return;
    }
    const view = expectOk(result, String(this));
    assert.equal(view.address, wallet.address);
    assert.equal(view.items.length, MODEL_ASSETS.length);
    assertBalanceItems(view.items, model, wallet.address, String(this));
  }
  toString(): string { return `getBalances(${this.caller}, #${this.pick})`; }
}
