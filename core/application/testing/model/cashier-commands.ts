import assert from 'node:assert/strict';
import type { CashierContext } from '../../application.js';
import {
  assertBalanceItems, assertInvariants, expectFailure, expectOk, expectSameAsMissing, instant, outcome, shown, taskStatusNumber,
  type ModelSystem, type Outcome,
} from './model-system.js';
import { MODEL_ASSETS, type ModelTask, type ModelToken, type UseCaseModel, type Caller } from './reference-model.js';
import type { ModelCommand } from './wallet-commands.js';

/** A token number in the right format that no token has. */
const MISSING_TOKEN_NO = 'CT2000010100000000000000';

/**
 * POST /cashier/tokens, `parallel` times at once: owned sub-address only, one live token per address (an expired one
 * does not count) — of simultaneous requests exactly one wins, the rest get 409.
 */
export class CreateTokenCommand implements ModelCommand {
  constructor(readonly caller: Caller, readonly pick: number, readonly ttl: number, readonly parallel = 1) {}
  check(model: Readonly<UseCaseModel>): boolean { return model.wallets.length > 0; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const wallet = model.wallets[this.pick % model.wallets.length]!;
    const userId = model.callerFor(wallet.userId, this.caller);
    const body = { address: wallet.address, ttl_minutes: this.ttl };
    const results = await Promise.all(Array.from({ length: this.parallel }, () => outcome(real.app.cashierTokens.create(userId, body))));
    const expectEach = (code: string): void => results.forEach((r) => expectFailure(r, code, String(this)));
    if (wallet.userId !== userId) {
      expectEach('BIZ-WALLET-ADDRESS-NOT-FOUND');
      const missing = await outcome(real.app.cashierTokens.create(userId, { ...body, address: real.missingAddress }));
      expectSameAsMissing(results[0]!, missing, String(this));
    } else if (wallet.type !== 2) {
      expectEach('BIZ-ADDRESS-TYPE-NOT-SUB');
    } else if (model.liveTokenOn(wallet.address) !== undefined) {
      expectEach('CASHIER-TOKEN-ACTIVE-EXISTS');
    } else {
      const wins = results.filter((r) => r.ok);
      assert.equal(wins.length, 1, `${this}: exactly one of ${this.parallel} simultaneous tokens is issued`);
      results.filter((r) => !r.ok).forEach((r) => expectFailure(r, 'CASHIER-TOKEN-ACTIVE-EXISTS', String(this)));
      const view = expectOk(wins[0]!, String(this));
      assert.match(view.token, /^ct_/);
      assert.equal(view.status, 'active');
      assert.equal(view.ttl_minutes, this.ttl);
      assert.equal(view.address, wallet.address);
      assert.equal(instant(view.expires_at), shown(model.now + this.ttl * 60_000), `${this}: expires_at`);
      model.tokens.push({
        userId, tokenNo: view.token_no, value: view.token, address: wallet.address, ttlMinutes: this.ttl,
        createdAt: model.now, status: 'active', expiresAt: model.now + this.ttl * 60_000,
      });
    }
    await assertInvariants(model, real);
  }
  toString(): string { return `createToken(${this.caller}, #${this.pick}, ${this.ttl} min, x${this.parallel})`; }
}

/** DELETE /cashier/tokens/{tokenNo}: another user's token is as missing (404); twice is 409. */
export class DisableTokenCommand implements ModelCommand {
  constructor(readonly caller: Caller, readonly pick: number) {}
  check(model: Readonly<UseCaseModel>): boolean { return model.tokens.length > 0; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const token = model.tokens[this.pick % model.tokens.length]!;
    const userId = model.callerFor(token.userId, this.caller);
    const result = await outcome(real.app.cashierTokens.disable(userId, token.tokenNo, { reason: 'model' }));
    if (token.userId !== userId) {
      expectFailure(result, 'CASHIER-TOKEN-NOT-FOUND', String(this));
      expectSameAsMissing(result, await outcome(real.app.cashierTokens.disable(userId, MISSING_TOKEN_NO, {})), String(this));
    } else if (token.status === 'disabled') {
      expectFailure(result, 'CASHIER-TOKEN-ALREADY-DISABLED', String(this));
    } else {
      // Active or expired: an expired token may still be revoked explicitly (cashier-token-rules).
      const view = expectOk(result, String(this));
      assert.equal(view.status, 'disabled');
      token.status = 'disabled';
    }
    await assertInvariants(model, real);
  }
  toString(): string { return `disableToken(${this.caller}, #${this.pick})`; }
}

/** Authenticates like the host does; 401 CASHIER-TOKEN-INVALID unless the token is active at the model's now. */
async function authenticate(model: UseCaseModel, real: ModelSystem, token: ModelToken, what: string): Promise<CashierContext | null> {
  const auth = await outcome(real.app.cashier.authenticateCashier(token.value));
  if (model.tokenState(token) !== 'active') {
    expectFailure(auth, 'CASHIER-TOKEN-INVALID', what);
    return null;
  }
  return expectOk(auth, what);
}

