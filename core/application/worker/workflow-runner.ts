import { ChainError, ConcurrencyConflict, DomainError, InfrastructureError, type ErrorCode } from '../../domain/errors.js';
import type { PreparedTransaction } from '../../domain/model/command.js';
import type { SignedTransaction, TransactionState } from '../../domain/model/chain.js';
import type { Versioned } from '../../domain/model/common.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { TransactionEvidence } from '../../ports/transaction-evidence.port.js';
import { onAwaited, onError as onPolicyError, onFollowed, type ErrorClass, type Evidence } from './money-policy.js';
import { RetryBackoff } from './retry-backoff.js';
import {
  broadcastPrepared, describeRefusal, followOperation, isValidationRefusal, writeAheadRecord, type Completion, type FollowSource, type OperationState,
} from './write-ahead.js';

/**
 * A workflow refused a transition its own tables should have allowed: inconsistent stored state (or a bug). The
 * runner logs it and retries the subject later; it never aborts the other work of a tick.
 */
export class WorkflowRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkflowRefusal';
  }
}

/**
 * What a step decides on a visit with no transaction open:
 * - `send`: this signed transaction; `persist` writes its write-ahead record into the subject (the runner saves
 *   that BEFORE the first send);
 * - `complete`: nothing (more) to send, the step is done (the subject may carry changes to save with it);
 * - `wait`: look again after `delayMs` (default: the poll interval), saving the subject's changes;
 * - `retry`: not now (something else must happen first): look again after the retry backoff;
 * - `fail`: end the workflow FAILED (refused for steps that must finish: those retry instead).
 */
export type StepDecision<S> =
  | { readonly kind: 'send'; readonly tx: SignedTransaction; readonly persist: (record: PreparedTransaction) => S }
  | { readonly kind: 'complete'; readonly subject?: S }
  | { readonly kind: 'wait'; readonly subject?: S; readonly delayMs?: number }
  | { readonly kind: 'retry'; readonly reason: string }
  | { readonly kind: 'fail'; readonly code: ErrorCode; readonly message: string };

/** One step of a workflow, built from a row of the workflow's step table (stepOfRow). */
export interface WorkflowStep<S> {
  /** For logs and metrics (`fund-gas`, `sweep`, `withdrawal` …). */
  readonly name: string;
  /**
   * Plans the step from the chain as it is now; called only when no transaction of the step is open. `lost`: the
   * earlier transaction this step awaits was lost (reverted or dead) in a step that must finish: plan with that
   * known (the subject already notes it; a decision that sends or completes saves that note with it).
   */
  plan(subject: S, lost?: PreparedTransaction): Promise<StepDecision<S>>;
  /** When a sent transaction completes the step: at a depth, or once a node accepted it; possibly per subject. */
  readonly completion: Completion | ((subject: S) => Completion);
  /** The depth the executor is configured with: an awaited earlier transaction is followed to it. */
  readonly depth: Completion;
  /** From the step table: the step runs after money moved (the money policy's `mustFinish` column). */
  readonly mustFinish: boolean;
  /** From the step table: an earlier step's transaction the runner follows before this step plans or completes. */
  readonly awaits: 'plan' | 'complete' | null;
  /**
   * A confirmed transaction that does not end the step (a top-up delegation while waiting for energy): the
   * subject with that transaction closed, after which the step plans again. Absent or null: the step completes.
   */
  afterConfirmed?(subject: S, record: PreparedTransaction, now: number): S | null;
}

/** What a step-table row says (core/domain: COLLECTION_STEPS, RECLAIM_STEPS, COMMAND_STEPS). */
export interface StepTableRow {
  readonly step: string;
  readonly mustFinish: boolean;
  readonly completion: 'depth' | 'accepted' | 'pipelined';
  readonly awaits: { readonly before: 'plan' | 'complete' } | null;
}

/**
 * A workflow step from its table row: its name, mustFinish, completion and awaits are the row's (the executor's
 * configured `depth` for `depth`; for `pipelined`, acceptance when `pipelined(subject)` says its open record is);
 * the plan and the after-confirmation hook are the workflow's code.
 */
