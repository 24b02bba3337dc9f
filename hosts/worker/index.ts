/**
 * The worker host: runs the collection executor, the command executor (withdrawals and staking) and, when given,
 * the webhook dispatcher and the balance scanner. `startWorker` either loops on real timers (production) or, with `manual: true`, only
 * when the caller says `tick()` (tests drive it on a ManualClock, deterministically).
 */
import type { AutoCollectOutcome, AutoCollector } from '../../core/application/worker/auto-collector.js';
import type { PaymentWatchOutcome, PaymentWatcher } from '../../core/application/worker/payment-watcher.js';
import type { TransactionEvidence } from '../../core/ports/transaction-evidence.port.js';
import type { BalanceScanner } from '../../core/application/worker/balance-scanner.js';
import { CollectionExecutor, type CollectionExecutorDeps } from '../../core/application/worker/collection-executor.js';
import type { AttemptOutcome, WebhookDispatcher } from '../../core/application/worker/webhook-dispatcher.js';
import { ReclaimExecutor } from '../../core/application/worker/reclaim-executor.js';
import { CommandExecutor, type CommandExecutorDeps } from '../../core/application/worker/command-executor.js';
import type { StageResult, WorkflowOptions } from '../../core/application/worker/workflow-executor.js';
import { startBalanceScanJob } from './jobs/balance-scan.js';
import { startWebhookJob, type RunningJob } from './jobs/webhooks.js';

/** Where the worker reports; a pino logger fits. */
export interface WorkerLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** The ports of both executors, plus the optional webhook dispatcher and balance scanner (already built). */
export interface WorkerDeps extends CollectionExecutorDeps, Omit<CommandExecutorDeps, 'energy'> {
  readonly webhooks?: WebhookDispatcher;
  readonly balanceScanner?: BalanceScanner;
  /** Judges due automatic collection triggers once per tick, after the scan (issue #24 item 4). */
  readonly autoCollector?: AutoCollector;
  /** Judges watched payment requests once per tick, after the scan and before the auto collector (issue #25). */
  readonly paymentWatcher?: PaymentWatcher;
  /** The receipts of the blocks balanceScanner reads: the executors follow their transactions from them (issue #27). */
  readonly evidence?: TransactionEvidence;
}

/** Options of startWorker; every one has a default. */
export interface WorkerOptions {
  readonly collection?: WorkflowOptions;
  readonly commands?: WorkflowOptions;
  /** Post-failure reclaims (default: the collection's owner, lease, confirmations and poll). */
  readonly reclaim?: WorkflowOptions;
  /** Pause between two ticks of the executor loop (default 1 s; a tick that found work is followed at once). */
  readonly intervalMs?: number;
  /** Collection stages per tick at most (default 200), so one tick stays bounded. */
  readonly maxStagesPerTick?: number;
  /** The chain's block interval: the scanner times its passes to just after each block's slot (0/unset: every 3 s). */
  readonly scanSlotMs?: number;
  /** No timers: nothing runs until `tick()` is called (tests, benches). */
  readonly manual?: boolean;
  readonly log?: WorkerLog;
  /** Told what each tick did, each failed pass and each webhook attempt (metrics). */
  readonly observer?: WorkerObserver;
}

/** Receives the worker's outcomes as they happen (hosts/composition/metrics.ts); every method is optional. */
export interface WorkerObserver {
  /** Awaited before the tick resolves (so a manual tick's metrics are complete); a failure is ignored. */
  tick?(report: TickReport): void | Promise<void>;
  passFailed?(workflow: string): void;
  webhookAttempts?(outcomes: readonly AttemptOutcome[]): void;
}

/** What one tick did. */
export interface TickReport {
  readonly collections: readonly StageResult[];
  /** Withdrawals and staking commands. */
  readonly commands: readonly StageResult[];
  /** Post-failure reclaims of failed collections that funded gas or delegated energy. */
  readonly reclaims: readonly StageResult[];
  /** How each due automatic collection trigger was judged (none without an auto collector). */
  readonly autoCollect?: readonly AutoCollectOutcome[];
  /** How each watched payment request was judged (none without a payment watcher). */
  readonly payments?: readonly PaymentWatchOutcome[];
}

/** A running worker. */
export interface RunningWorker {
  /** Runs one pass of everything (executors; in manual mode also the dispatcher and the scanner). Never overlaps. */
  tick(): Promise<TickReport>;
  /** Stops the loops and waits for the work in flight. */
  stop(): Promise<void>;
}

/**
 * Starts the worker. Collections and commands (withdrawals, staking) run in one non-overlapping loop (a second
 * tick never starts while one runs, so one process never works one task twice; several processes share work through leases and versions).
 * An error escaping a tick (a bug, a store outage) is logged; the tasks it touched resume when their lease ends.
 */