function assertTaskView(view: { task_no: string; status: number } | null, task: ModelTask | undefined, what: string): void {
  assert.deepEqual(view === null ? null : [view.task_no, view.status],
    task === undefined ? null : [task.taskNo, taskStatusNumber(task.status)], `${what}: session task`);
}

/** A payment-API read (session, balance, collectable or task): valid only while active; every success slides the expiry. */
export class UseTokenCommand implements ModelCommand {
  constructor(readonly pick: number, readonly op: 'session' | 'balance' | 'collectable' | 'task') {}
  check(model: Readonly<UseCaseModel>): boolean { return model.tokens.length > 0; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const token = model.tokens[this.pick % model.tokens.length]!;
    const ctx = await authenticate(model, real, token, String(this));
    if (ctx !== null) {
      const before = token.expiresAt;
      if (this.op === 'session') {
        const view = expectOk(await outcome(real.app.cashier.session(ctx)), String(this));
        model.slide(token);
        assert.equal(instant(view.expires_at), shown(token.expiresAt), `${this}: slid expiry`);
        assert.equal(view.address.address, token.address);
        assertTaskView(view.active_task, model.sessionTask(token), String(this));
        const minimums = Object.entries(model.minimums.get(token.userId) ?? {}).map(([k, v]) => [k, v.toString()]);
        assert.deepEqual(view.min_collect_amounts, Object.fromEntries(minimums), `${this}: min_collect_amounts`);
      } else if (this.op === 'balance') {
        const view = expectOk(await outcome(real.app.cashier.balance(ctx)), String(this));
        assert.equal(view.address, token.address);
        assertBalanceItems(view.items, model, token.address, String(this));
        model.slide(token);
      } else if (this.op === 'collectable') {
        const view = expectOk(await outcome(real.app.cashier.collectable(ctx)), String(this));
        assertBalanceItems(view.items, model, token.address, String(this));
        assert.deepEqual(view.items.map((i) => [i.symbol, i.balance_collectable]),
          MODEL_ASSETS.map((symbol) => [symbol, model.collectable(token.address, symbol).toString()]), `${this}: balance_collectable`);
        model.slide(token);
      } else {
        assertTaskView(expectOk(await outcome(real.app.cashier.task(ctx)), String(this)), model.sessionTask(token), String(this));
        model.slide(token);
      }
      assert.ok(token.expiresAt >= before, 'sliding never shortens');
    }
    await assertInvariants(model, real);
  }
  toString(): string { return `useToken(#${this.pick}, ${this.op})`; }
}

/** Missing and malformed bearer values never authenticate. */
export class BogusTokenCommand implements ModelCommand {
  constructor(readonly value: string | null) {}
  check(): boolean { return true; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const result = await outcome(real.app.cashier.authenticateCashier(this.value));
    const missing = this.value === null || this.value === '';
    expectFailure(result, missing ? 'CASHIER-TOKEN-MISSING' : 'CASHIER-TOKEN-INVALID', String(this));
  }
  toString(): string { return `bogusToken(${JSON.stringify(this.value)})`; }
}

/**
 * POST /cashier/collect: the asset first (422), risk control (403), then 409 BIZ-COMMAND-LOCKED while the address has
 * an active collection or this session's latest task is not terminal (docs/decisions.md 7 and 44), then a cached
 * balance a sweep cannot move (dust) or a sweepable one below the user's minimum for the asset (422); a failure
 * leaves the expiry.
 */
export class CashierCollectCommand implements ModelCommand {
  constructor(readonly pick: number, readonly symbol: string) {}
  check(model: Readonly<UseCaseModel>): boolean { return model.tokens.length > 0; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const token = model.tokens[this.pick % model.tokens.length]!;
    const ctx = await authenticate(model, real, token, String(this));
    if (ctx !== null) {
      const result: Outcome<{ task_no: string; command_no: string; status: number }> =
        await outcome(real.app.cashier.collect(ctx, { asset_symbol: this.symbol }));
      if (this.symbol !== 'TRX' && this.symbol !== 'USDT') {
        expectFailure(result, 'BIZ-ASSET-NOT-FOUND', String(this));
      } else if (model.isBlocked(token.userId, token.address)) {
        expectFailure(result, 'RISK-REVIEW-BLOCKED', String(this));
        model.reject(token.userId);
      } else if (model.pendingTaskOn(token.address) !== undefined || model.sessionTask(token)?.status === 'pending') {
        expectFailure(result, 'BIZ-COMMAND-LOCKED', String(this));
      } else if (model.collectable(token.address, this.symbol) === 0n
        || model.collectable(token.address, this.symbol) < (model.minimums.get(token.userId)?.[this.symbol] ?? 0n)) {
        expectFailure(result, 'BIZ-AMOUNT-BELOW-MINIMUM', String(this));
      } else {
        const view = expectOk(result, String(this));
        assert.equal(view.status, 1);
        model.tasks.push({
          userId: token.userId, taskNo: view.task_no, commandNo: view.command_no, address: token.address,
          asset: this.symbol, locked: model.cached(token.address, this.symbol), startedAt: model.now, status: 'pending', commandStatus: 1,
        });
        model.slide(token);
      }
    }
    await assertInvariants(model, real);
  }
  toString(): string { return `cashierCollect(#${this.pick}, ${this.symbol})`; }
}