export function stepOfRow<S>(
  row: StepTableRow, depth: Completion, code: Pick<WorkflowStep<S>, 'plan' | 'afterConfirmed'>, pipelined?: (subject: S) => boolean,
): WorkflowStep<S> {
  const completion: WorkflowStep<S>['completion'] = row.completion === 'accepted' ? 'accepted'
    : row.completion === 'depth' || pipelined === undefined ? depth
      : (subject: S) => (pipelined(subject) ? 'accepted' : depth);
  return {
    name: row.step, mustFinish: row.mustFinish, awaits: row.awaits?.before ?? null, completion, depth,
    plan: code.plan, ...(code.afterConfirmed === undefined ? {} : { afterConfirmed: code.afterConfirmed }),
  };
}

/** How the runner reaches a kind of workflow in the store, and what its transitions write. */
export interface Workflow<S extends Versioned> {
  /** `collection`, `reclaim`, `command`: in logs. */
  readonly name: string;
  key(subject: S): string;
  /** Claims one due subject under a lease (atomically in the store); null when none is due. */
  claim(now: number, owner: string, leaseMs: number): Promise<S | null>;
  /**
   * Claims up to `limit` due subjects at once, each as `claim` would, earliest due first. Optional: a runner with
   * several lanes then claims for all of them in one round trip (decision 163).
   */
  claimSeveral?(now: number, owner: string, leaseMs: number, limit: number): Promise<S[]>;
  get(key: string): Promise<S | null>;
  /** Whether `owner` still holds the subject's lease. */
  holds(subject: S, owner: string): boolean;
  /** The step the subject is in, or null when nothing is left to run. */
  stepOf(subject: S): WorkflowStep<S> | null;
  /** The write-ahead record of the current step's open transaction, if any. */
  openRecord(subject: S): PreparedTransaction | null;
  /** The subject with the open record replaced (a refusal noted) or dropped (null: proven dead, plan again). */
  withRecord(subject: S, record: PreparedTransaction | null): S;
  /**
   * A transaction of the subject is in a block (its receipt: fees burnt, success or revert): the subject with it
   * noted (cost accounting), saved with the next write. Called once per receipt seen; optional.
   */
  noteReceipt?(subject: S, record: PreparedTransaction, state: TransactionState): S;
  /**
   * The transaction an earlier step sent that the current step awaits (its table row's `awaits`), not settled yet
   * (no receipt noted, not proven dead); null when there is none. Needed by workflows whose tables have `awaits`.
   */
  awaited?(subject: S): PreparedTransaction | null;
  /** A transaction proven never included: the subject with it settled at no cost (so it is not awaited again). */
  noteDead?(subject: S, record: PreparedTransaction): S;
  /** When the current step started (Clock ms): how long it has been running, for the stuck flag. */
  stepStartedAt(subject: S): number;
  /** The subject with its lease released and its next look due at `at`. */
  released(subject: S, at: number): S;
  /**
   * The subject released to its lease's owner alone (decision 160): stored due at `lease.expiresAt`, when any runner
   * may claim it; until then only the owner looks at it, from memory, without a claim. Optional: a workflow whose
   * subjects other writers change while they wait (a withdrawal's approval) leaves it out and is always released.
   */
  kept?(subject: S, lease: { readonly owner: string; readonly expiresAt: number }): S;
  /**
   * Completes the current step (its transaction confirmed, or nothing to send): the transition, saved with the lease
   * kept (`next`, the stage goes on), the workflow's end (`ended`, the terminal subject as stored), or the transition
   * left for the stage's next write to carry (`unsaved`: the subject at its stored version; decision 157). Only a
   * transition that writes nothing but the subject may be left unsaved: until that write, the store still shows the
   * step open, and a crash makes the next stage follow it to the same completion again.
   */
  complete(subject: S, record: PreparedTransaction | null): Promise<{ readonly next: S } | { readonly ended: S } | { readonly unsaved: S }>;
  /**
   * Ends the workflow FAILED (never asked for a step that must finish); returns the terminal subject as stored.
   * `decided`: the step's own plan decided the failure (a refusal), not an error or the chain's evidence (a command's
   * step table routes such a refusal, COMMAND_STEPS' failsAs).
   */
  fail(subject: S, code: ErrorCode, message: string, decided?: boolean): Promise<S>;
  /** Optimistic write: the stored version must be `readVersion`; returns what was stored (version readVersion + 1). */
  save(next: S, readVersion: number): Promise<S>;
}

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
 * The one chain-write protocol of every workflow (collections, reclaims, withdrawals, staking): claim a due subject
 * under a store lease, then step by step: plan from the chain → sign → persist the write-ahead record (stamped
 * `broadcastAt`) → send → follow the txid until chain evidence ends it → transition. Each write names the version
 * it read, so a runner whose lease was taken over loses its next write and stops.
 *
 * The money rule: once a transaction may have been sent, only chain evidence ends its step (write-ahead.ts). Every
 * other error while following it (node refusals and HTTP failures, lost replies, store failures, unknown node
 * answers) leaves the step waiting with backoff; the workflow never ends on it and never releases its lock. Before
 * anything is sent, business errors (DomainError) and permanent chain errors end the workflow FAILED, unless the
 * step must finish. Store failures never decide anything: they retry. Errors of no known class escape like a crash
 * (the lease runs out and another stage resumes).
 */
