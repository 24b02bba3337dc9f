import { ChainError, ConcurrencyConflict, DomainError, InfrastructureError } from '../../domain/errors.js';
import type { Versioned } from '../../domain/model/common.js';
import { onError as onPolicyError, type ErrorClass } from './money-policy.js';
import type { RunnerLog, RunResult } from './stage-protocol.js';
import type { StageTiming } from './stage-timing.js';
import type { Progress, StageWrites } from './stage-writes.js';
import type { SubjectSource } from './subject-source.js';
import { WorkflowRefusal, type Workflow } from './workflow.js';
import { describeRefusal } from './write-ahead.js';

/**
 * A stage's error path: the money policy's ON_ERROR table, by the error's class, whether a transaction of the step
 * is open and whether the step must finish. Store failures never decide anything: they retry. Errors of no known
 * class escape like a crash (the lease runs out and another stage resumes).
 */
export class StageErrorPath<S extends Versioned> {
  constructor(
    private readonly workflow: Workflow<S>,
    private readonly source: SubjectSource<S>,
    private readonly writes: StageWrites<S>,
    private readonly timing: StageTiming,
    private readonly log?: RunnerLog,
  ) {}

  /** After a failed stage: the subject re-read, then retried, ended FAILED, or the error rethrown, as ON_ERROR says. */
  async onError(progress: Progress<S>, error: unknown): Promise<RunResult<S>> {
    const key = progress.key;
    const kind = errorClassOf(error);
    // Lost lease and unknown errors act the same in every column (asserted by the policy's test): decided before reading.
    const early = onPolicyError(kind, false, false);
    if (early === 'stop' || early === 'crash') throw error;
    // Re-read: the stage may have written since the claim, and this write must name the stored version.
    const current = await this.workflow.store.get(key);
    if (current === null || !this.source.holds(current)) throw new ConcurrencyConflict(this.workflow.name, key);
    progress.subject = current;
    const visit = this.workflow.visit(current);
    if (visit === null) return { key, outcome: 'finished', sent: progress.sent, subject: current };
    switch (onPolicyError(kind, visit.open !== null, visit.step.mustFinish)) {
      case 'retry':
        await this.writes.retry(progress, visit.step, error);
        return { key, outcome: 'retrying', sent: progress.sent, subject: progress.subject };
      case 'fail':
        this.timing.resetBackoff(key);
        await this.writes.end(progress, current, (error as DomainError | InfrastructureError).code, (error as Error).message);
        return { key, outcome: 'finished', sent: progress.sent, subject: progress.subject };
      case 'stop':
      case 'crash':
        throw error;
    }
  }

  /**
   * The error path failed too: a lost lease ends the stage `lost-lease`; a store failure (down, or it applied a write
   * and reported an error) leaves the lease to run out and the subject to resume, exactly as a crash here would;
   * anything else escapes.
   */
  unrecorded(progress: Progress<S>, error: unknown): RunResult<S> {
    const key = progress.key;
    if (error instanceof ConcurrencyConflict) return { key, outcome: 'lost-lease', sent: progress.sent, subject: progress.subject };
    if (error instanceof InfrastructureError || error instanceof DomainError || error instanceof WorkflowRefusal) {
      this.log?.warn({ workflow: this.workflow.name, key, err: describeRefusal(error) }, 'workflow stage could not record its failure');
      return { key, outcome: 'retrying', sent: progress.sent, subject: progress.subject };
    }
    throw error;
  }
}

/** The money policy's class of an error a stage raised. */
function errorClassOf(error: unknown): ErrorClass {
  if (error instanceof ConcurrencyConflict) return 'lost-lease';
  if (error instanceof DomainError) return 'business';
  if (error instanceof ChainError) return error.transient ? 'chain-transient' : 'chain-permanent';
  if (error instanceof InfrastructureError) return error.transient ? 'infra-transient' : 'infra-permanent';
  if (error instanceof WorkflowRefusal) return 'workflow-refusal';
  return 'unknown';
}
