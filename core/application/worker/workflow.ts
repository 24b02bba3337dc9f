import type { ErrorCode } from '../../domain/errors.js';
import type { PreparedTransaction } from '../../domain/model/command.js';
import type { SignedTransaction, TransactionState } from '../../domain/model/chain.js';
import type { Lease, Versioned } from '../../domain/model/common.js';
import type { Completion } from './write-ahead.js';

/**
 * What a workflow is to the runner (workflow-runner.ts): where its subjects are stored and leased (WorkflowStore,
 * read by the subject source), what one visit of a subject finds (Visit), and the transitions the stage protocol
 * asks for. The protocol itself, the money rule and the lanes are the runner's; the steps' plans and the stored
 * shape are the workflow's.
 */

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
 * - `fail`: end the workflow FAILED (a step that must finish retries instead: the money policy's DECIDED table).
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

/**
 * What one visit of a subject finds: the step it is in, that step's open transaction (its write-ahead record), the
 * earlier transaction the step awaits (its table row's `awaits`) not settled yet (no receipt noted, not proven dead),
 * and when the step started (Clock ms: how long it has been running, for the stuck flag).
 */
export interface Visit<S> {
  readonly step: WorkflowStep<S>;
  readonly open: PreparedTransaction | null;
  readonly awaited: PreparedTransaction | null;
  readonly startedAt: number;
}

/**
 * What a stage learnt about one of a subject's transactions, for the workflow to note (Workflow.note):
 * - `receipt`: it is in a block (fees burnt, success or revert): noted once per receipt seen (cost accounting);
 * - `dead`: an earlier transaction the step awaits, proven never included: settled at no cost, not awaited again;
 * - `refused`: a node refused the step's open transaction: the refusal kept on its record (`record` with it);
 * - `dropped`: the step's open transaction is dropped (proven never included, or reverted in a step that must
 *   finish): the step plans again.
 */
export type Seen =
  | { readonly kind: 'receipt'; readonly state: TransactionState }
  | { readonly kind: 'dead' }
  | { readonly kind: 'refused'; readonly refusal: string }
  | { readonly kind: 'dropped' };

/** Where a workflow's subjects are stored and leased: the subject source's port, and every stage's versioned write. */
export interface WorkflowStore<S extends Versioned> {
  key(subject: S): string;
  /**
   * Claims due subjects under a lease (atomically in the store), earliest due first: one, or up to `limit` at once
   * where the store can (a runner with several lanes then claims for all of them in one round trip, decision 163);
   * none when none is due.
   */
  claim(now: number, owner: string, leaseMs: number, limit: number): Promise<readonly S[]>;
  get(key: string): Promise<S | null>;
  /** Optimistic write: the stored version must be `readVersion`; returns what was stored (version readVersion + 1). */
  save(next: S, readVersion: number): Promise<S>;
  /** Whether `owner` still holds the subject's lease. */
  holds(subject: S, owner: string): boolean;
  /**
   * The one lease write: the subject due at `dueAt` under `lease`. Released: `lease` null, due for any runner at
   * `dueAt`. Kept by its lease's owner (decision 160): stored due at `lease.expiresAt` (= `dueAt`), when any runner
   * may claim it; until then only the owner looks at it, from memory, without a claim.
   */
  leased(subject: S, dueAt: number, lease: Lease | null): S;
  /**
   * Whether a runner may keep subjects between stages (a `leased` with a lease). False for a workflow whose subjects
   * other writers change while they wait (a withdrawal's approval): they are always released.
   */
  readonly keeps: boolean;
}

/** A store's single claim as the runner takes claims: none, or that one. */
export function listed<S>(claimed: S | null): readonly S[] {
  return claimed === null ? [] : [claimed];
}

/** How the runner reaches a kind of workflow: its store, one visit of a subject, and the transitions it writes. */
export interface Workflow<S extends Versioned> {
  /** `collection`, `reclaim`, `command`: in logs. */
  readonly name: string;
  readonly store: WorkflowStore<S>;
  /** The subject's step, open record, awaited transaction and start; null when nothing is left to run. */
  visit(subject: S): Visit<S> | null;
  /** What a stage learnt about one of the subject's transactions, noted into the subject (saved with the next write). */
  note(subject: S, record: PreparedTransaction, seen: Seen): S;
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
  /**
   * The subject's status for a stage's result (a collection's or a command's status value, a reclaim's
   * `pending`/`done`) and the error it ended with, null when none (or where the workflow records none).
   */
  statusOf(subject: S): { readonly status: number | string; readonly error: { readonly code: string; readonly message: string | null } | null };
}
