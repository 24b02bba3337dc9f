import type { ErrorCode } from '../../domain/errors.js';
import type { PreparedTransaction } from '../../domain/model/command.js';
import type { Versioned } from '../../domain/model/common.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { TransactionEvidence } from '../../ports/transaction-evidence.port.js';
import { onAwaited, onDecided, onFollowed, onSent } from './money-policy.js';
import { StageErrorPath } from './stage-errors.js';
import { StageTiming } from './stage-timing.js';
import { StageWrites, type Progress, type Step } from './stage-writes.js';
import type { Kept, SubjectSource } from './subject-source.js';
import { WorkflowRefusal, type Seen, type StepDecision, type Workflow, type WorkflowStep } from './workflow.js';
import {
  followOperation, isValidationRefusal, sendPrepared, writeAheadRecord, type Completion, type Followed, type FollowSource,
} from './write-ahead.js';

/** Where the runner reports. A pino logger fits. */
export interface RunnerLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Hooks for metrics (the worker host wires them). */
export interface RunnerHooks {
  /** A workflow has been in its step longer than `stuckAfterMs` (reported at most once per stuckAfterMs per subject). */
  onStuck?(workflow: string, key: string, step: string, forMs: number): void;
  /** A stage failed with an error that leaves the workflow waiting. */
  onRetry?(workflow: string, key: string, step: string, error: unknown): void;
  /** A transaction was followed: from the blocks the scanner read, or by asking a node (the fallback, issue #27). */
  onFollow?(workflow: string, source: FollowSource): void;
}

/** What the stage protocol reads and reports to. */
export interface StageDeps {
  readonly clock: Clock;
  readonly chain: ChainGateway;
  readonly log?: RunnerLog;
  readonly hooks?: RunnerHooks;
  /** The receipts of the blocks the scanner of this process read (issue #27); without it every follow asks a node. */
  readonly evidence?: TransactionEvidence;
}

/** The protocol's tunables (the runner's options, defaults applied). */
export interface StageOptions {
  readonly pollMs: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly stuckAfterMs: number;
  readonly maxStepsPerStage: number;
}

/** What one stage did to one subject. */
export interface RunResult<S> {
  readonly key: string;
  /**
   * advanced: a step completed or a transaction went out; waiting: for the chain; retrying: after a failure;
   * finished: the workflow ended (DONE, SUCCESS, FAILED …); lost-lease: another runner owns it now.
   */
  readonly outcome: 'advanced' | 'waiting' | 'retrying' | 'finished' | 'lost-lease';
  /** A transaction was handed to a node in this stage. */
  readonly sent: boolean;
  /** The subject as this stage last saw it (before the end, for a finished workflow). */
  readonly subject: S;
}

/**
 * The one chain-write protocol of every workflow (collections, reclaims, withdrawals, staking), run on one claimed
 * subject, step by step: plan from the chain → sign → persist the write-ahead record (stamped `broadcastAt`) → send →
 * follow the txid until chain evidence ends it → complete (the workflow's transition). Each write names the version
 * it read, so a stage whose lease was taken over loses its next write and stops.
 *
 * The money rule is the money policy's tables (money-policy.ts), and the protocol switches on their actions alone:
 * a step's decision (DECIDED), a first send's answer (SENT), the chain's evidence about the step's open transaction
 * (FOLLOWED) or one it awaits (AWAITED), and an error (ON_ERROR). Once a transaction may have been sent, only chain
 * evidence ends its step (write-ahead.ts). Every other error while following it (node refusals and HTTP failures,
 * lost replies, store failures, unknown node answers) leaves the step waiting with backoff; the workflow never ends
 * on it and never releases its lock. Before anything is sent, business errors (DomainError) and permanent chain
 * errors end the workflow FAILED, unless the step must finish. Store failures never decide anything: they retry.
 * Errors of no known class escape like a crash (the lease runs out and another stage resumes).
 *
 * Here is the path of a stage that goes as planned; its writes and releases are stage-writes.ts, when it looks again
 * and the stuck flag stage-timing.ts, and its error path (ON_ERROR) stage-errors.ts.
 */
export class StageProtocol<S extends Versioned> {
  private readonly timing: StageTiming;
  private readonly writes: StageWrites<S>;
  private readonly errors: StageErrorPath<S>;

