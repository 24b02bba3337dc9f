import assert from 'node:assert/strict';
import { finishCollection } from './finish-collection.js';
import {
  assertInvariants, expectFailure, expectOk, expectSameAsMissing, outcome, taskStatusNumber, type ModelSystem,
} from './model-system.js';
import type { UseCaseModel, Caller } from './reference-model.js';
import type { ModelCommand } from './wallet-commands.js';

/** A task number in the right format that no task has. */
const MISSING_TASK_NO = 'T2000010100000000000000';
const MISSING_COMMAND_NO = 'C2000010100000000000000';

/**
 * POST /collections, `parallel` times at once: ownership (422, as missing), sub-address, asset, risk control (403,
 * recorded as a REJECTED command), then the address lock — exactly one of simultaneous requests wins, the rest 409 —
 * and a cached balance a sweep cannot move (422, issue #24 item 5).
 */
export class CreateCollectionCommand implements ModelCommand {
  constructor(readonly caller: Caller, readonly pick: number, readonly symbol: string, readonly parallel: number) {}
  check(model: Readonly<UseCaseModel>): boolean { return model.wallets.length > 0; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const wallet = model.wallets[this.pick % model.wallets.length]!;
    const userId = model.callerFor(wallet.userId, this.caller);
    const body = { address: wallet.address, asset_symbol: this.symbol };
    const results = await Promise.all(Array.from({ length: this.parallel }, () => outcome(real.app.collections.create(userId, body))));
    const expectEach = (code: string): void => results.forEach((r) => expectFailure(r, code, String(this)));
    if (wallet.userId !== userId) {
      expectEach('BIZ-WALLET-ADDRESS-NOT-FOUND');
      const missing = await outcome(real.app.collections.create(userId, { ...body, address: real.missingAddress }));
      expectSameAsMissing(results[0]!, missing, String(this));
    } else if (wallet.type !== 2) {
      expectEach('BIZ-ADDRESS-TYPE-NOT-SUB');
    } else if (this.symbol !== 'TRX' && this.symbol !== 'USDT') {
      expectEach('BIZ-ASSET-NOT-FOUND');
    } else if (model.isBlocked(userId, wallet.address)) {
      expectEach('RISK-REVIEW-BLOCKED');
      results.forEach(() => model.reject(userId));
    } else if (model.pendingTaskOn(wallet.address) !== undefined) {
      expectEach('BIZ-COMMAND-LOCKED');
    } else if (model.collectable(wallet.address, this.symbol) === 0n) {
      // The one holding the short address lock looks at the balance; one that finds the lock held is told 409.
      const codes = results.map((r) => (r.ok ? 'OK' : r.code));
      assert.ok(codes.includes('BIZ-AMOUNT-BELOW-MINIMUM'), `${this}: dust is refused (${codes.join(', ')})`);
      results.forEach((r) => expectFailure(r, r.ok || r.code !== 'BIZ-COMMAND-LOCKED' ? 'BIZ-AMOUNT-BELOW-MINIMUM' : 'BIZ-COMMAND-LOCKED', String(this)));
    } else {
      const wins = results.filter((r) => r.ok);
      assert.equal(wins.length, 1, `${this}: exactly one of ${this.parallel} simultaneous collections starts`);
      results.filter((r) => !r.ok).forEach((r) => expectFailure(r, 'BIZ-COMMAND-LOCKED', String(this)));
      const view = expectOk(wins[0]!, String(this));
      assert.deepEqual([view.status, view.error_code, view.last_error, view.finished_at], [1, null, null, null]);
      model.tasks.push({
        userId, taskNo: view.task_no, commandNo: view.command_no, address: wallet.address, asset: this.symbol,
        locked: model.cached(wallet.address, this.symbol), startedAt: model.now, status: 'pending', commandStatus: 1,
      });
    }
    await assertInvariants(model, real);
  }
  toString(): string { return `createCollection(${this.caller}, #${this.pick}, ${this.symbol}, x${this.parallel})`; }
}

/** The executor ends a pending task (DONE or FAILED); its command turns terminal and the address is free again. */
export class FinishCollectionCommand implements ModelCommand {
  constructor(readonly pick: number, readonly result: 'done' | 'failed') {}
  check(model: Readonly<UseCaseModel>): boolean { return model.tasks.some((t) => t.status === 'pending'); }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const pending = model.tasks.filter((t) => t.status === 'pending');
    const task = pending[this.pick % pending.length]!;
    await finishCollection(real.worker, task.taskNo, this.result);
    task.status = this.result;
    task.commandStatus = this.result === 'done' ? 3 : 4;
    const view = expectOk(await outcome(real.app.collections.get(task.userId, task.taskNo)), String(this));
    assert.equal(view.status, taskStatusNumber(task.status));
    assert.notEqual(view.finished_at, null);
    await assertInvariants(model, real);
  }
  toString(): string { return `finishCollection(#${this.pick}, ${this.result})`; }
}

