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
 * Spec §3 conditions. The two "self-delegation path" conditions apply to TRC20 tasks only (a TRX task has no energy
 * step), which keeps them disjoint from "TRX asset" on the shared COLLECTING/step-completed trigger.
 */
export const COLLECTION_CONDITIONS = {
  'trc20-asset': (ctx: CollectionContext) => ctx.assetKind === 'trc20',
  'trx-asset': (ctx: CollectionContext) => ctx.assetKind === 'native',
  'self-delegation-path': (ctx: CollectionContext) => ctx.assetKind === 'trc20' && ctx.energyPath === 'self',
  'not-self-delegation-path': (ctx: CollectionContext) => ctx.assetKind === 'trc20' && ctx.energyPath !== 'self',
} as const;
export type CollectionCondition = keyof typeof COLLECTION_CONDITIONS;

/** A task is created in PENDING (spec §3 row "(created) → PENDING"); creation is not an event of the machine. */
export const INITIAL_COLLECTION_STATUS: CollectionStatus = COLLECTION_STATUS.PENDING;

/** `'any-step'`: every non-terminal status (spec §3 row "any step | unrecoverable error | FAILED"). */
export const ANY_STEP = 'any-step';

/** Spec §3 collection task table, in its order, one row per line. */
export const COLLECTION_TRANSITIONS = [
  { from: 'PENDING', event: 'start', condition: 'trc20-asset', to: 'FUNDING_TRX' },
  { from: 'FUNDING_TRX', event: 'step-completed', condition: null, to: 'ACQUIRING_ENERGY' },
  { from: 'ACQUIRING_ENERGY', event: 'step-completed', condition: null, to: 'WAIT_ENERGY_READY' },
  { from: 'WAIT_ENERGY_READY', event: 'threshold-met', condition: null, to: 'COLLECTING' },
  { from: 'COLLECTING', event: 'step-completed', condition: 'self-delegation-path', to: 'UNDELEGATING_ENERGY' },
  { from: 'UNDELEGATING_ENERGY', event: 'step-completed', condition: null, to: 'RECOVER_TRX' },
  { from: 'COLLECTING', event: 'step-completed', condition: 'not-self-delegation-path', to: 'RECOVER_TRX' },
  { from: 'RECOVER_TRX', event: 'step-completed', condition: null, to: 'DONE' },
  { from: 'PENDING', event: 'start', condition: 'trx-asset', to: 'COLLECTING' },
  { from: 'COLLECTING', event: 'step-completed', condition: 'trx-asset', to: 'DONE' },
  { from: ANY_STEP, event: 'unrecoverable-error', condition: null, to: 'FAILED' },
] as const satisfies readonly {
  from: CollectionStatusName | typeof ANY_STEP;
  event: CollectionEvent;
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
  const row = COLLECTION_TRANSITIONS.find((r) => (r.from === fromName || r.from === ANY_STEP)
    && r.event === event
    && (r.condition === null || COLLECTION_CONDITIONS[r.condition](ctx)));
  return row === undefined ? null : COLLECTION_STATUS[row.to];
}
