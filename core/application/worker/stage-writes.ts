import type { ErrorCode } from '../../domain/errors.js';
import type { Versioned } from '../../domain/model/common.js';
import type { RunResult, StageDeps } from './stage-protocol.js';
import type { StageTiming } from './stage-timing.js';
import type { Kept, SubjectSource } from './subject-source.js';
import { WorkflowRefusal, type Workflow, type WorkflowStep } from './workflow.js';

/**
 * A stage's running state: its subject's key, the subject as last saved, whether a transaction went out, and whether
 * its last release kept it for this runner.
 */
export interface Progress<S> {
  readonly key: string;
  subject: S;
  sent: boolean;
  kept: Kept | null;
}

/** What a step visit leads to: go on with the next step, or end the stage so. */
export type Step = 'continue' | Exclude<RunResult<unknown>['outcome'], 'lost-lease'>;

/**
 * Every write a stage makes to its subject: each from the subject as the stage last saw it, naming the version it
 * read (so a stage whose lease was taken over loses its next write and stops); releases as the subject source says
 * (released, or kept for this runner); the end FAILED; and the two ways a stage ends looking again later, waiting for
 * the next block or retrying after the backoff.
 */
export class StageWrites<S extends Versioned> {
  constructor(
    private readonly workflow: Workflow<S>,
    private readonly source: SubjectSource<S>,
    private readonly timing: StageTiming,
    private readonly deps: Pick<StageDeps, 'clock' | 'log' | 'hooks'>,
  ) {}

  /** Every write of a stage: from the subject as this stage last saw it, naming the version it read. */
  async write(progress: Progress<S>, next: S): Promise<void> {
    progress.subject = await this.workflow.store.save(next, progress.subject.version);
  }

  /**
   * Releases the subject, due at `at`; `keep` (a stage that waits for the chain): kept by this runner instead, when
   * the subject source keeps it (decision 160).
   */
  async release(progress: Progress<S>, at: number, keep = false): Promise<void> {
    await this.write(progress, this.releasedAt(progress, progress.subject, at, keep));
  }

  /** The subject released at `at`, or kept (noted in `progress`, so the stage's end keeps it in memory). */
  releasedAt(progress: Progress<S>, subject: S, at: number, keep: boolean): S {
    const released = this.source.released(subject, at, keep);
    progress.kept = released.kept;
    return released.subject;
  }

  /** Ends the workflow FAILED (`decided`: by the step's own decision); the stage is over. */
  async end(progress: Progress<S>, subject: S, code: ErrorCode, message: string, decided?: boolean): Promise<Step> {
    progress.subject = await this.workflow.fail(subject, code, message, decided);
    return 'finished';
  }

  /** The step waits for the chain: flagged when stuck, and looked at again just after the next block. */
  async waitFor(progress: Progress<S>, step: WorkflowStep<S>): Promise<Step> {
    this.timing.checkStuck(progress.key, step.name, this.workflow.visit(progress.subject));
    await this.release(progress, await this.timing.nextBlockLook(), true);
    return 'waiting';
  }

  /** Releases the subject with a backoff delay (the node's Retry-After when longer) and reports the failure. */
  async retry(progress: Progress<S>, step: WorkflowStep<S>, error: unknown): Promise<Step> {
    const key = progress.key;
    const delay = this.timing.retryDelay(key, error);
    this.deps.hooks?.onRetry?.(this.workflow.name, key, step.name, error);
    if (error instanceof WorkflowRefusal) this.deps.log?.error({ workflow: this.workflow.name, key, step: step.name, err: error.message }, 'workflow refused a step');
    this.timing.checkStuck(key, step.name, this.workflow.visit(progress.subject), error);
    await this.release(progress, this.deps.clock.now() + delay);
    return 'retrying';
  }
}