  constructor(
    private readonly workflow: Workflow<S>,
    source: SubjectSource<S>,
    private readonly deps: StageDeps,
    private readonly options: StageOptions,
  ) {
    this.timing = new StageTiming(workflow.name, deps, options);
    this.writes = new StageWrites(workflow, source, this.timing, deps);
    this.errors = new StageErrorPath(workflow, source, this.writes, this.timing, deps.log);
  }

  /**
   * One stage of a claimed subject, its failure handled by the money policy's ON_ERROR table; `kept`: the stage's
   * last release kept the subject for this runner (the subject source holds it until it is due).
   */
  async run(claimed: S): Promise<{ readonly result: RunResult<S>; readonly kept: Kept | null }> {
    const key = this.workflow.store.key(claimed);
    const progress: Progress<S> = { key, subject: claimed, sent: false, kept: null };
    try {
      try {
        // A state read its steps repeat is asked once a block by the gateway itself (CachingChainGateway).
        const result = await this.stage(progress);
        this.timing.ended(key, result.outcome);
        return { result, kept: progress.kept };
      } catch (error) {
        return { result: await this.errors.onError(progress, error), kept: null };
      }
    } catch (error) {
      return { result: this.errors.unrecorded(progress, error), kept: null };
    }
  }

  /** Steps until one has to wait for the chain or the workflow ends (at most maxStepsPerStage steps). */
  private async stage(progress: Progress<S>): Promise<RunResult<S>> {
    const key = progress.key;
    let outcome: RunResult<S>['outcome'] = 'advanced';
    for (let i = 0; i < this.options.maxStepsPerStage; i++) {
      const subject = progress.subject;
      const visit = this.workflow.visit(subject);
      if (visit === null) return { key, outcome: 'finished', sent: progress.sent, subject };
      const next = visit.open === null ? await this.plan(progress, visit.step, visit.awaited) : await this.follow(progress, visit.step, visit.open);
      if (next !== 'continue') return { key, outcome: next, sent: progress.sent, subject: progress.subject };
      outcome = 'advanced';
    }
    await this.writes.release(progress, this.deps.clock.now(), true);
    return { key, outcome, sent: progress.sent, subject: progress.subject };
  }

  /** A step with nothing open: what it awaits first (when before its plan), then its plan and the decision. */
  private async plan(progress: Progress<S>, step: WorkflowStep<S>, awaited: PreparedTransaction | null): Promise<Step> {
    if (step.awaits === 'plan') {
      const followed = await this.followAwaited(progress, step, awaited);
      if (followed !== 'go') return followed;
    }
    return this.decide(progress, step, await step.plan(progress.subject));
  }

  /**
   * Acts on a step's decision as the money policy's DECIDED table says (a step that must finish never fails: it
   * retries); a step that awaits before completing completes only once that has landed.
   */
  private async decide(progress: Progress<S>, step: WorkflowStep<S>, decision: StepDecision<S>): Promise<Step> {
    switch (onDecided(decision.kind, step.mustFinish)) {
      case 'send':
        if (decision.kind !== 'send') throw new WorkflowRefusal(`${step.name} has nothing to send (${decision.kind})`);
        return this.send(progress, step, decision);
      case 'complete': {
        const subject = ('subject' in decision ? decision.subject : undefined) ?? progress.subject;
        if (step.awaits !== 'complete') return this.completeStep(progress, subject, null);
        progress.subject = subject;
        // The decision's subject may settle what the step awaited (a loss it planned from): visited again.
        const followed = await this.followAwaited(progress, step, this.workflow.visit(subject)?.awaited ?? null);
        if (followed !== 'go') return followed;
        return this.completeStep(progress, progress.subject, null);
      }
      case 'wait': {
        // The subject's changes and the release are one write.
        if ('subject' in decision && decision.subject !== undefined) progress.subject = decision.subject;
        const delayMs = decision.kind === 'wait' ? decision.delayMs : undefined;
        await this.writes.release(progress, this.deps.clock.now() + (delayMs ?? this.options.pollMs), true);
        return 'waiting';
      }
      case 'retry':
        return this.writes.retry(progress, step, decision.kind === 'retry' ? new Error(decision.reason)
          : new WorkflowRefusal(decision.kind === 'fail' ? `${step.name} cannot fail (${decision.code}: ${decision.message})` : `${step.name}: ${decision.kind} retried`));
      case 'fail':
        if (decision.kind !== 'fail') throw new WorkflowRefusal(`${step.name} decided no failure (${decision.kind})`);
        return this.writes.end(progress, progress.subject, decision.code, decision.message, true);
    }
  }

