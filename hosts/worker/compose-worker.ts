/**
 * The worker on a composed container (hosts/composition): the executors on the configured store and chain, the
 * webhook dispatcher on the outbox, and the balance scanner on the configured node. Used by `npm run worker` and
 * available to `npm start` (hosts/dev) for the embedded mode.
 */
import { resolveDeps } from '../../core/application/deps.js';
import { AutoCollector } from '../../core/application/worker/auto-collector.js';
import { CollectionBookingCatchUp, CollectionLedgerBooker } from '../../core/application/collection-ledger-booker.js';
import { WithdrawalLedgerBooker } from '../../core/application/withdrawal-ledger-booker.js';
import { StakingLedgerBooker } from '../../core/application/staking-ledger-booker.js';
import { LedgerReconciliationJob, type ReconciliationLine } from '../../core/application/ledger-reconciliation.js';
import type { Logger } from 'pino';
import { PaymentWatcher } from '../../core/application/worker/payment-watcher.js';
import { DEFAULT_FORWARD_RETRY, type ForwardRetrySchedule } from '../../core/domain/forward-wait.js';
import { collectionStepSettings } from '../../core/application/worker/collection-executor.js';
import { plannedSweepFee } from '../../core/application/worker/sweep-fee-quote.js';
import { BalanceScanner } from '../../core/application/worker/balance-scanner.js';
import { WebhookDispatcher } from '../../core/application/worker/webhook-dispatcher.js';
import type { Composition } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';
import { scannerOptionsFromEnv } from './jobs/balance-scan.js';
import { startWorker, type RunningWorker, type WorkerObserver, type WorkerOptions } from './index.js';
import { rateLimitedErrors } from './rate-limited-log.js';
import type { CustodyMetrics } from '../composition/metrics.js';
import type { CollectionTaskRepository } from '../../core/ports/collection-task-repository.port.js';
import { commandStatusName } from '../../core/domain/command-machine.js';
import type { CommandStatus } from '../../core/domain/model/command.js';

/** Environment the worker reads beyond the composition's configuration. */
export interface ComposedWorkerEnv {
  /** `head` (default) or `solidified`. */
  readonly BALANCE_SCAN_LEVEL?: string | undefined;
  /** Where a new deployment's scanner starts: a block number, or `head` (default: the solidified block). */
  readonly BALANCE_SCAN_START?: string | undefined;
  /**
   * Seconds before a paid request's forward refused for want of energy is tried again (default 15), doubling per
   * refusal up to 10 minutes (issue #34).
   */
  readonly FORWARD_RETRY_S?: string | undefined;
}

/** The retry schedule of waiting forwards: FORWARD_RETRY_S (a positive number of seconds) or the default. */
function forwardRetryFromEnv(value: string | undefined): ForwardRetrySchedule {
  const text = value?.trim() ?? '';
  if (text === '') return DEFAULT_FORWARD_RETRY;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 600) throw new RangeError(`FORWARD_RETRY_S must be a positive number of seconds, at most 600, got "${text}"`);
  return { baseMs: Math.round(seconds * 1_000), maxMs: DEFAULT_FORWARD_RETRY.maxMs };
}

/**
 * Starts the worker from the container. Collection steps wait CHAIN_CONFIRMATIONS blocks and may burn TRX for energy
 * when ENERGY_BURN is on; `options` may override
 * anything (tests pass `manual: true`).
 */
