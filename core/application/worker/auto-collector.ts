import { ConcurrencyConflict, DomainError } from '../../domain/errors.js';
import { isTerminalCollectionStatus } from '../../domain/collection-machine.js';
import { forwardRetryable, forwardRetryDelay } from '../../domain/forward-wait.js';
import type { CollectionTaskRepository } from '../../ports/collection-task-repository.port.js';
import type { Asset } from '../../domain/model/asset.js';
import type { NetworkCode } from '../../domain/model/common.js';
import type { Deposit } from '../../domain/model/deposit.js';
import { ADDRESS_TYPE, type WalletAddress } from '../../domain/model/wallet.js';
import type { DepositRepository } from '../../ports/deposit-repository.port.js';
import type { DeveloperConfigRepository } from '../../ports/developer-config-repository.port.js';
import type { AssetRegistry } from '../../domain/assets.js';
import { cachedSweepable, startCollection, type CollectionStarterDeps } from '../collection-starter.js';

/**
 * What the cheapest sweep plan of `asset` from `wallet` to its main address would cost now, in SUN; null when no plan
 * is possible now (which waits like a plan above the cap). `amount` is what the sweep would move.
 */
export type SweepFeeQuote = (wallet: WalletAddress, asset: Asset, amount: bigint) => Promise<bigint | null>;

/** The ports the automatic collector touches: those of starting a collection, and where triggers and rules live. */
export type AutoCollectorDeps = CollectionStarterDeps & {
  readonly deposits: DepositRepository;
  readonly developerConfigs: DeveloperConfigRepository;
  readonly assets: AssetRegistry;
  /** The fee cap's measure; absent, max_fee_sun is not checked (a host that cannot plan off a task). */
  readonly sweepFee?: SweepFeeQuote;
  /** Where a started trigger's task is read (issue #34: one that failed for want of energy makes the trigger due again). */
  readonly tasks: Pick<CollectionTaskRepository, 'get'>;
};

/**
 * How one due trigger was judged. `started`: its collection was made. `waiting`: the cheapest plan costs more than
 * max_fee_sun, or none is possible (no energy source can cover it now: issue #34); it stays due and is judged again
 * after its rest. `busy`: the address lock is taken
 * but no command holds the address (another worker is judging it); it stays due. `raced`: another worker judged it
 * first. The rest mark it skipped: `below-minimum` (the sweepable cached balance is under min_amount), `locked` (a
 * command holds the address; a later deposit takes what is left), `refused` (risk), `no-rule` (the rule, the wallet or
 * the asset is gone). A started trigger is followed until its task ends (issue #34): `forwarding` while it runs;
 * `followed` once it ended DONE or failed for good (the trigger stays started); `waiting` also when it ended FAILED for
 * want of energy with nothing sent (forwardRetryable): the trigger is due again and judged after its rest.
 */
export type AutoCollectOutcome = 'started' | 'waiting' | 'forwarding' | 'followed' | 'busy' | 'raced' | 'below-minimum' | 'locked' | 'refused' | 'no-rule';

const BELOW_MINIMUM = Symbol('below-minimum');

/** The longest rest between two quotes of a waiting trigger, as for a paid request's forward (DEFAULT_FORWARD_RETRY). */
const MAX_REST_MS = 10 * 60_000;

/**
 * Turns due automatic collection triggers (Deposit.autoCollect, written with the confirmation) into collections, as
 * POST /collections makes them (startCollection: same command, task, lock and checks; the dust rule counts toward the
 * threshold, never the raw balance). Exactly one collection per trigger, across crashes and workers: the task is
 * committed in the same change set as the deposit's `due` → `started` versioned replace, so a second worker (or a redo
 * after a crash) either finds it no longer due or loses the version race and writes nothing; a crash before that commit
 * leaves it due for the next pass. A skip is the same versioned replace, to `skipped`.
 */
