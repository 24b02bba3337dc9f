import type { Versioned } from '../../domain/model/common.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import type { TransactionEvidence } from '../../ports/transaction-evidence.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { Confirmations } from './write-ahead.js';
import type { RunnerHooks, RunnerLog, RunResult } from './stage-protocol.js';
import type { Workflow } from './workflow.js';
import { WorkflowRunner, type RunnerOptions } from './workflow-runner.js';

/**
 * The one options type of every workflow executor (collections, their reclaims, withdrawals and staking commands).
 * Every field has a default; a field a workflow has no use for is ignored by it.
 */
export interface WorkflowOptions {
  /** Lease owner name (default: a fresh UUID per executor). */
  readonly owner?: string;
  /** Lease on a claimed subject (default 60 s): longer than one stage's few node calls, so a live worker keeps it. */
  readonly leaseMs?: number;
  /** Depth before a step's transaction completes it (default 'solidified'; staking: stakingConfirmations). */
  readonly confirmations?: Confirmations;
  /** Clock time between two looks at a transaction or at the energy (default 3 s, one TRON block). */
  readonly pollMs?: number;
  /**
   * Failures retry after retryBaseMs, doubling up to retryMaxMs (defaults 1 s and 60 s; a reclaim's 3 s and 5 min:
   * it never gives up, it holds funds); a node's Retry-After wins when longer.
   */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  /** A step running longer than this is logged as stuck (default 15 min). */
  readonly stuckAfterMs?: number;
  /** Stages run at once by one runDue (default 1): the node's round trips of one stage overlap the others'. */
  readonly concurrency?: number;
  /** Stages one runDue runs at most (default 100; commands 50). */
  readonly batch?: number;
  /**
   * Collections: tasks a runner keeps between its stages, resuming them from memory without a claim (default 1,000;
   * 0: none; decision 160). Their lease is the runner's until a lease after they fall due.
   */
  readonly keepMax?: number;

  /** Collections — spec §8: wait for energy readiness up to 60 s, then FAILED BIZ-ENERGY-TIMEOUT. */
  readonly energyTimeoutMs?: number;
  /**
   * An empty sub-address (a collection) or a balance short of the amount (a command) fails only once the subject is
   * this old (default 30 s, ten blocks): before, it is read again a poll later. A state read can come from a node
   * some blocks behind the one that reported the balance (a provider's load-balanced backends).
   */
  readonly staleReadGraceMs?: number;
  /** Collections: burning TRX for energy may be planned (default false), up to maxBurnSun per sweep when set. */
  readonly burnEnabled?: boolean;
  readonly maxBurnSun?: bigint;
  /** Collections and reclaims: TRX left on a sub-address is swept back only when that nets this much (default MIN_TRX_SWEEP_SUN, 0.1 TRX: the same floor below which the API refuses a TRX collection as dust). */
  readonly minRecoverSun?: bigint;
  /** fee_limit of a TRC20 transfer (default 100 TRX). */
  readonly feeLimitSun?: bigint;
  /** Bytes of a TRX transfer and SUN per byte when bandwidth is burnt (defaults 300 and 1,000). */
  readonly transferBytes?: number;
  readonly sunPerByte?: bigint;

  /**
   * Withdrawals — when one counts as completed: 'broadcast' (default, spec §6: "broadcast successfully and a txid is
   * obtained": a node accepted it, or it is already in a block), or after this many confirmations / solidification.
   */
  readonly completeOn?: 'broadcast' | Confirmations;
  /**
   * Depth at which a staking command (STAKE … WITHDRAW_REWARD) counts as done (default 1: in a block and not
   * reverted). The spec names no staking events, so its SUCCESS waits for the chain's verdict instead of the broadcast.
   */
  readonly stakingConfirmations?: Confirmations;
}

/** What one stage did to one subject, for every workflow alike. */
export interface StageResult {
  /** `collection`, `reclaim` or `command`. */
  readonly workflow: string;
  /** The task number or the command number. */
  readonly key: string;
  /**
   * advanced: a step completed or a transaction went out; waiting: for the chain; retrying: after a failure;
   * finished: the workflow ended (see `status`); lost-lease: another runner owns it now.
   */
  readonly outcome: RunResult<unknown>['outcome'];
  /** A transaction was handed to a node in this stage. */
  readonly sent: boolean;
  /** The subject's status after the stage: a collection's or a command's status value, a reclaim's `pending`/`done`. */
  readonly status: number | string;
  /** Why a finished workflow failed (its error code and message), where the workflow records one (issue #34). */
  readonly error?: { readonly code: string; readonly message: string | null };
}

/** What every executor needs besides its workflow's own ports. */
export interface ExecutorDeps {
  readonly clock: Clock;
  readonly chain: ChainGateway;
  readonly ids: IdGenerator;
  readonly log?: RunnerLog;
  readonly hooks?: RunnerHooks;
  /** The receipts of the blocks this process's scanner read: transactions are followed from them (issue #27). */
  readonly evidence?: TransactionEvidence;
}

/**
 * One workflow on the one workflow runner: the executors of collections, reclaims and commands are this with their
 * workflow. Options are forwarded one way for all; results read the same for all.
 */
export class WorkflowExecutor<S extends Versioned> {
  private readonly runner: WorkflowRunner<S>;
  private readonly batch: number;

  constructor(
    private readonly workflow: Workflow<S>,
    deps: ExecutorDeps,
    options: WorkflowOptions,
    defaults: Partial<Pick<RunnerOptions, 'retryBaseMs' | 'retryMaxMs'>> & { readonly batch: number },
  ) {
    this.batch = options.batch ?? defaults.batch;
    const runnerOptions: RunnerOptions = {
      ...defined({ retryBaseMs: defaults.retryBaseMs, retryMaxMs: defaults.retryMaxMs }),
      ...defined({
        leaseMs: options.leaseMs, pollMs: options.pollMs, retryBaseMs: options.retryBaseMs, retryMaxMs: options.retryMaxMs,
        stuckAfterMs: options.stuckAfterMs, concurrency: options.concurrency, keepMax: options.keepMax,
      }),
      owner: options.owner ?? deps.ids.uuid(),
    };
    this.runner = new WorkflowRunner(workflow, deps, runnerOptions);
  }

  /** Runs stages until nothing is due or `maxStages` ran (default: the batch); returns what each did. */
  async runDue(maxStages = this.batch): Promise<StageResult[]> {
    return (await this.runner.runDue(maxStages)).map((r) => this.resultOf(r));
  }

  /** Claims one due subject and runs one stage of it; null when nothing is due. */
  async runOnce(): Promise<StageResult | null> {
    const result = await this.runner.runOnce();
    return result === null ? null : this.resultOf(result);
  }

  /** Releases the subjects this executor keeps between stages (a stopping worker), due as they were here. */
  releaseKept(): Promise<void> {
    return this.runner.releaseKept();
  }

  /** How many subjects this executor keeps between stages now. */
  keptCount(): number {
    return this.runner.keptCount();
  }

  private resultOf(result: RunResult<S>): StageResult {
    const { status, error: ended } = this.workflow.statusOf(result.subject);
    const error = result.outcome === 'finished' ? ended : null;
    return { workflow: this.workflow.name, key: result.key, outcome: result.outcome, sent: result.sent, status, ...(error === null ? {} : { error }) };
  }
}

/** The entries that are set, for passing on under exactOptionalPropertyTypes. */
function defined<T extends Record<string, unknown>>(values: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
