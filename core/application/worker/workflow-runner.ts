import type { Versioned } from '../../domain/model/common.js';
import { StageProtocol, type RunResult, type StageDeps } from './stage-protocol.js';
import { SubjectSource } from './subject-source.js';
import type { Workflow } from './workflow.js';

/** Tunables of a runner; every one has a default. */
export interface RunnerOptions {
  /** Lease owner name (default: a fresh id per runner). */
  readonly owner: string;
  /** Lease on a claimed subject (default 60 s): longer than one stage's few node calls. */
  readonly leaseMs?: number;
  /** Clock time between two looks at a sent transaction (default 3 s, one TRON block). */
  readonly pollMs?: number;
  /** Failures retry after retryBaseMs, doubling up to retryMaxMs (defaults 1 s and 60 s); a node's Retry-After wins when longer. */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  /** A step running longer than this is flagged stuck in the log (default 15 min). */
  readonly stuckAfterMs?: number;
  /** Steps passed through in one stage at most (default 8): a stage stays bounded. */
  readonly maxStepsPerStage?: number;
  /**
   * Stages runDue runs at once (default 1), each on its own claimed subject: a stage spends most of its time waiting
   * for node round trips, which then overlap. Leases keep subjects apart exactly as between runners.
   */
  readonly concurrency?: number;
  /**
   * Subjects a runner keeps between its stages at most (default 1,000; 0: none), for a workflow with `kept`: a stage
   * that ends waiting for the chain keeps its lease, and the runner resumes the subject from memory when it is due,
   * without a claim (decision 160). Beyond this many, subjects are released as before.
   */
  readonly keepMax?: number;
}

/**
 * The one runner of every chain workflow (collections, reclaims, withdrawals, staking), in three parts: the subject
 * source (subject-source.ts: claims, the claimed-ahead buffer, kept subjects, renewal, release on stop), the stage
 * protocol (stage-protocol.ts: plan → write-ahead → send → follow → complete, under the money rule of
 * money-policy.ts), and here the lanes that run stages side by side.
 */
export class WorkflowRunner<S extends Versioned> {
  private readonly concurrency: number;
  private readonly source: SubjectSource<S>;
  private readonly protocol: StageProtocol<S>;

  constructor(workflow: Workflow<S>, private readonly deps: StageDeps, options: RunnerOptions) {
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
    this.source = new SubjectSource(workflow.store, {
      owner: options.owner, leaseMs: options.leaseMs ?? 60_000, concurrency: this.concurrency,
      keepMax: Math.max(0, Math.floor(options.keepMax ?? 1_000)),
    });
    this.protocol = new StageProtocol(workflow, this.source, deps, {
      pollMs: options.pollMs ?? 3_000, retryBaseMs: options.retryBaseMs ?? 1_000, retryMaxMs: options.retryMaxMs ?? 60_000,
      stuckAfterMs: options.stuckAfterMs ?? 15 * 60_000, maxStepsPerStage: options.maxStepsPerStage ?? 8,
    });
  }

  /**
   * Runs stages until nothing is due or `maxStages` ran, `concurrency` at a time. Lanes open one by one: a lane
   * starts when the last one to start has claimed a subject, so a pass that finds k subjects due makes about k + 1
   * claims, not k + `concurrency` (an idle poll is one claim, not one per lane: on PostgreSQL each is an UPDATE). An
   * error that escapes a stage (a crash) stops the others from starting new stages and is rethrown once the running
   * ones have ended. Subjects due in the store go first, in the store's order; once a claim finds none, the pass
   * resumes the subjects this runner keeps (decision 160) without claiming again.
   */
  async runDue(maxStages = 100): Promise<RunResult<S>[]> {
    const results: RunResult<S>[] = [];
    const pass = { storeDry: false };
    let started = 0;
    let stop = false;
    // The first failure is rethrown once all lanes have ended; each lane's is caught as it happens (a lane failing
    // while an earlier one is still awaited must not be an unhandled rejection).
    let failure: { reason: unknown } | undefined;
    const lanes: Promise<void>[] = [];
    const open = (): void => {
      if (!stop && lanes.length < this.concurrency && started < maxStages) {
        lanes.push(lane().catch((reason: unknown) => {
          failure ??= { reason };
        }));
      }
    };
    const lane = async (): Promise<void> => {
      let first = true;
      while (!stop && started < maxStages) {
        started++;
        let result: RunResult<S> | null;
        try {
          // The lane's first claim that finds a subject opens the next lane.
          result = await this.runOnce(first ? open : undefined, pass);
        } catch (error) {
          stop = true;
          throw error;
        }
        first = false;
        if (result === null) {
          stop = true;
          return;
        }
        results.push(result);
      }
    };
    open();
    // Lanes opened while others run are awaited too.
    for (let settled = 0; settled < lanes.length; settled++) await lanes[settled];
    if (failure !== undefined) throw failure.reason;
    return results;
  }

  /**
   * Takes the next subject from the source (claimed ahead, then the store, then kept) and runs one stage of it; null
   * when nothing is due. `onClaimed` is told once a subject is claimed, before its stage runs.
   */
  async runOnce(onClaimed?: () => void, pass = { storeDry: false }): Promise<RunResult<S> | null> {
    const claimed = await this.source.next(this.deps.clock.now(), pass, onClaimed);
    if (claimed === null) return null;
    const { result, kept } = await this.protocol.run(claimed);
    this.source.keepAfter(result.key, result.subject, kept);
    return result;
  }

  /** Releases every subject this runner keeps (a stopping worker): due when it was due here, for any runner. */
  releaseKept(): Promise<void> {
    return this.source.releaseKept();
  }

  /** How many subjects this runner keeps now, claimed ahead ones included (for tests and metrics). */
  keptCount(): number {
    return this.source.keptCount();
  }
}