export function startWorker(deps: WorkerDeps, options: WorkerOptions = {}): RunningWorker {
  // The runners log stuck workflows and refused steps through the worker's log.
  const runnerDeps = options.log === undefined || deps.log !== undefined ? deps : { ...deps, log: options.log };
  const collections = new CollectionExecutor(runnerDeps, options.collection);
  // A withdrawal from a sub-address is funded under the collections' burn settings, depth and energy timeout (issue #34).
  const commands = new CommandExecutor(runnerDeps, options.commands, { funding: options.collection ?? {} });
  const reclaims = new ReclaimExecutor(runnerDeps, { ...options.collection, ...options.reclaim });
  const maxStages = options.maxStagesPerTick ?? 200;
  const manual = options.manual === true;
  let running: Promise<TickReport> | null = null;

  // Each workflow's pass is guarded on its own: one that fails (a store outage, a bug) does not stop the others.
  const guarded = async <T>(name: string, run: () => Promise<readonly T[]>): Promise<readonly T[]> => {
    if (options.log === undefined) return run();
    try {
      return await run();
    } catch (error) {
      options.log.error({ err: error, workflow: name }, 'workflow pass failed');
      options.observer?.passFailed?.(name);
      return [];
    }
  };
  const pass = async (): Promise<TickReport> => {
    const report = {
      commands: await guarded('command', () => commands.runDue()),
      collections: await guarded('collection', () => collections.runDue(maxStages)),
      reclaims: await guarded('reclaim', () => reclaims.runDue(maxStages)),
    };
    if (manual && deps.webhooks !== undefined) {
      await deps.webhooks.recordEvents();
      const attempts = await deps.webhooks.deliverDue();
      options.observer?.webhookAttempts?.(attempts);
    }
    if (manual && deps.balanceScanner !== undefined) await deps.balanceScanner.scan();
    // A paid request starts its collection first; an auto_collect trigger on the same address then finds it held.
    const paymentWatcher = deps.paymentWatcher;
    const withPayments: TickReport = paymentWatcher === undefined
      ? report : { ...report, payments: await guarded('payment-watch', () => paymentWatcher.pass()) };
    const autoCollector = deps.autoCollector;
    const full: TickReport = autoCollector === undefined
      ? withPayments : { ...withPayments, autoCollect: await guarded('auto-collect', () => autoCollector.pass()) };
    await Promise.resolve(options.observer?.tick?.(full)).catch(() => undefined);
    return full;
  };
  const tick = (): Promise<TickReport> => {
    running ??= pass().finally(() => { running = null; });
    return running;
  };

  const jobs: RunningJob[] = [];
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let loop: Promise<void> = Promise.resolve();
  if (!manual) {
    if (deps.webhooks !== undefined) {
      jobs.push(startWebhookJob(deps.webhooks, {
        ...(options.log === undefined ? {} : { log: options.log }),
        ...(options.observer?.webhookAttempts === undefined ? {} : { onAttempts: (o: readonly AttemptOutcome[]) => options.observer?.webhookAttempts?.(o) }),
      }));
    }
    if (deps.balanceScanner !== undefined) {
      jobs.push(startBalanceScanJob(deps.balanceScanner, {
        ...(options.log === undefined ? {} : { log: options.log }),
        ...(options.scanSlotMs === undefined ? {} : { slotMs: options.scanSlotMs }),
      }));
    }
    const intervalMs = options.intervalMs ?? 1_000;
    const schedule = (ms: number): void => {
      if (stopped) return;
      timer = setTimeout(() => { loop = once(); }, ms);
    };
    const once = async (): Promise<void> => {
      let busy = false;
      try {
        const report = await tick();
        busy = report.collections.length >= maxStages;
        reportEnds(report, options.log);
      } catch (error) {
        options.log?.error({ err: error }, 'worker tick failed');
        options.observer?.passFailed?.('tick');
      }
      schedule(busy ? 0 : intervalMs);
    };
    schedule(0);
  }

  return {
    tick,
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await loop;
      if (running !== null) await running.catch(() => undefined);
      // The tasks kept between stages go back to the store, due as they were: another worker takes them at once.
      await collections.releaseKept().catch((error: unknown) => options.log?.error({ err: error }, 'kept tasks not released'));
      await Promise.all(jobs.map((job) => job.stop()));
    },
  };
}

/** Logs the workflows a tick finished (the loop's report; exported for its test): a failure with its code and message. */
export function reportEnds(report: TickReport, log: WorkerLog | undefined): void {
  if (log === undefined) return;
  for (const o of [...report.collections, ...report.reclaims, ...report.commands]) {
    if (o.outcome !== 'finished') continue;
    // A failure says why (issue #34): its error code and message, not only the status.
    if (o.error === undefined) log.info({ workflow: o.workflow, key: o.key, status: o.status }, `${o.workflow} finished`);
    else log.warn({ workflow: o.workflow, key: o.key, status: o.status, error_code: o.error.code }, `${o.workflow} failed: ${o.error.code}: ${o.error.message ?? ''}`);
  }
}

export { CollectionExecutor, CommandExecutor };
export type { StageResult, WorkflowOptions };
