import assert from 'node:assert/strict';
import { DomainError } from '../../../domain/errors.js';
import type { BalanceRepository } from '../../../ports/balance-repository.port.js';
import type { Application } from '../../application.js';
import type { BalanceItemView } from '../../views.js';
import type { FinishDeps } from './finish-collection.js';
import { MODEL_ASSETS, type UseCaseModel } from './reference-model.js';

/** The clock the test drives (a ManualClock). */
export interface ModelClock {
  now(): number;
  advance(ms: number): void;
}

/** The real side of the model-based test: the use cases on memory adapters, plus what a worker would write with. */
export interface ModelSystem {
  readonly app: Application;
  readonly clock: ModelClock;
  /** Ports to finish a task the way the collection executor will, and to read the address lock. */
  readonly worker: FinishDeps;
  /** The real collection executor, on a chain where every managed address is empty. */
  readonly executor: { runDue(): Promise<unknown> };
  /** Where the balance scanner stores snapshots (refresh_source 1). */
  readonly balances: BalanceRepository;
  /** A well-formed address that exists nowhere: another user's address must behave exactly like it. */
  readonly missingAddress: string;
}

/** A use case's outcome: its value, or the DomainError's code and message. */
export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** Runs the call and captures a DomainError as data; anything else (a bug, an infrastructure error) propagates. */
export async function outcome<T>(work: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await work };
  } catch (error) {
    if (error instanceof DomainError) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}

/** The value of a successful outcome; fails the run with the error code otherwise. */
export function expectOk<T>(result: Outcome<T>, what: string): T {
  if (!result.ok) assert.fail(`${what}: expected success, got ${result.code}`);
  return result.value;
}

/** Asserts a failure with exactly this code (its HTTP status is the API host's, tested there). */
export function expectFailure(result: Outcome<unknown>, code: string, what: string): void {
  assert.equal(result.ok, false, `${what}: expected ${code}, got success`);
  if (result.ok) return;
  assert.equal(result.code, code, `${what}: error code`);
}

/** Spec §2 rule 3: another user's resource fails exactly as a missing one (same code and message). */
export function expectSameAsMissing(foreign: Outcome<unknown>, missing: Outcome<unknown>, what: string): void {
  assert.equal(missing.ok, false, `${what}: the missing resource was found`);
  assert.deepEqual(foreign, missing, `${what}: another user's resource must behave as nonexistent`);
}

/** Timestamps compared as instants, parsed independently of the formatter under test. */
export function instant(text: string | null): number | null {
  return text === null ? null : Date.parse(text);
}

/** An instant as the views show it: whole seconds (time.ts renders both timestamp formats without milliseconds). */
export function shown(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/** Balance items of both assets: available is the cached balance less what the pending task holds (decisions 5). */
export function assertBalanceItems(items: readonly BalanceItemView[], model: UseCaseModel, address: string, what: string): void {
  const expected = MODEL_ASSETS.map((symbol) => {
    const [available, locked] = model.balanceLine(address, symbol);
    return [symbol, available.toString(), locked.toString()];
  });
  assert.deepEqual(items.map((i) => [i.symbol, i.balance_available, i.balance_locked]), expected, `${what}: balances of ${address}`);
}

/** The spec §2 status number of a model task. */
export function taskStatusNumber(status: 'pending' | 'done' | 'failed'): number {
  return status === 'pending' ? 1 : status === 'done' ? 11 : 12;
}

/**
 * Checks the whole observable state against the model after every command: each user's addresses (one main per
 * network), cashier tokens (status, expiry, one live token per address), and the address lock (the active command of
 * every address is the model's pending collection, and each user's PENDING collection commands match).
 */
export async function assertInvariants(model: UseCaseModel, real: ModelSystem): Promise<void> {
  for (const { userId } of model.users) {
    const wallets = expectOk(await outcome(real.app.wallets.list(userId, { per_page: 100 })), 'list wallets').items;
    const mains = wallets.filter((w) => w.address_type === 1);
    assert.ok(mains.length <= 1, `user ${userId} has ${mains.length} main addresses on TRON`);
    assert.deepEqual(
      wallets.map((w) => `${w.address_type}:${w.address}`).sort(),
      model.walletsOf(userId).map((w) => `${w.type}:${w.address}`).sort(),
      `addresses of user ${userId}`,
    );

    const tokens = expectOk(await outcome(real.app.cashierTokens.list(userId, { per_page: 100 })), 'list tokens').data;
    const expected = model.tokens.filter((t) => t.userId === userId);
    assert.equal(tokens.length, expected.length, `token count of user ${userId}`);
    for (const token of tokens) {
      const mine = expected.find((t) => t.tokenNo === token.token_no);
      assert.ok(mine !== undefined, `unexpected token ${token.token_no}`);
      assert.equal(token.status, mine.status, `status of token ${token.token_no}`);
      assert.equal(instant(token.expires_at), shown(mine.expiresAt), `expires_at of token ${token.token_no}`);
    }
    // Views show whole seconds: the exact expiry is the model's, already checked against the view to the second.
    const exactExpiry = (tokenNo: string): number => expected.find((t) => t.tokenNo === tokenNo)?.expiresAt ?? 0;
    const live = tokens.filter((t) => t.status === 'active' && exactExpiry(t.token_no) > model.now).map((t) => t.address);
    assert.equal(new Set(live).size, live.length, `two live cashier tokens on one address of user ${userId}`);

    const pending = expectOk(await outcome(real.app.commands.list(userId, { type: 3, status: 1, per_page: 100 })), 'list commands');
    assert.deepEqual(
      pending.items.map((c) => c.command_no).sort(),
      model.tasks.filter((t) => t.userId === userId && t.status === 'pending').map((t) => t.commandNo).sort(),
      `PENDING collection commands of user ${userId}`,
    );
    const rejected = expectOk(await outcome(real.app.commands.list(userId, { type: 3, status: 5, per_page: 1 })), 'list rejected');
    assert.equal(rejected.pagination.total, model.rejectedCollections.get(userId) ?? 0, `REJECTED collections of user ${userId}`);
  }
  for (const wallet of model.wallets) {
    const active = await real.worker.commands.findActiveByAddress(wallet.address);
    assert.equal(active?.commandNo, model.pendingTaskOn(wallet.address)?.commandNo, `address lock of ${wallet.address}`);
  }
}
