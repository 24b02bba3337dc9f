/**
 * The money rule as tables: what the stage protocol (stage-protocol.ts) does with a step's own decision, with a
 * transaction it just handed to a node, with the chain's evidence about a transaction, and with an error a stage
 * raised, given whether a transaction of the step may be out (`open`) and whether the step runs after money moved
 * (`mustFinish`, from the workflow's step table). The protocol switches on the action a table gives and on nothing
 * else: every rule about sending, following and failing is a cell here; write-ahead.ts says what the evidence is.
 *
 * Actions, each with one meaning wherever a table names it:
 * - `send`: store the transaction's write-ahead record, then hand it to a node;
 * - `complete`: the transaction (or the step's plan) completes what it was for: its receipt noted, the step
 *   completes (or, for a transaction the step awaits, the step goes on);
 * - `advance`: the transaction is out and the write-ahead write already released the subject to the next block's look:
 *   the stage ends;
 * - `wait`: look again just after the next block (a plan's own wait: after its delay);
 * - `retry`: look again after the backoff, the node's refusal (if any) noted on the record;
 * - `replan`: the transaction can move nothing any more: it is settled (an open one dropped, an awaited one noted
 *   lost) and the step plans again, now;
 * - `drop-and-retry`: it reverted, moving nothing but its fee: dropped, and the step plans again after the backoff;
 * - `fail`: end the workflow FAILED; `stop`: another runner owns the subject now; `crash`: an error of no known class,
 *   which escapes like a crash (the lease runs out and another stage resumes).
 */
export type MoneyAction = 'send' | 'complete' | 'advance' | 'wait' | 'retry' | 'replan' | 'drop-and-retry' | 'fail' | 'stop' | 'crash';

/**
 * Where a followed transaction stands (write-ahead.ts followOperation, sendPrepared): confirmed at the step's
 * completion, waiting for the chain, waiting after a node refused or failed the (re)send (`refused`), reverted on
 * chain, or provably dead, after a node had refused the operation itself (`dead-refused`: its validation, signature,
 * size) or not (`dead`).
 */
export type Evidence = 'confirmed' | 'waiting' | 'refused' | 'reverted' | 'dead' | 'dead-refused';

/** What a step's plan decided with no transaction open (workflow.ts StepDecision). */
export type Decision = 'send' | 'complete' | 'wait' | 'retry' | 'fail';

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

/** The step's own plan, nothing open. A step that must finish never fails: its plan's failure retries. */
export const DECIDED = {
  send: { mayFail: 'send', mustFinish: 'send' },
  complete: { mayFail: 'complete', mustFinish: 'complete' },
  wait: { mayFail: 'wait', mustFinish: 'wait' },
  retry: { mayFail: 'retry', mustFinish: 'retry' },
  fail: { mayFail: 'fail', mustFinish: 'retry' },
} as const satisfies Record<Decision, ByMustFinish<'send' | 'complete' | 'wait' | 'retry' | 'fail'>>;

/**
 * The first send of a transaction whose write-ahead record is stored: accepted by a node when that completes the
 * step (`confirmed`) or not (`waiting`: the write-ahead write released the subject to the next block's look,
 * decision 156), or refused or unanswered (`refused`: it stays open and is followed).
 */
export const SENT = {
  confirmed: { mayFail: 'complete', mustFinish: 'complete' },
  waiting: { mayFail: 'advance', mustFinish: 'advance' },
  refused: { mayFail: 'retry', mustFinish: 'retry' },
} as const satisfies Record<'confirmed' | 'waiting' | 'refused', ByMustFinish<'complete' | 'advance' | 'retry'>>;

/** The step's own open transaction, by its evidence. */
export const FOLLOWED = {
  confirmed: { mayFail: 'complete', mustFinish: 'complete' },
  waiting: { mayFail: 'wait', mustFinish: 'wait' },
  refused: { mayFail: 'retry', mustFinish: 'retry' },
  // It moved nothing but its fee. After money moved the step must still get done: plan it again, after the backoff.
  reverted: { mayFail: 'fail', mustFinish: 'drop-and-retry' },
  dead: { mayFail: 'replan', mustFinish: 'replan' },
  // Never included, and a node refused the operation itself: sending it again cannot help.
  'dead-refused': { mayFail: 'fail', mustFinish: 'replan' },
} as const satisfies Record<Evidence, ByMustFinish<'complete' | 'wait' | 'retry' | 'replan' | 'drop-and-retry' | 'fail'>>;

/**
 * A transaction an EARLIER step sent and completed on acceptance (it shares a block with this step's), which this
 * step waits for (the step table's `awaits`), followed into a block. Lost (reverted or dead), the step it fed cannot
 * go on: a step that may fail fails; one that must finish plans again, knowing it was lost.
 */
export const AWAITED = {
  confirmed: { mayFail: 'complete', mustFinish: 'complete' },
  waiting: { mayFail: 'wait', mustFinish: 'wait' },
  refused: { mayFail: 'wait', mustFinish: 'wait' },
  reverted: { mayFail: 'fail', mustFinish: 'replan' },
  dead: { mayFail: 'fail', mustFinish: 'replan' },
  'dead-refused': { mayFail: 'fail', mustFinish: 'replan' },
} as const satisfies Record<Evidence, ByMustFinish<'complete' | 'wait' | 'replan' | 'fail'>>;

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
} as const satisfies Record<ErrorClass, { readonly idle: ByMustFinish<'retry' | 'fail' | 'stop' | 'crash'>; readonly open: ByMustFinish<'retry' | 'fail' | 'stop' | 'crash'> }>;

type Column = keyof ByMustFinish<MoneyAction>;
const column = (mustFinish: boolean): Column => (mustFinish ? 'mustFinish' : 'mayFail');

/** The action for a step's own decision. */
export function onDecided(decision: Decision, mustFinish: boolean): (typeof DECIDED)[Decision][Column] {
  return DECIDED[decision][column(mustFinish)];
}

/** The action for a transaction just handed to a node. */
export function onSent(evidence: keyof typeof SENT, mustFinish: boolean): (typeof SENT)[keyof typeof SENT][Column] {
  return SENT[evidence][column(mustFinish)];
}

/** The action for the step's own open transaction. */
export function onFollowed(evidence: Evidence, mustFinish: boolean): (typeof FOLLOWED)[Evidence][Column] {
  return FOLLOWED[evidence][column(mustFinish)];
}

/** The action for an earlier step's transaction that this step waits for. */
export function onAwaited(evidence: Evidence, mustFinish: boolean): (typeof AWAITED)[Evidence][Column] {
  return AWAITED[evidence][column(mustFinish)];
}

/** The action for an error a stage raised. */
export function onError(error: ErrorClass, open: boolean, mustFinish: boolean): (typeof ON_ERROR)[ErrorClass]['idle'][Column] {
  return ON_ERROR[error][open ? 'open' : 'idle'][column(mustFinish)];
}
