/**
 * The money rule as one table: what the workflow runner does with the chain's evidence about a transaction, or with
 * an error a stage raised, given whether a transaction of the step may be out (`open`) and whether the step runs
 * after money moved (`mustFinish`, from the workflow's step table). The runner looks its actions up here and has no
 * rule of its own (workflow-runner.ts); write-ahead.ts says what the evidence is.
 *
 * Actions:
 * - `complete`: the step is done (its transaction deep enough, or accepted when that completes it);
 * - `wait`: look again a poll later; `retry`: look again after the backoff (a failure, a refusal);
 * - `replan`: the transaction is provably not going to move anything more (dead, or reverted in a step that must
 *   finish): drop it and plan the step again from the chain;
 * - `fail`: end the workflow FAILED; `stop`: another runner owns the subject now; `crash`: an error of no known class,
 *   which escapes like a crash (the lease runs out and another stage resumes).
 */
export type MoneyAction = 'complete' | 'wait' | 'retry' | 'replan' | 'fail' | 'stop' | 'crash';

/**
 * Where a followed transaction stands (write-ahead.ts followOperation): confirmed at the step's completion, waiting
 * for the chain, waiting after a node refused or failed the resend (`refused`), reverted on chain, or provably dead,
 * after a node had refused the operation itself (`dead-refused`: its validation, signature, size) or not (`dead`).
 */
export type Evidence = 'confirmed' | 'waiting' | 'refused' | 'reverted' | 'dead' | 'dead-refused';

/**
 * The kind of an error a stage raised: a business rule (DomainError), a chain or other infrastructure error that is
 * permanent or transient, a workflow refusing its own stored state (WorkflowRefusal), a lost lease (a write
 * naming a version that is no longer stored), or anything else.
 */
export type ErrorClass =
  | 'business' | 'chain-permanent' | 'chain-transient' | 'infra-permanent' | 'infra-transient'
  | 'workflow-refusal' | 'lost-lease' | 'unknown';

/** `${mustFinish}` columns: a step that may end the workflow FAILED, and one that runs after money moved. */
interface ByMustFinish<A extends MoneyAction> {
  readonly mayFail: A;
  readonly mustFinish: A;
}

/** The step's own open transaction, by its evidence. */
export const FOLLOWED = {
  confirmed: { mayFail: 'complete', mustFinish: 'complete' },
  waiting: { mayFail: 'wait', mustFinish: 'wait' },
  refused: { mayFail: 'retry', mustFinish: 'retry' },
  // It moved nothing but its fee. After money moved the step must still get done: plan it again.
  reverted: { mayFail: 'fail', mustFinish: 'replan' },
  dead: { mayFail: 'replan', mustFinish: 'replan' },
  // Never included, and a node refused the operation itself: sending it again cannot help.
  'dead-refused': { mayFail: 'fail', mustFinish: 'replan' },
} as const satisfies Record<Evidence, ByMustFinish<MoneyAction>>;

/**
 * A transaction an EARLIER step sent and completed on acceptance (it shares a block with this step's), which this
 * step waits for (the step table's `awaits`). Lost (reverted or dead), the step it fed cannot go on: a step that
 * may fail fails; one that must finish plans again, knowing it was lost.
 */
export const AWAITED = {
  confirmed: { mayFail: 'complete', mustFinish: 'complete' },
  waiting: { mayFail: 'wait', mustFinish: 'wait' },
  refused: { mayFail: 'wait', mustFinish: 'wait' },
  reverted: { mayFail: 'fail', mustFinish: 'replan' },
  dead: { mayFail: 'fail', mustFinish: 'replan' },
  'dead-refused': { mayFail: 'fail', mustFinish: 'replan' },
} as const satisfies Record<Evidence, ByMustFinish<MoneyAction>>;

/**
 * An error, by whether a transaction of the step may be out. With one open, only chain evidence ends the step:
 * every error retries. Before anything is sent, a business rule or a permanent failure ends a step that may fail.
 */
export const ON_ERROR = {
  business: { idle: { mayFail: 'fail', mustFinish: 'retry' }, open: { mayFail: 'retry', mustFinish: 'retry' } },
  'chain-permanent': { idle: { mayFail: 'fail', mustFinish: 'retry' }, open: { mayFail: 'retry', mustFinish: 'retry' } },
  'infra-permanent': { idle: { mayFail: 'fail', mustFinish: 'retry' }, open: { mayFail: 'retry', mustFinish: 'retry' } },
  'chain-transient': { idle: { mayFail: 'retry', mustFinish: 'retry' }, open: { mayFail: 'retry', mustFinish: 'retry' } },
  'infra-transient': { idle: { mayFail: 'retry', mustFinish: 'retry' }, open: { mayFail: 'retry', mustFinish: 'retry' } },
  'workflow-refusal': { idle: { mayFail: 'retry', mustFinish: 'retry' }, open: { mayFail: 'retry', mustFinish: 'retry' } },
  'lost-lease': { idle: { mayFail: 'stop', mustFinish: 'stop' }, open: { mayFail: 'stop', mustFinish: 'stop' } },
  unknown: { idle: { mayFail: 'crash', mustFinish: 'crash' }, open: { mayFail: 'crash', mustFinish: 'crash' } },
} as const satisfies Record<ErrorClass, { readonly idle: ByMustFinish<MoneyAction>; readonly open: ByMustFinish<MoneyAction> }>;

const column = (mustFinish: boolean): keyof ByMustFinish<MoneyAction> => (mustFinish ? 'mustFinish' : 'mayFail');

/** The action for the step's own open transaction. */
export function onFollowed(evidence: Evidence, mustFinish: boolean): MoneyAction {
  return FOLLOWED[evidence][column(mustFinish)];
}

/** The action for an earlier step's transaction that this step waits for. */
export function onAwaited(evidence: Evidence, mustFinish: boolean): MoneyAction {
  return AWAITED[evidence][column(mustFinish)];
}

/** The action for an error a stage raised. */
export function onError(error: ErrorClass, open: boolean, mustFinish: boolean): MoneyAction {
  return ON_ERROR[error][open ? 'open' : 'idle'][column(mustFinish)];
}