export class AutoCollector {
  /**
   * Deposit id -> when this process quotes it again after a `waiting` (each quote costs node calls), and how many waits
   * in a row it has had: the rest doubles from `retryWaitingMs` up to `MAX_REST_MS`, the forwards' backoff.
   */
  private readonly waitingUntil = new Map<string, { readonly until: number; readonly waits: number }>();

  constructor(
    private readonly deps: AutoCollectorDeps,
    private readonly network: NetworkCode,
    /** A trigger waits: the plan's fee over the cap, or no plan (feeSun null) and why, when known (`reason`). */
    private readonly onWait: (deposit: Deposit, feeSun: bigint | null, capSun: bigint, reason: string | null) => void = () => {},
    /** How long a trigger rests after its first wait before this process quotes it again (default 1 min, then doubling). */
    private readonly retryWaitingMs = 60_000,
  ) {}

  /**
   * Judges up to `limit` due triggers, earliest confirmed first, except those this process saw waiting less than
   * `retryWaitingMs` ago; an infrastructure failure leaves the rest due.
   */
  async pass(limit = 50): Promise<AutoCollectOutcome[]> {
    const outcomes: AutoCollectOutcome[] = [];
    const now = this.deps.clock.now();
    const due = await this.deps.deposits.listAutoCollectDue(this.network, limit);
    // Forget rests of triggers no longer due (started or skipped elsewhere), so the map stays as small as the waits.
    const dueIds = new Set(due.map((d) => d.depositId));
    for (const id of this.waitingUntil.keys()) if (!dueIds.has(id)) this.waitingUntil.delete(id);
    for (const deposit of due) {
      const rest = this.waitingUntil.get(deposit.depositId);
      if ((rest?.until ?? 0) > now) continue;
      const outcome = await this.judge(deposit);
      if (outcome === 'waiting') {
        const waits = (rest?.waits ?? 0) + 1;
        const delay = forwardRetryDelay({ baseMs: this.retryWaitingMs, maxMs: Math.max(this.retryWaitingMs, MAX_REST_MS) }, waits);
        this.waitingUntil.set(deposit.depositId, { until: now + delay, waits });
      }
      // A started (then followed) trigger stays listed: it is no longer pending.
      else this.waitingUntil.delete(deposit.depositId);
      outcomes.push(outcome);
    }
    return outcomes;
  }