export function startComposedWorker(composition: Composition, env: ComposedWorkerEnv = {}, options: WorkerOptions = {}): RunningWorker {
  const c = composition.container;
  const core = c.get(TOKENS.CoreDeps);
  const stores = c.get(TOKENS.Stores);
  const energy = c.get(TOKENS.EnergyProviders);
  const config = c.get(TOKENS.Config);
  const webhooks = new WebhookDispatcher({
    clock: core.clock, ids: core.ids, outbox: stores.outbox, deliveries: core.deliveries,
    developerConfigs: core.developerConfigs, cipher: core.cipher, transport: core.transport,
  });
  // The receipts of the blocks the scanner reads: the workflows of this process follow their transactions from them
  // and ask a node only when the scanner is behind or not running here (issue #27).
  const receipts = c.get(TOKENS.BlockReceipts);
  const balanceScanner = new BalanceScanner({
    clock: core.clock, blocks: c.get(TOKENS.BlockSource), cursors: stores.scanCursors, wallets: core.wallets,
    balances: core.balances, deposits: core.deposits, uow: core.uow, developerConfigs: core.developerConfigs, ids: core.ids,
    assets: core.assets, receipts, ledger: stores.ledger,
    // Its errors (a node on another chain, a lost lease, a reorg below a final block); the scan job logs gaps and reorgs.
    log: { warn: () => undefined, error: (fields, message) => c.get(TOKENS.Logger).error(fields, message) },
  }, scannerOptionsFromEnv({ BALANCE_SCAN_LEVEL: env.BALANCE_SCAN_LEVEL, BALANCE_SCAN_START: env.BALANCE_SCAN_START }));
  const metrics = c.get(TOKENS.Metrics);
  metrics.watchScannerLag(() => balanceScanner.lag());
  metrics.watchScannerChain(() => balanceScanner.status());
  metrics.watchTasksByStatus(() => core.tasks.countByStatus());
  const log = c.get(TOKENS.Logger);
  // A trigger whose cheapest plan costs more than its max_fee_sun waits: logged here, counted by the tick's report.
  const collection = {
    confirmations: config.chainConfirmations, burnEnabled: config.energyBurn, stuckAfterMs: config.workflowStuckAfterMs,
    concurrency: config.workflowConcurrency, leaseMs: config.workflowLeaseMs,
    ...(config.energyBurnMaxSun === null ? {} : { maxBurnSun: config.energyBurnMaxSun }),
    ...options.collection,
  };
  const energySources = { self: energy.self, rental: energy.rental ?? undefined };
  // max_fee_sun is judged on the plan the collection itself would choose, under the same burn settings.
  const sweepFee = plannedSweepFee(
    { chain: core.chain, clock: core.clock, energy: energySources, wallets: core.wallets, cipher: core.cipher },
    collectionStepSettings(collection),
  );
  const autoCollector = new AutoCollector({ ...resolveDeps(core), sweepFee }, 'TRON', (deposit, feeSun, capSun, reason) => log.info({
    deposit_id: deposit.depositId, address: deposit.address, asset_symbol: deposit.assetSymbol,
    fee_sun: feeSun === null ? null : feeSun.toString(), max_fee_sun: capSun.toString(),
  }, feeSun === null
    ? `automatic collection waits: no sweep plan is possible now${reason === null ? '' : ` (${reason})`}`
    : 'automatic collection waits: the cheapest sweep plan costs more than max_fee_sun'));
  metrics.forwardsPending('auto_collect', () => autoCollector.waiting());
  const forwardRetry = forwardRetryFromEnv(env.FORWARD_RETRY_S);
  // What each booking it writes cost in chain fees goes to the daily summary (read from the booked entries).
  const sweepBooker = new CollectionLedgerBooker({
    tasks: core.tasks, chain: core.chain, ledger: stores.ledger, ids: core.ids, onBooked: (entries) => metrics.sweepBooked(entries),
  });
  const withdrawalBooker = new WithdrawalLedgerBooker({ commands: core.commands, wallets: core.wallets, chain: core.chain, ledger: stores.ledger, ids: core.ids });
  // Staking commands are booked the same way (issue #36): the withdrawals' observer, its own booker and catch-up cursor.
  const stakingBooker = new StakingLedgerBooker({ commands: core.commands, wallets: core.wallets, chain: core.chain, ledger: stores.ledger, ids: core.ids });
  return startWorker({
    ...core,
    // The workflows read the chain once per block, shared, and follow their transactions from the scanner's blocks.
    chain: c.get(TOKENS.WorkflowChain),
    energy: energySources,
    webhooks,
    balanceScanner,
    autoCollector,
    paymentWatcher: new PaymentWatcher(resolveDeps(core), forwardRetry),
    evidence: receipts,
    // The runners report stuck workflows and retried stages to the metrics (their log lines stay as they are).
    hooks: {
      onStuck: (workflow, _key, step) => metrics.workflowStuck(workflow, step),
      onRetry: (workflow, _key, step) => metrics.workflowRetry(workflow, step),
      onFollow: (workflow, source) => metrics.followed(workflow, source),
    },
  }, {
    // A pass failing every tick (a node or the store down) writes one line a minute, not a stack trace per tick.
    log: rateLimitedErrors(c.get(TOKENS.Logger)),
    // The scanner reads each block a moment after its slot: the workflows follow their transactions from it.
    scanSlotMs: config.chainBlockMs,
    observer: reconcilingLedger(bookingFinishedWithdrawals(bookingFinishedWithdrawals(
      bookingFinishedSweeps(workerMetrics(metrics, core.tasks), sweepBooker, log, new CollectionBookingCatchUp(sweepBooker, core.clock, SWEEP_CATCH_UP)),
      withdrawalBooker, log, new CollectionBookingCatchUp(withdrawalBooker, core.clock, SWEEP_CATCH_UP),
    ), stakingBooker, log, new CollectionBookingCatchUp(stakingBooker, core.clock, SWEEP_CATCH_UP)), new LedgerReconciliationJob({ ...resolveDeps(core), ledger: stores.ledger, operatorStatus: stores.operatorStatus }, LEDGER_RECONCILIATION), metrics, log),
    ...options,
    collection,
    commands: {
      stuckAfterMs: config.workflowStuckAfterMs, leaseMs: config.workflowLeaseMs,
      completeOn: config.withdrawalConfirmations === 0 ? 'broadcast' : config.withdrawalConfirmations,
      ...options.commands,
    },
  });
}