  /**
   * The earlier transaction the step awaits, followed into a block (its receipt settles it), as the money policy's
   * AWAITED table says: `go` once there is none left unsettled (a landed one's receipt noted into the subject, saved
   * with the next write); else the stage ends waiting, failed, or (lost in a step that must finish) with the step
   * planned again knowing the loss.
   */
  private async followAwaited(progress: Progress<S>, step: WorkflowStep<S>, tx: PreparedTransaction | null): Promise<Step | 'go'> {
    if (tx === null) return 'go';
    // Settled by its receipt, so followed into a block at least (a step that awaits has a depth; never 'accepted').
    const followed = await this.followed(tx, step.depth === 'accepted' ? 1 : step.depth);
    switch (onAwaited(followed.evidence, step.mustFinish)) {
      case 'complete':
        progress.subject = this.noted(progress.subject, tx, receiptOf(followed));
        return 'go';
      case 'wait':
        return this.writes.waitFor(progress, step);
      case 'fail': {
        const lost = failureOf(followed, `the transaction ${step.name} waits for (${tx.txid})`, '');
        return this.writes.end(progress, this.noted(progress.subject, tx, receiptOf(followed)), lost.code, lost.message);
      }
      case 'replan': {
        const before = progress.subject;
        const noted = this.noted(before, tx, receiptOf(followed) ?? { kind: 'dead' });
        const decision = await step.plan(noted, tx);
        // The loss is saved only with a decision that acts on it; otherwise it is seen again on the next visit.
        progress.subject = decision.kind === 'send' || decision.kind === 'complete' ? noted : before;
        if (decision.kind === 'complete') return this.completeStep(progress, decision.subject ?? noted, null);
        return this.decide(progress, step, decision);
      }
    }
  }

  /**
   * Write-ahead, then the first send, whose answer the money policy's SENT table acts on. A step that completes on a
   * later block (not on the node's acceptance) releases its subject in the write-ahead write itself, due a poll later
   * (decision 156): one store write fewer per transaction. The lease then no longer covers the broadcast, which is
   * safe under the money rule: the record is stored before the send, so whoever claims the subject after the poll
   * only follows that one signed transaction (a re-send of it is the same txid), and this runner's later writes (a
   * refusal noted) name the version they read, so they lose to such a claim.
   */
  private async send(progress: Progress<S>, step: WorkflowStep<S>, decision: Extract<StepDecision<S>, { kind: 'send' }>): Promise<Step> {
    const now = this.deps.clock.now();
    const record = writeAheadRecord(decision.tx, now);
    const persisted = decision.persist(record);
    const completion = completionOf(step, persisted);
    const look = completion === 'accepted' ? now : await this.timing.nextBlockLook();
    await this.writes.write(progress, completion === 'accepted' ? persisted : this.writes.releasedAt(progress, persisted, look, true));
    progress.sent = true;
    const sent = await sendPrepared(this.deps.chain, record, completion);
    return this.act(progress, step, record, sent, onSent(sent.evidence, step.mustFinish));
  }

  /** A step with an open transaction: only chain evidence moves it on (write-ahead.ts), as the FOLLOWED table says. */
  private async follow(progress: Progress<S>, step: WorkflowStep<S>, record: PreparedTransaction): Promise<Step> {
    const followed = await this.followed(record, completionOf(step, progress.subject));
    return this.act(progress, step, record, followed, onFollowed(followed.evidence, step.mustFinish));
  }