  /** Judges one due trigger (see AutoCollectOutcome). */
  async judge(deposit: Deposit): Promise<AutoCollectOutcome> {
    if (deposit.autoCollectTask !== undefined) return this.follow(deposit, deposit.autoCollectTask);
    const rule = (await this.deps.developerConfigs.get(deposit.userId))?.autoCollect?.[deposit.assetSymbol];
    const wallet = await this.deps.wallets.findByAddress(deposit.address);
    const asset = this.deps.assets.find(deposit.networkCode, deposit.assetSymbol);
    if (rule === undefined || asset === null || wallet === null || wallet.userId !== deposit.userId
      || wallet.addressType !== ADDRESS_TYPE.SUB) {
      return this.skip(deposit, 'no-rule');
    }
    const enough = (available: bigint): boolean => {
      const sweepable = cachedSweepable(asset, available);
      return sweepable > 0n && sweepable >= rule.minAmount;
    };
    const cached = (await this.deps.balances.get(wallet.address))?.items.find((i) => i.symbol === asset.symbol)?.available ?? 0n;
    // Below the threshold, the fee is not worth asking the chain for; the lock re-checks it below.
    if (!enough(cached)) return this.skip(deposit, 'below-minimum');
    if (this.deps.sweepFee !== undefined) {
      const fee = await this.deps.sweepFee(wallet, asset, cachedSweepable(asset, cached));
      if (fee === null || fee > rule.maxFeeSun) {
        this.onWait(deposit, fee, rule.maxFeeSun, fee === null ? await this.whyNoPlan(wallet, asset, cached) : null);
        return 'waiting';
      }
    }
    // Followed until its task ends (issue #34): written with the task, in the same commit.
    const started = (taskNo: string): Deposit => ({ ...deposit, autoCollect: 'started', autoCollectTask: taskNo, version: deposit.version + 1 });
    try {
      // The fee quote above just planned the sweep: the energy check need not plan it a second time.
      const deps = this.deps.sweepFee === undefined ? this.deps : { ...this.deps, sweepCheck: undefined };
      await startCollection(deps, wallet, asset, async (available) => {
        if (!enough(available)) throw BELOW_MINIMUM;
      }, (task) => ({ deposits: [started(task.taskNo)] }));
      return 'started';
    } catch (error) {
      if (error === BELOW_MINIMUM) return this.skip(deposit, 'below-minimum');
      if (error instanceof ConcurrencyConflict) return 'raced';
      // No energy source now (issue #34): the trigger stays due and is judged again after its rest, like one above the cap.
      if (error instanceof DomainError && error.code === 'BIZ-ENERGY-UNAVAILABLE') {
        this.onWait(deposit, null, rule.maxFeeSun, error.message);
        return 'waiting';
      }
      if (error instanceof DomainError && error.code === 'BIZ-COMMAND-LOCKED') {
        // Only a command holds the address for good; the lock alone may be another worker judging this very trigger,
        // whose commit decides it (skipping now would win the version race and leave it uncollected).
        if ((await this.deps.commands.findActiveByAddress(deposit.address)) === null) return 'busy';
        return this.skip(deposit, 'locked');
      }
      if (error instanceof DomainError) return this.skip(deposit, 'refused');
      throw error;
    }
  }

  /** Why no sweep plan is possible now: the energy check's refusal (null when none is wired or it finds none). */
  private async whyNoPlan(wallet: WalletAddress, asset: Asset, cached: bigint): Promise<string | null> {
    const main = await this.deps.wallets.findMain(wallet.userId, wallet.networkCode);
    if (main === null || this.deps.sweepCheck === undefined) return null;
    return (await this.deps.sweepCheck(wallet, main.address, asset, cachedSweepable(asset, cached)))?.message ?? null;
  }

  /**
   * A started trigger's task (issue #34): still running, nothing to do (never a second collection meanwhile); FAILED
   * for want of energy with nothing sent, the trigger due again (resting like any wait, the task's reason reported);
   * any other end, or the task gone, the trigger stays started and is followed no more.
   */
  private async follow(deposit: Deposit, taskNo: string): Promise<AutoCollectOutcome> {
    const task = await this.deps.tasks.get(taskNo);
    if (task !== null && !isTerminalCollectionStatus(task.status)) return 'forwarding';
    const { autoCollectTask: _ended, ...rest } = deposit;
    const retry = task !== null && forwardRetryable(task);
    try {
      await this.deps.uow.commit({ deposits: [{ ...rest, autoCollect: retry ? 'due' : 'started', version: deposit.version + 1 }] });
    } catch (error) {
      if (error instanceof ConcurrencyConflict) return 'raced';
      throw error;
    }
    if (!retry) return 'followed';
    const rule = (await this.deps.developerConfigs.get(deposit.userId))?.autoCollect?.[deposit.assetSymbol];
    this.onWait(deposit, null, rule?.maxFeeSun ?? 0n, task.lastError);
    return 'waiting';
  }

  /** Triggers this process rests after a wait (above the fee cap, or no energy source): pending forwards. */
  waiting(): number {
    return this.waitingUntil.size;
  }

  private async skip(deposit: Deposit, outcome: AutoCollectOutcome): Promise<AutoCollectOutcome> {
    try {
      await this.deps.uow.commit({ deposits: [{ ...deposit, autoCollect: 'skipped', version: deposit.version + 1 }] });
      return outcome;
    } catch (error) {
      if (error instanceof ConcurrencyConflict) return 'raced';
      throw error;
    }
  }
}