/**
 * The books against the chain (issue #36 item 2): a pass every hour, the first 2 minutes after the start (the
 * catch-up passes book what a restart left first). A discrepancy is reported when two passes in a row see it. A pass
 * reads two balances per custodial address from the node (TRX, and USDT through a dry run), so its period is what
 * keeps it inside a provider's daily quota: 10,000 addresses are 480,000 reads a day at this period.
 */
export const LEDGER_RECONCILIATION = { everyMs: 60 * 60_000, firstAfterMs: 2 * 60_000 } as const;

/**
 * The observer that also runs the reconciliation job when it is due (after the tick's bookings): its standing and
 * newly reported discrepancies go to the metrics (custody_ledger_discrepancies, the daily summary) and each reported
 * one to a warning line; the job writes the opt-in `ledger.discrepancy` events. A failed pass is logged and retried at
 * the next due time; nothing is ever corrected.
 */
export function reconcilingLedger(
  observer: WorkerObserver, job: Pick<LedgerReconciliationJob, 'maybeRun'>, metrics: Pick<CustodyMetrics, 'ledgerReconciled'>, log: Pick<Logger, 'warn'>,
): WorkerObserver {
  const kept = (l: ReconciliationLine) => ({
    networkCode: l.networkCode, address: l.address, assetSymbol: l.assetSymbol, unexplained: l.judgement.unexplained, stakeUnexplained: l.judgement.stakeUnexplained,
  });
  return {
    ...observer,
    async tick(report) {
      await observer.tick?.(report);
      const pass = await job.maybeRun().catch((err: unknown) => {
        log.warn({ err }, 'ledger reconciliation pass failed');
        return null;
      });
      if (pass === null) return;
      metrics.ledgerReconciled(pass.standing.map(kept), pass.reported.map(kept));
      for (const l of pass.reported) {
        log.warn({
          user_id: l.userId, network_code: l.networkCode, address: l.address, asset_symbol: l.assetSymbol, ledger_balance: l.ledger.toString(),
          chain_balance: l.chain.toString(), unexplained: l.judgement.unexplained.toString(),
          ...(l.stake === null ? {} : {
            staked_unexplained: l.judgement.stakeUnexplained.staked.toString(), unstaking_unexplained: l.judgement.stakeUnexplained.unstaking.toString(),
          }),
        }, 'ledger discrepancy: the chain differs from the books (never corrected; see GET /api/ledger/reconciliation)');
      }
    },
  };
}

/** The sweeps' catch-up booking (CollectionBookingCatchUp): a day back from the start, every minute, 200 tasks a pass. */
const SWEEP_CATCH_UP = { lookbackMs: 24 * 3_600_000, everyMs: 60_000, limit: 200 } as const;