/** Admin cancel of a collection's command: only while the task is PENDING; the task fails with CANCELLED. */
export class CancelCollectionCommand implements ModelCommand {
  constructor(readonly pick: number) {}
  check(model: Readonly<UseCaseModel>): boolean { return model.tasks.length > 0; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const task = model.tasks[this.pick % model.tasks.length]!;
    const result = await outcome(real.app.admin.cancelCommand(task.commandNo));
    if (task.status !== 'pending') {
      expectFailure(result, 'BIZ-COMMAND-NOT-CANCELLABLE', String(this));
    } else {
      assert.equal(expectOk(result, String(this)).status, 6);
      task.status = 'failed';
      task.commandStatus = 6;
      const view = expectOk(await outcome(real.app.collections.get(task.userId, task.taskNo)), String(this));
      assert.deepEqual([view.status, view.error_code], [12, 'BIZ-COMMAND-CANCELLED']);
    }
    await assertInvariants(model, real);
  }
  toString(): string { return `cancelCollection(#${this.pick})`; }
}

/**
 * GET /collections/{taskNo} and GET /commands/{commandNo} of its command: the owner sees the model's statuses;
 * anyone else gets what a missing task or command gets.
 */
export class GetCollectionCommand implements ModelCommand {
  constructor(readonly caller: Caller, readonly pick: number) {}
  check(model: Readonly<UseCaseModel>): boolean { return model.tasks.length > 0; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const task = model.tasks[this.pick % model.tasks.length]!;
    const userId = model.callerFor(task.userId, this.caller);
    const result = await outcome(real.app.collections.get(userId, task.taskNo));
    const command = await outcome(real.app.commands.get(userId, task.commandNo));
    if (task.userId === userId) {
      const view = expectOk(result, String(this));
      assert.deepEqual([view.task_no, view.command_no, view.status], [task.taskNo, task.commandNo, taskStatusNumber(task.status)]);
      const commandView = expectOk(command, String(this));
      assert.deepEqual([commandView.type, commandView.status], [3, task.commandStatus], `${this}: command`);
    } else {
      expectFailure(result, 'BIZ-COLLECTION-TASK-NOT-FOUND', String(this));
      expectSameAsMissing(result, await outcome(real.app.collections.get(userId, MISSING_TASK_NO)), String(this));
      expectFailure(command, 'BIZ-COMMAND-NOT-FOUND', String(this));
      expectSameAsMissing(command, await outcome(real.app.commands.get(userId, MISSING_COMMAND_NO)), String(this));
    }
  }
  toString(): string { return `getCollection(${this.caller}, #${this.pick})`; }
}

/** Admin deny-list: deny or allow a user or an address (risk control for collections). */
export class RiskCommand implements ModelCommand {
  constructor(readonly kind: 'user' | 'address', readonly pick: number, readonly deny: boolean) {}
  check(model: Readonly<UseCaseModel>): boolean { return this.kind === 'user' || model.wallets.length > 0; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const userId = model.users[this.pick % model.users.length]!.userId;
    const address = model.wallets.length === 0 ? '' : model.wallets[this.pick % model.wallets.length]!.address;
    const value = this.kind === 'user' ? String(userId) : address;
    const listed = this.kind === 'user' ? model.deniedUsers.has(userId) : model.deniedAddresses.has(address);
    if (this.deny) {
      expectOk(await outcome(real.app.admin.denyRisk({ kind: this.kind, value, reason: 'model' })), String(this));
    } else {
      const { removed } = expectOk(await outcome(real.app.admin.allowRisk({ kind: this.kind, value })), String(this));
      assert.equal(removed, listed, `${this}: whether the entry existed`);
    }
    if (this.kind === 'user') {
      if (this.deny) model.deniedUsers.add(userId); else model.deniedUsers.delete(userId);
    } else if (this.deny) {
      model.deniedAddresses.add(address);
    } else {
      model.deniedAddresses.delete(address);
    }
    await assertInvariants(model, real);
  }
  toString(): string { return `${this.deny ? 'deny' : 'allow'}(${this.kind} #${this.pick})`; }
}

/**
 * The real collection executor runs every due task. Nothing on chain was ever funded (snapshots are only cache), so
 * each pending task fails at its start with BIZ-NOTHING-TO-COLLECT, its command FAILED, and the address is free.
 */
export class RunExecutorCommand implements ModelCommand {
  check(): boolean { return true; }
  async run(model: UseCaseModel, real: ModelSystem): Promise<void> {
    const pending = model.tasks.filter((t) => t.status === 'pending');
    await real.executor.runDue();
    for (const task of pending) {
      task.status = 'failed';
      task.commandStatus = 4;
      const view = expectOk(await outcome(real.app.collections.get(task.userId, task.taskNo)), String(this));
      assert.deepEqual([view.status, view.error_code], [12, 'BIZ-NOTHING-TO-COLLECT'], `${this}: ${task.taskNo}`);
    }
    await assertInvariants(model, real);
  }
  toString(): string { return 'runExecutor()'; }
}