  /** The step's own transaction, as its table's action says (a receipt the evidence carries is noted into the subject first). */
  private async act(progress: Progress<S>, step: WorkflowStep<S>, record: PreparedTransaction, followed: Followed, action: OwnAction): Promise<Step> {
    const noted = this.noted(progress.subject, record, receiptOf(followed));
    switch (action) {
      case 'complete': {
        const closed = step.afterConfirmed?.(noted, record, this.deps.clock.now()) ?? null;
        if (closed === null) return this.completeStep(progress, noted, record);
        await this.writes.write(progress, closed);
        return 'continue';
      }
      case 'advance':
        return 'advanced';
      case 'wait':
        return this.writes.waitFor(progress, step);
      case 'retry': {
        if (followed.evidence !== 'refused') return this.writes.retry(progress, step, new Error(`${step.name} transaction ${record.txid}: ${followed.evidence}`));
        // The node's refusal, noted on the record (saved now): a refusal of the operation itself stays over later ones about freshness.
        if (replacesRefusal(record.refusal ?? null, followed.refusal)) {
          await this.writes.write(progress, this.workflow.note(progress.subject, record, { kind: 'refused', refusal: followed.refusal }));
        }
        return this.writes.retry(progress, step, followed.error ?? new Error(followed.refusal));
      }
      case 'replan':
        // Provably never included: plan anew (a crash before the send, a dropped or expired transaction).
        await this.writes.write(progress, this.workflow.note(noted, record, { kind: 'dropped' }));
        return 'continue';
      case 'drop-and-retry': {
        // It moved nothing but its fee: drop it and plan again from the chain, later.
        await this.writes.write(progress, this.workflow.note(noted, record, { kind: 'dropped' }));
        return this.writes.retry(progress, step, new Error(failureOf(followed, `${step.name} transaction ${record.txid}`, `: ${record.refusal}`).message));
      }
      case 'fail': {
        const failure = failureOf(followed, `${step.name} transaction ${record.txid}`, `: ${record.refusal}`);
        return this.writes.end(progress, noted, failure.code, failure.message);
      }
    }
  }

  /** followOperation on the evidence of this process's scanner, when there is one; each follow's source counted. */
  private followed(tx: PreparedTransaction, completion: Completion): Promise<Followed> {
    return followOperation(this.deps.chain, tx, completion, this.deps.evidence ?? null,
      (source) => this.deps.hooks?.onFollow?.(this.workflow.name, source));
  }

  /** The subject with what the chain showed of one of its transactions noted (nothing to note: as it is). */
  private noted(subject: S, record: PreparedTransaction, seen: Seen | null): S {
    return seen === null ? subject : this.workflow.note(subject, record, seen);
  }

  /**
   * The step is done: the workflow's transition; the stage goes on with the next step. An `unsaved` transition rides
   * on the stage's next write (every write of a stage starts from progress.subject and names its stored version; a
   * stage never ends without one: a send's write-ahead, a release, the end, or a failure re-read from the store).
   */
  private async completeStep(progress: Progress<S>, subject: S, record: PreparedTransaction | null): Promise<Step> {
    const done = await this.workflow.complete(subject, record);
    if ('ended' in done) {
      progress.subject = done.ended;
      return 'finished';
    }
    progress.subject = 'unsaved' in done ? done.unsaved : done.next;
    return 'continue';
  }
}

/** What a table may say of the step's own transaction (FOLLOWED, SENT). */
type OwnAction = ReturnType<typeof onFollowed> | ReturnType<typeof onSent>;

function completionOf<S>(step: WorkflowStep<S>, subject: S): Completion {
  return typeof step.completion === 'function' ? step.completion(subject) : step.completion;
}

/** The receipt a piece of evidence carries: a transaction in a block (confirmed, or reverted); else none. */
function receiptOf(followed: Followed): Seen | null {
  const receipt = followed.evidence === 'confirmed' || followed.evidence === 'reverted' ? followed.receipt : null;
  return receipt === null ? null : { kind: 'receipt', state: receipt };
}

/** Whether a refusal a node gave replaces the record's: a refusal of the operation itself stays over later ones about freshness. */
function replacesRefusal(recorded: string | null, refusal: string): boolean {
  return refusal !== recorded && !(isValidationRefusal(recorded) && !isValidationRefusal(refusal));
}

/**
 * The failure a lost transaction ends a workflow with: reverted on chain, or expired unsent (`what`: which
 * transaction; `unsent`: what follows "expired unsent").
 */
function failureOf(followed: Followed, what: string, unsent: string): { code: ErrorCode; message: string } {
  return followed.evidence === 'reverted'
    ? { code: 'CHAIN-TRANSACTION-FAILED', message: `${what} failed on chain: ${followed.reason}` }
    : { code: 'CHAIN-BROADCAST-FAILED', message: `${what} expired unsent${unsent}` };
}