/**
 * The observer that also books each collection this process finished (issue #36): after the DONE unit of work, from
 * the chain's receipts (CollectionLedgerBooker; idempotent by the task, so a second worker or a redo books nothing).
 * A booking this pass cannot make (receipts not yet readable, a node or store failure, a crash before it) is logged and
 * left to the catch-up pass, which books every DONE task not yet booked.
 */
export function bookingFinishedSweeps(
  observer: WorkerObserver, booker: Pick<CollectionLedgerBooker, 'book'>, log: Pick<Logger, 'warn'>, catchUp?: Pick<CollectionBookingCatchUp, 'maybeRun'>,
): WorkerObserver {
  return {
    ...observer,
    async tick(report) {
      await observer.tick?.(report);
      // What a crash between a DONE write and its booking left, or what waited for its receipts.
      await catchUp?.maybeRun().catch((err: unknown) => log.warn({ err }, 'ledger catch-up pass failed'));
      // A DONE or FAILED collection, and a FAILED one's reclaim once it ends (its booking waits for it).
      for (const o of [...report.collections, ...report.reclaims]) {
        if (o.outcome !== 'finished') continue;
        const outcome = await booker.book(o.key).catch((err: unknown) => err);
        if (outcome === 'receipts-pending' || outcome instanceof Error) log.warn({ task_no: o.key, err: outcome }, 'collection not booked in the ledger (yet)');
      }
    },
  };
}

/**
 * The observer that also books each withdrawal this process finished (issue #36), as bookingFinishedSweeps books the
 * sweeps: after the SUCCESS or FAILED unit of work, from the chain's receipts (WithdrawalLedgerBooker; idempotent by
 * the command). What it cannot book now is logged and left to the catch-up pass (the sweeps' schedule, its own cursor).
 * The staking commands go through it too, with their own booker (StakingLedgerBooker) and catch-up.
 */
export function bookingFinishedWithdrawals(
  observer: WorkerObserver, booker: Pick<WithdrawalLedgerBooker | StakingLedgerBooker, 'book'>, log: Pick<Logger, 'warn'>, catchUp?: Pick<CollectionBookingCatchUp, 'maybeRun'>,
): WorkerObserver {
  return {
    ...observer,
    async tick(report) {
      await observer.tick?.(report);
      await catchUp?.maybeRun().catch((err: unknown) => log.warn({ err }, 'ledger catch-up pass over the withdrawals failed'));
      for (const o of report.commands) {
        if (o.outcome !== 'finished') continue;
        const outcome = await booker.book(o.key).catch((err: unknown) => err);
        if (outcome === 'receipts-pending' || outcome instanceof Error) log.warn({ command_no: o.key, err: outcome }, 'command not booked in the ledger');
      }
    },
  };
}

/** The worker's outcomes as metrics: stages, finished tasks with their step durations and cost, webhook attempts. */
export function workerMetrics(metrics: CustodyMetrics, tasks: CollectionTaskRepository): WorkerObserver {
  return {
    async tick(report) {
      metrics.ticked(Date.now());
      for (const o of report.collections) {
        metrics.stage('collection', o.outcome);
        // A finished task is read once more for its steps and cost; a failed read only loses a sample.
        if (o.outcome === 'finished') {
          const task = await tasks.get(o.key).catch(() => null);
          if (task !== null) metrics.collectionFinished(task);
        }
      }
      for (const o of report.reclaims) metrics.stage('reclaim', o.outcome);
      for (const outcome of report.autoCollect ?? []) metrics.autoCollect(outcome);
      // Most passes judge every open request unchanged: only what happened is counted.
      for (const outcome of report.payments ?? []) if (outcome !== 'unchanged' && outcome !== 'waiting') metrics.paymentWatched(outcome);
      if (report.payments !== undefined) metrics.forwardsPending('payment', report.payments.filter((o) => o === 'waiting').length);
      for (const o of report.commands) {
        metrics.stage('command', o.outcome);
        if (o.outcome === 'finished' && typeof o.status === 'number') metrics.taskFinished('command', commandStatusName(o.status as CommandStatus));
      }
    },
    passFailed: (workflow) => metrics.passFailed(workflow),
    webhookAttempts(outcomes) {
      for (const o of outcomes) if (o.recorded) metrics.webhookAttempt(o.status, o.attempt.durationMs);
    },
  };
}
