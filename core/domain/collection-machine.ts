import { COLLECTION_STATUS, type CollectionStatus, type EnergyPath } from './model/collection-task.js';
import type { AssetKind } from './model/asset.js';

/** Status names of spec §2's collection task enum. */
export type CollectionStatusName = keyof typeof COLLECTION_STATUS;

/** Triggers of spec §3: a step starts (PENDING only), completes, the energy threshold is met, or it fails for good. */
export type CollectionEvent = 'start' | 'step-completed' | 'threshold-met' | 'unrecoverable-error';

/** What the conditions of the table look at: the asset's kind and the energy path chosen in ACQUIRING_ENERGY. */
export interface CollectionContext {
  readonly assetKind: AssetKind;
  readonly energyPath: EnergyPath | null;
}

/**
 * The two flows spec §3 lists in one table: "the flow for a TRC20 asset (for example USDT) and for TRX". A row of
 * one flow never applies to a task of the other, so a TRX task can never sit in an energy step.
 */
export type CollectionFlow = 'trc20' | 'trx' | 'any';

/** Spec §3 conditions on top of the flow: which energy path ACQUIRING_ENERGY chose. */
export const COLLECTION_CONDITIONS = {
  'self-delegation-path': (ctx: CollectionContext) => ctx.energyPath === 'self',
  'not-self-delegation-path': (ctx: CollectionContext) => ctx.energyPath !== 'self',
} as const;
export type CollectionCondition = keyof typeof COLLECTION_CONDITIONS;

/** A task is created in PENDING (spec §3 row "(created) → PENDING"); creation is not an event of the machine. */
export const INITIAL_COLLECTION_STATUS: CollectionStatus = COLLECTION_STATUS.PENDING;

/** `'any-step'`: every non-terminal status (spec §3 row "any step | unrecoverable error | FAILED"). */
export const ANY_STEP = 'any-step';

/** Spec §3 collection task table, in its order, one row per line (its "TRC20 asset"/"TRX asset" conditions are the flow). */
export const COLLECTION_TRANSITIONS = [
  { from: 'PENDING', event: 'start', flow: 'trc20', condition: null, to: 'FUNDING_TRX' },
  { from: 'FUNDING_TRX', event: 'step-completed', flow: 'trc20', condition: null, to: 'ACQUIRING_ENERGY' },
  { from: 'ACQUIRING_ENERGY', event: 'step-completed', flow: 'trc20', condition: null, to: 'WAIT_ENERGY_READY' },
  { from: 'WAIT_ENERGY_READY', event: 'threshold-met', flow: 'trc20', condition: null, to: 'COLLECTING' },
  { from: 'COLLECTING', event: 'step-completed', flow: 'trc20', condition: 'self-delegation-path', to: 'UNDELEGATING_ENERGY' },
  { from: 'UNDELEGATING_ENERGY', event: 'step-completed', flow: 'trc20', condition: null, to: 'RECOVER_TRX' },
  { from: 'COLLECTING', event: 'step-completed', flow: 'trc20', condition: 'not-self-delegation-path', to: 'RECOVER_TRX' },
  { from: 'RECOVER_TRX', event: 'step-completed', flow: 'trc20', condition: null, to: 'DONE' },
  { from: 'PENDING', event: 'start', flow: 'trx', condition: null, to: 'COLLECTING' },
  { from: 'COLLECTING', event: 'step-completed', flow: 'trx', condition: null, to: 'DONE' },
  { from: ANY_STEP, event: 'unrecoverable-error', flow: 'any', condition: null, to: 'FAILED' },
] as const satisfies readonly {
  from: CollectionStatusName | typeof ANY_STEP;
  event: CollectionEvent;
  flow: CollectionFlow;
  condition: CollectionCondition | null;
  to: CollectionStatusName;
}[];

const TERMINAL: ReadonlySet<CollectionStatus> = new Set([COLLECTION_STATUS.DONE, COLLECTION_STATUS.FAILED]);

/** DONE and FAILED: nothing leaves them. */
export function isTerminalCollectionStatus(s: CollectionStatus): boolean {
  return TERMINAL.has(s);
}

const NAMES = new Map<CollectionStatus, CollectionStatusName>(
  Object.entries(COLLECTION_STATUS).map(([name, value]) => [value, name as CollectionStatusName]),
);

/** The spec's name of a status value (`6` → `COLLECTING`). */
export function collectionStatusName(s: CollectionStatus): CollectionStatusName {
  const name = NAMES.get(s);
  if (name === undefined) throw new RangeError(`unknown collection status ${String(s)}`);
  return name;
}

/** The next status for the event, or null when the table refuses it (wrong state, condition not met, terminal). */
export function collectionTransition(from: CollectionStatus, event: CollectionEvent, ctx: CollectionContext): CollectionStatus | null {
  if (isTerminalCollectionStatus(from)) return null;
  const fromName = collectionStatusName(from);
  const flow: CollectionFlow = ctx.assetKind === 'trc20' ? 'trc20' : 'trx';
  const row = COLLECTION_TRANSITIONS.find((r) => (r.from === fromName || r.from === ANY_STEP)
    && r.event === event
    && (r.flow === flow || r.flow === 'any')
    && (r.condition === null || COLLECTION_CONDITIONS[r.condition](ctx)));
  return row === undefined ? null : COLLECTION_STATUS[row.to];
}