export class WorkflowRunner<S extends Versioned> {
  private readonly owner: string;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly stuckAfterMs: number;
  private readonly maxSteps: number;
  private readonly concurrency: number;
  private readonly backoff: RetryBackoff;
  /** Last stuck report per subject, so the log says it once per stuckAfterMs, not every poll. */
  private readonly stuckReported = new Map<string, number>();
  private readonly keepMax: number;
  /** Subjects this runner keeps (their lease is its own, stored due at its end): each as stored, and when it is due here. */
  private readonly kept = new Map<string, { readonly subject: S } & Kept>();
  /** Subjects claimed with another in one round trip and not run yet (due now, leased here): run before any other claim. */
  private readonly ahead = new Map<string, { readonly subject: S } & Kept>();

  constructor(
    private readonly workflow: Workflow<S>,
    private readonly deps: {
      readonly clock: Clock; readonly chain: ChainGateway; readonly log?: RunnerLog; readonly hooks?: RunnerHooks;
      /** The receipts of the blocks the scanner of this process read (issue #27); without it every follow asks a node. */
      readonly evidence?: TransactionEvidence;
    },
    options: RunnerOptions,
  ) {
    this.owner = options.owner;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollMs = options.pollMs ?? 3_000;
    this.stuckAfterMs = options.stuckAfterMs ?? 15 * 60_000;
    this.maxSteps = options.maxStepsPerStage ?? 8;
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
    this.backoff = new RetryBackoff(options.retryBaseMs ?? 1_000, options.retryMaxMs ?? 60_000);
    this.keepMax = workflow.kept === undefined ? 0 : Math.max(0, Math.floor(options.keepMax ?? 1_000));
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
   * Claims one due subject, or resumes one this runner keeps, and runs one stage of it; null when nothing is due.
   * `onClaimed` is told once a subject is claimed, before its stage runs. Subjects claimed ahead (claim) go first,
   * then the store, then the kept ones: subjects started earlier must not hold back the first stages of others (each
   * sweep's stages are a block apart, so starting them all early ends them all early); `pass.storeDry` says a claim
   * of this pass found nothing, so none is tried again.
   */
  async runOnce(onClaimed?: () => void, pass = { storeDry: false }): Promise<RunResult<S> | null> {
    const now = this.deps.clock.now();
    let claimed = this.ahead.size === 0 ? null : await this.resume(this.ahead, now);
    if (claimed === null && !pass.storeDry) {
      claimed = await this.claim(now);
      pass.storeDry = claimed === null;
    }
    claimed ??= await this.resume(this.kept, now);
    if (claimed === null) return null;
    onClaimed?.();
    const key = this.workflow.key(claimed);
    // A subject kept here whose lease ran out and that this runner claimed again from the store: the store's is current.
    this.kept.delete(key);
    const progress: Progress<S> = { subject: claimed, sent: false, kept: null };
    try {
      try {
        // One stage is one moment's view of the chain: a state read its steps repeat is asked once (ChainGateway.moment).
        const result = await (this.deps.chain.moment?.(() => this.stage(progress)) ?? this.stage(progress));
        if (result.outcome !== 'retrying') this.backoff.reset(key);
        if (result.outcome === 'finished') this.stuckReported.delete(key);
        if (progress.kept !== null && this.workflow.holds(progress.subject, this.owner)) this.kept.set(key, { subject: progress.subject, ...progress.kept });
        return result;
      } catch (error) {
        return await this.onError(key, progress, error);
      }
    } catch (error) {
      if (error instanceof ConcurrencyConflict) return { key, outcome: 'lost-lease', sent: progress.sent, subject: progress.subject };
      // Recording the failure failed too (the store is down, or applied a write and reported an error): the lease
      // runs out and the subject resumes, which is exactly what a crash here would lead to.
      if (error instanceof InfrastructureError || error instanceof DomainError || error instanceof WorkflowRefusal) {
        this.deps.log?.warn({ workflow: this.workflow.name, key, err: describeRefusal(error) }, 'workflow stage could not record its failure');
        return { key, outcome: 'retrying', sent: progress.sent, subject: progress.subject };
      }
      throw error;
    }
  }

  /**
   * A subject of `from` (kept, or claimed ahead) that is due, taken out of memory (the first found: they are held in
   * about the order they fall due); null when none is. One with less than half a lease left has its lease renewed
   * first, by a versioned write that loses to any other runner's claim, exactly as a claim would.
   */
  private async resume(from: Map<string, { readonly subject: S } & Kept>, now: number): Promise<S | null> {
    for (const [key, entry] of from) {
      if (entry.dueAt > now) continue;
      from.delete(key);
      if (now + this.leaseMs / 2 <= entry.expiresAt) return entry.subject;
      try {
        return await this.workflow.save(this.workflow.kept!(entry.subject, { owner: this.owner, expiresAt: now + this.leaseMs }), entry.subject.version);
      } catch (error) {
        // Claimed by another runner since (or the store is down: the lease runs out and the subject is claimed again).
        if (error instanceof ConcurrencyConflict || error instanceof InfrastructureError) continue;
        throw error;
      }
    }
    return null;
  }

  /**
   * Releases every subject this runner keeps (a stopping worker): due when it was due here, for any runner. A subject
   * changed since (a lost lease) or a store that fails is left to its lease's end.
   */
  async releaseKept(): Promise<void> {
    const entries = [...this.ahead.values(), ...this.kept.values()];
    this.ahead.clear();
    this.kept.clear();
    for (const { subject, dueAt } of entries) {
      await this.workflow.save(this.workflow.released(subject, dueAt), subject.version).catch((error: unknown) => {
        if (!(error instanceof ConcurrencyConflict || error instanceof InfrastructureError)) throw error;
      });
    }
  }

  /** How many subjects this runner keeps now, claimed ahead ones included (for tests and metrics). */
  keptCount(): number {
    return this.kept.size + this.ahead.size;
  }

  /**
   * One due subject from the store. A runner with several lanes that may keep subjects claims one per lane in one
   * round trip and holds the others as claimed ahead (the lanes it opens next take them); else one claim.
   */
  private async claim(now: number): Promise<S | null> {
    if (this.workflow.claimSeveral === undefined || this.concurrency === 1 || this.keepMax === 0) {
      return this.workflow.claim(now, this.owner, this.leaseMs);
    }
    const [first, ...others] = await this.workflow.claimSeveral(now, this.owner, this.leaseMs, this.concurrency);
    for (const subject of others) this.ahead.set(this.workflow.key(subject), { subject, dueAt: now, expiresAt: now + this.leaseMs });
    return first ?? null;
  }

  /** Steps until one has to wait for the chain or the workflow ends (at most maxStepsPerStage steps). */
  private async stage(progress: Progress<S>): Promise<RunResult<S>> {
    const key = this.workflow.key(progress.subject);
    let outcome: RunResult<S>['outcome'] = 'advanced';
    for (let i = 0; i < this.maxSteps; i++) {
      const subject = progress.subject;
      const step = this.workflow.stepOf(subject);
      if (step === null) return { key, outcome: 'finished', sent: progress.sent, subject };
      const record = this.workflow.openRecord(subject);
      const next = record === null ? await this.plan(progress, step) : await this.follow(progress, step, record);
      if (next !== 'continue') return { key, outcome: next, sent: progress.sent, subject: progress.subject };
      outcome = 'advanced';
    }
    await this.release(progress, this.deps.clock.now(), true);
    return { key, outcome, sent: progress.sent, subject: progress.subject };
  }

  /** A step with nothing open: what it awaits first (when before its plan), then its plan and the decision. */
  private async plan(progress: Progress<S>, step: WorkflowStep<S>): Promise<Step> {
    if (step.awaits === 'plan') {
      const awaited = await this.followAwaited(progress, step);
      if (awaited !== 'go') return awaited;
    }
    return this.decide(progress, step, await step.plan(progress.subject));
  }

  /** Acts on a step's decision (a step that awaits before completing completes only once that has landed). */
  private async decide(progress: Progress<S>, step: WorkflowStep<S>, decision: StepDecision<S>): Promise<Step> {
    switch (decision.kind) {
      case 'send':
        return this.send(progress, step, decision);
      case 'complete': {
        if (step.awaits === 'complete') {
          if (decision.subject !== undefined) progress.subject = decision.subject;
          const awaited = await this.followAwaited(progress, step);
          if (awaited !== 'go') return awaited;
          return this.completeStep(progress, progress.subject, null);
        }
        return this.completeStep(progress, decision.subject ?? progress.subject, null);
      }
      case 'wait': {
        // The subject's changes and the release are one write.
        if (decision.subject !== undefined) progress.subject = decision.subject;
        await this.release(progress, this.deps.clock.now() + (decision.delayMs ?? this.pollMs), true);
        return 'waiting';
      }
      case 'retry':
        return this.retry(progress, step, new Error(decision.reason));
      case 'fail':
        if (step.mustFinish) throw new WorkflowRefusal(`${step.name} cannot fail (${decision.code}: ${decision.message})`);
        progress.subject = await this.workflow.fail(progress.subject, decision.code, decision.message, true);
        return 'finished';
    }
  }

  /**
   * The earlier transaction the step awaits, followed like the step's own (the money policy's AWAITED table):
   * `go` once there is none left unsettled (a landed one's receipt noted into the subject, saved with the next
   * write); else the stage ends waiting, failed, or (lost in a step that must finish) with the step planned again
   * knowing the loss.
   */
  private async followAwaited(progress: Progress<S>, step: WorkflowStep<S>): Promise<Step | 'go'> {
    const tx = this.workflow.awaited?.(progress.subject) ?? null;
    if (tx === null) return 'go';
    const state = await this.followed(tx, step.depth);
    const evidence = evidenceOf(state, tx);
    switch (onAwaited(evidence, step.mustFinish)) {
      case 'complete':
        // Followed to a depth, a confirmed transaction comes with its receipt (only an 'accepted' one comes without).
        if (state.kind !== 'confirmed' || state.state === null) return this.waitFor(progress, step);
        progress.subject = this.noteReceipt(progress.subject, tx, state.state);
        return 'go';
      case 'wait':
        return this.waitFor(progress, step);
      case 'fail': {
        const lost = lostMessage(step, tx, state);
        if (state.kind === 'reverted') progress.subject = this.noteReceipt(progress.subject, tx, state.state);
        progress.subject = await this.workflow.fail(progress.subject, lost.code, lost.message);
        return 'finished';
      }
      case 'replan': {
        const before = progress.subject;
        const noted = state.kind === 'reverted' ? this.noteReceipt(before, tx, state.state) : this.workflow.noteDead?.(before, tx) ?? before;
        const decision = await step.plan(noted, tx);
        // The loss is saved only with a decision that acts on it; otherwise it is seen again on the next visit.
        progress.subject = decision.kind === 'send' || decision.kind === 'complete' ? noted : before;
        if (decision.kind === 'complete') return this.completeStep(progress, decision.subject ?? noted, null);
        return this.decide(progress, step, decision);
      }
      default:
        throw new WorkflowRefusal(`no awaited action for ${evidence}`);
    }
  }

  private async waitFor(progress: Progress<S>, step: WorkflowStep<S>): Promise<Step> {
    this.checkStuck(progress.subject, step);
    await this.release(progress, await this.nextBlockLook(), true);
    return 'waiting';
  }

  /**
   * When to look for a transaction sent now, or not in a block yet: just after the next block (the head's time plus
   * one poll interval, TRON's block time, plus a margin for the block to reach the node), not a whole poll interval
   * after now: a look a poll after a send made late in a slot waits most of a block for nothing, and one made early
   * may come before its block. A head whose time is not within a poll interval before now (the chain's clock is not
   * this one, as on a devnet with virtual time, or the head is overdue or unreadable) falls back to a poll from now.
   */
  private async nextBlockLook(): Promise<number> {
    const now = this.deps.clock.now();
    let head: number;
    try {
      head = (await this.deps.chain.head()).timestamp;
    } catch {
      return now + this.pollMs;
    }
    if (!(head <= now && now - head < this.pollMs)) return now + this.pollMs;
    return Math.max(now + NEXT_BLOCK_MARGIN_MS, head + this.pollMs + NEXT_BLOCK_MARGIN_MS);
  }

  /**
   * Write-ahead, then the first send. A refused or unanswered send leaves the transaction open: it is followed.
   * A step that completes on a later block (not on the node's acceptance) releases its subject in the write-ahead
   * write itself, due a poll later (decision 156): one store write fewer per transaction. The lease then no longer
   * covers the broadcast, which is safe under the money rule: the record is stored before the send, so whoever
   * claims the subject after the poll only follows that one signed transaction (a re-send of it is the same txid),
   * and this runner's later writes (a refusal noted) name the version they read, so they lose to such a claim.
   */
  private async send(progress: Progress<S>, step: WorkflowStep<S>, decision: Extract<StepDecision<S>, { kind: 'send' }>): Promise<Step> {
    const now = this.deps.clock.now();
    const record = writeAheadRecord(decision.tx, now);
    const persisted = decision.persist(record);
    const onAcceptance = completionOf(step, persisted) === 'accepted';
    const look = onAcceptance ? now : await this.nextBlockLook();
    progress.subject = await this.workflow.save(onAcceptance ? persisted : this.releasedAt(progress, persisted, look, true), progress.subject.version);
    progress.sent = true;
    try {
      await broadcastPrepared(this.deps.chain, record);
    } catch (error) {
      const refused = this.workflow.withRecord(progress.subject, { ...record, refusal: describeRefusal(error) });
      progress.subject = await this.workflow.save(refused, progress.subject.version);
      return this.retry(progress, step, error);
    }
    if (onAcceptance) return this.completeStep(progress, progress.subject, record);
    return 'advanced';
  }

  /** A step with an open transaction: only chain evidence moves it on (write-ahead.ts; money-policy.ts FOLLOWED). */
  private async follow(progress: Progress<S>, step: WorkflowStep<S>, record: PreparedTransaction): Promise<Step> {
    const state = await this.followed(record, completionOf(step, progress.subject));
    const evidence = evidenceOf(state, record);
    const action = onFollowed(evidence, step.mustFinish);
    switch (state.kind) {
      case 'confirmed': {
        const noted = state.state === null ? progress.subject : this.noteReceipt(progress.subject, record, state.state);
        const closed = step.afterConfirmed?.(noted, record, this.deps.clock.now()) ?? null;
        if (closed === null) return this.completeStep(progress, noted, record);
        progress.subject = await this.workflow.save(closed, progress.subject.version);
        return 'continue';
      }
      case 'waiting': {
        // A refusal of the operation itself stays on the record over later ones about freshness (expired, TaPoS).
        const keep = isValidationRefusal(record.refusal) && !isValidationRefusal(state.refusal);
        if (state.refusal !== null && !keep && state.refusal !== (record.refusal ?? null)) {
          const noted = this.workflow.withRecord(progress.subject, { ...record, refusal: state.refusal });
          progress.subject = await this.workflow.save(noted, progress.subject.version);
        }
        if (action === 'wait') return this.waitFor(progress, step);
        return this.retry(progress, step, new Error(state.refusal ?? 'refused'));
      }
      case 'reverted': {
        const message = `${step.name} transaction ${record.txid} failed on chain: ${state.reason}`;
        const noted = this.noteReceipt(progress.subject, record, state.state);
        if (action === 'fail') {
          progress.subject = await this.workflow.fail(noted, 'CHAIN-TRANSACTION-FAILED', message);
          return 'finished';
        }
        // It moved nothing but its fee: drop it and plan again from the chain, later.
        progress.subject = await this.workflow.save(this.workflow.withRecord(noted, null), progress.subject.version);
        return this.retry(progress, step, new Error(message));
      }
      case 'dead': {
        if (action === 'fail') {
          progress.subject = await this.workflow.fail(progress.subject, 'CHAIN-BROADCAST-FAILED',
            `${step.name} transaction ${record.txid} expired unsent: ${record.refusal}`);
          return 'finished';
        }
        // Provably never included: plan anew (a crash before the send, a dropped or expired transaction).
        progress.subject = await this.workflow.save(this.workflow.withRecord(progress.subject, null), progress.subject.version);
        return 'continue';
      }
    }
  }

  /** followOperation on the evidence of this process's scanner, when there is one; each follow's source counted. */
  private followed(tx: PreparedTransaction, completion: Completion): Promise<OperationState> {
    return followOperation(this.deps.chain, tx, completion, this.deps.evidence ?? null,
      (source) => this.deps.hooks?.onFollow?.(this.workflow.name, source));
  }

  private noteReceipt(subject: S, record: PreparedTransaction, state: TransactionState): S {
    return this.workflow.noteReceipt?.(subject, record, state) ?? subject;
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

  /**
   * After a failed stage: the money policy's ON_ERROR table, by the error's class, whether a transaction of the step
   * is open and whether the step must finish. Store failures never decide anything.
   */
  private async onError(key: string, progress: Progress<S>, error: unknown): Promise<RunResult<S>> {
    const kind = errorClassOf(error);
    // Lost lease and unknown errors act the same in every column (asserted by the policy's test): decided before reading.
    const early = onPolicyError(kind, false, false);
    if (early === 'stop' || early === 'crash') throw error;
    // Re-read: the stage may have written since the claim, and this write must name the stored version.
    const current = await this.workflow.get(key);
    if (current === null || !this.workflow.holds(current, this.owner)) throw new ConcurrencyConflict(this.workflow.name, key);
    progress.subject = current;
    const step = this.workflow.stepOf(current);
    if (step === null) return { key, outcome: 'finished', sent: progress.sent, subject: current };
    const open = this.workflow.openRecord(current) !== null;
    if (onPolicyError(kind, open, step.mustFinish) === 'retry') {
      await this.retry(progress, step, error);
      return { key, outcome: 'retrying', sent: progress.sent, subject: progress.subject };
    }
    this.backoff.reset(key);
    const ended = await this.workflow.fail(current, (error as DomainError | InfrastructureError).code, (error as Error).message);
    return { key, outcome: 'finished', sent: progress.sent, subject: ended };
  }

  /** Releases the subject with a backoff delay (the node's Retry-After when longer) and reports the failure. */
  private async retry(progress: Progress<S>, step: WorkflowStep<S>, error: unknown): Promise<Step> {
    const key = this.workflow.key(progress.subject);
    const backoff = this.backoff.next(key);
    const delay = error instanceof ChainError && error.retryAfterMs !== null ? Math.max(backoff, error.retryAfterMs) : backoff;
    this.deps.hooks?.onRetry?.(this.workflow.name, key, step.name, error);
    if (error instanceof WorkflowRefusal) this.deps.log?.error({ workflow: this.workflow.name, key, step: step.name, err: error.message }, 'workflow refused a step');
    this.checkStuck(progress.subject, step, error);
    await this.release(progress, this.deps.clock.now() + delay);
    return 'retrying';
  }

  /**
   * Releases the subject, due at `at`; `keep` (a stage that waits for the chain): kept by this runner instead, while
   * it keeps fewer than keepMax (decision 160).
   */
  private async release(progress: Progress<S>, at: number, keep = false): Promise<void> {
    progress.subject = await this.workflow.save(this.releasedAt(progress, progress.subject, at, keep), progress.subject.version);
  }

  /** The subject released at `at`, or kept (noted in `progress`, so the stage's end keeps it in memory). */
  private releasedAt(progress: Progress<S>, subject: S, at: number, keep: boolean): S {
    if (!keep || this.workflow.kept === undefined || this.kept.size >= this.keepMax) {
      progress.kept = null;
      return this.workflow.released(subject, at);
    }
    progress.kept = { dueAt: at, expiresAt: at + this.leaseMs };
    return this.workflow.kept(subject, { owner: this.owner, expiresAt: at + this.leaseMs });
  }

  /** Logs (once per stuckAfterMs) a step that has been running too long, with the error that last retried it: an operator should look. */
  private checkStuck(subject: S, step: WorkflowStep<S>, error?: unknown): void {
    const now = this.deps.clock.now();
    const forMs = now - this.workflow.stepStartedAt(subject);
    if (forMs < this.stuckAfterMs) return;
    const key = this.workflow.key(subject);
    const last = this.stuckReported.get(key);
    if (last !== undefined && now - last < this.stuckAfterMs) return;
    if (this.stuckReported.size >= 10_000) this.stuckReported.delete(this.stuckReported.keys().next().value!);
    this.stuckReported.set(key, now);
    const record = this.workflow.openRecord(subject);
    this.deps.log?.warn({
      workflow: this.workflow.name, key, step: step.name, forMs, txid: record?.txid ?? null, refusal: record?.refusal ?? null,
      ...(error === undefined ? {} : { lastError: describeRefusal(error) }),
    }, 'workflow stuck');
    this.deps.hooks?.onStuck?.(this.workflow.name, key, step.name, forMs);
  }
}

/**
 * A stage's running state: the subject as last saved, whether a transaction went out, and whether its last release
 * kept it for this runner.
 */
interface Progress<S> {
  subject: S;
  sent: boolean;
  kept: Kept | null;
}

/** A subject kept by its runner: due there at `dueAt`; its lease (and its due time in the store) ends at `expiresAt`. */
interface Kept {
  readonly dueAt: number;
  readonly expiresAt: number;
}

/** After a block's time, how long a runner waits for it to reach the node before looking for a transaction in it. */
const NEXT_BLOCK_MARGIN_MS = 600;

/** What a step visit leads to: go on with the next step, or end the stage so. */
type Step = 'continue' | 'advanced' | 'waiting' | 'retrying' | 'finished';

function completionOf<S>(step: WorkflowStep<S>, subject: S): Completion {
  return typeof step.completion === 'function' ? step.completion(subject) : step.completion;
}

/** What followOperation found, in the money policy's terms (a dead transaction a node refused as invalid is apart). */
function evidenceOf(state: OperationState, record: PreparedTransaction): Evidence {
  switch (state.kind) {
    case 'confirmed':
      return 'confirmed';
    case 'waiting':
      return state.refusal === null ? 'waiting' : 'refused';
    case 'reverted':
      return 'reverted';
    case 'dead':
      return isValidationRefusal(record.refusal) ? 'dead-refused' : 'dead';
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

/** Why an awaited transaction's loss fails the step that waited for it. */
function lostMessage<S>(step: WorkflowStep<S>, tx: PreparedTransaction, state: OperationState): { code: ErrorCode; message: string } {
  return state.kind === 'reverted'
    ? { code: 'CHAIN-TRANSACTION-FAILED', message: `the transaction ${step.name} waits for (${tx.txid}) failed on chain: ${state.reason}` }
    : { code: 'CHAIN-BROADCAST-FAILED', message: `the transaction ${step.name} waits for (${tx.txid}) expired unsent` };
}