/** The statuses a task can be worked in: every one but the terminal DONE and FAILED. */
export type WorkingStatusName = Exclude<CollectionStatusName, 'DONE' | 'FAILED'>;

/** What the workflow runner does in a status: the step that runs there. */
export type CollectionStepName =
  | 'check-collectable' | 'fund-gas' | 'acquire-energy' | 'await-energy' | 'sweep' | 'undelegate' | 'recover-trx';

/**
 * When a step's transaction completes it (read by the workflow runner):
 * - `depth`: at the executor's configured depth (confirmations or solidified);
 * - `accepted`: once a node accepted it;
 * - `pipelined`: once accepted when its record is marked `pipelined` (it shares a block with the next step's
 *   transaction, and a later step `awaits` it), else at depth.
 */
export type StepCompletion = 'depth' | 'accepted' | 'pipelined';

/**
 * A step that waits for a transaction an earlier step (in status `status`) sent and completed on acceptance: before
 * it plans (`plan`: its plan depends on that transaction having landed) or before it completes (`complete`: its own
 * transaction goes into the same block, and only its end waits). The runner follows that transaction (the money
 * policy's AWAITED table says what its loss does); the step never follows it itself.
 */
export interface StepAwaits<Status extends string> {
  readonly status: Status;
  readonly before: 'plan' | 'complete';
}

/** One row of a workflow's step table: data the workflow runner reads, never sets by hand. */
export interface StepRow<Step extends string, Event extends string, Status extends string> {
  readonly step: Step;
  /** The event of the workflow's transition table that completing the step fires (the table says where it goes). */
  readonly completedBy: Event;
  /** The step runs after money moved: it never ends the workflow FAILED, it retries until it finishes. */
  readonly mustFinish: boolean;
  readonly completion: StepCompletion;
  readonly awaits: StepAwaits<Status> | null;
}

/**
 * The workflow runner's step table, beside the spec's transition table: for each working status, the step that
 * runs there, the event that completes it (COLLECTION_TRANSITIONS then says where the task goes), when its
 * transaction completes it, the earlier transaction it waits for, and whether it must finish. The steps reached only
 * after the sweep must finish: the money has moved, and they never turn the task FAILED (docs/decisions.md, the
 * money rule). A step with nothing to do completes without a transaction (the spec's sequence of states is kept).
 * - An activated sub-address's funding shares a block with its delegation, and the energy wait waits for it.
 * - The undelegation shares a block with the recovery when there is TRX worth returning; RECOVER_TRX waits for it.
 */
export const COLLECTION_STEPS = {
  PENDING: { step: 'check-collectable', completedBy: 'start', mustFinish: false, completion: 'depth', awaits: null },
  FUNDING_TRX: { step: 'fund-gas', completedBy: 'step-completed', mustFinish: false, completion: 'pipelined', awaits: null },
  ACQUIRING_ENERGY: { step: 'acquire-energy', completedBy: 'step-completed', mustFinish: false, completion: 'depth', awaits: null },
  WAIT_ENERGY_READY: {
    step: 'await-energy', completedBy: 'threshold-met', mustFinish: false, completion: 'depth', awaits: { status: 'FUNDING_TRX', before: 'plan' },
  },
  COLLECTING: { step: 'sweep', completedBy: 'step-completed', mustFinish: false, completion: 'depth', awaits: null },
  UNDELEGATING_ENERGY: { step: 'undelegate', completedBy: 'step-completed', mustFinish: true, completion: 'pipelined', awaits: null },
  RECOVER_TRX: {
    step: 'recover-trx', completedBy: 'step-completed', mustFinish: true, completion: 'depth', awaits: { status: 'UNDELEGATING_ENERGY', before: 'complete' },
  },
} as const satisfies Record<WorkingStatusName, StepRow<CollectionStepName, Exclude<CollectionEvent, 'unrecoverable-error'>, WorkingStatusName>>;

/** A row of the collection step table. */
export type CollectionStepRow = (typeof COLLECTION_STEPS)[WorkingStatusName];

/** The step-table row of a working status; null for DONE and FAILED. */
export function collectionStepOf(status: CollectionStatus): CollectionStepRow | null {
  if (isTerminalCollectionStatus(status)) return null;
  return COLLECTION_STEPS[collectionStatusName(status) as WorkingStatusName];
}

/**
 * The post-failure reclaim's step table (a FAILED task's `reclaim` record, reclaim-executor.ts): give back the
 * delegated stake, then sweep the TRX float to main, in the table's order (the reclaim runs its phases as listed
 * here). Both run after money moved: they must finish. No transition table lies behind it (a phase closes and the
 * next one runs; after the last the reclaim is done) and no phase awaits another's transaction: the rows have neither
 * `completedBy` nor `awaits`.
 */
export const RECLAIM_STEPS = {
  UNDELEGATING_ENERGY: { step: 'reclaim-undelegate', mustFinish: true, completion: 'depth' },
  RECOVER_TRX: { step: 'reclaim-recover-trx', mustFinish: true, completion: 'depth' },
} as const satisfies Record<'UNDELEGATING_ENERGY' | 'RECOVER_TRX', Omit<StepRow<string, never, never>, 'completedBy' | 'awaits'>>;
