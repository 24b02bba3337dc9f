import { describe, it, expect } from 'vitest';
import { COLLECTION_STATUS, type CollectionStatus, type EnergyPath } from './model/collection-task.js';
import {
  ANY_STEP, COLLECTION_CONDITIONS, collectionStatusName, collectionTransition, COLLECTION_TRANSITIONS, INITIAL_COLLECTION_STATUS,
  isTerminalCollectionStatus, type CollectionContext, type CollectionEvent,
} from './collection-machine.js';

const { PENDING, FUNDING_TRX, ACQUIRING_ENERGY, WAIT_ENERGY_READY, COLLECTING, UNDELEGATING_ENERGY, RECOVER_TRX, DONE, FAILED } = COLLECTION_STATUS;

/**
 * Spec §3 "Collection task", copied by hand (numbers, not the module's names). The table lists the TRC20 flow and
 * the TRX flow together; `flow` says which one a row belongs to ('any' for the failure row).
 */
type Flow = 'trc20' | 'trx' | 'any';
const SPEC_TABLE: readonly [from: CollectionStatus | 'any step', trigger: CollectionEvent, flow: Flow, condition: ((c: CollectionContext) => boolean) | null, to: CollectionStatus][] = [
  [PENDING, 'start', 'trc20', null, FUNDING_TRX],
  [FUNDING_TRX, 'step-completed', 'trc20', null, ACQUIRING_ENERGY],
  [ACQUIRING_ENERGY, 'step-completed', 'trc20', null, WAIT_ENERGY_READY],
  [WAIT_ENERGY_READY, 'threshold-met', 'trc20', null, COLLECTING],
  [COLLECTING, 'step-completed', 'trc20', (c) => c.energyPath === 'self', UNDELEGATING_ENERGY],
  [UNDELEGATING_ENERGY, 'step-completed', 'trc20', null, RECOVER_TRX],
  [COLLECTING, 'step-completed', 'trc20', (c) => c.energyPath !== 'self', RECOVER_TRX],
  [RECOVER_TRX, 'step-completed', 'trc20', null, DONE],
  [PENDING, 'start', 'trx', null, COLLECTING],
  [COLLECTING, 'step-completed', 'trx', null, DONE],
  ['any step', 'unrecoverable-error', 'any', null, FAILED],
];

const ALL_STATUSES = Object.values(COLLECTION_STATUS);
const EVENTS: CollectionEvent[] = ['start', 'step-completed', 'threshold-met', 'unrecoverable-error'];
const ENERGY_PATHS: (EnergyPath | null)[] = [null, 'self', 'rental', 'burn'];
const CONTEXTS: CollectionContext[] = (['native', 'trc20'] as const).flatMap((assetKind) => ENERGY_PATHS.map((energyPath) => ({ assetKind, energyPath })));

function specTarget(from: CollectionStatus, event: CollectionEvent, ctx: CollectionContext): CollectionStatus | null {
  if (from === DONE || from === FAILED) return null; // "DONE and FAILED are terminal."
  const flow: Flow = ctx.assetKind === 'trc20' ? 'trc20' : 'trx';
  const matches = SPEC_TABLE.filter(([f, trigger, rowFlow, condition]) => (f === from || f === 'any step')
    && trigger === event && (rowFlow === flow || rowFlow === 'any') && (condition === null || condition(ctx)));
  expect(matches.length).toBeLessThanOrEqual(1); // the copy itself must be unambiguous
  return matches[0]?.[4] ?? null;
}

describe('collection state machine', () => {
  it('starts in PENDING', () => {
    expect(INITIAL_COLLECTION_STATUS).toBe(PENDING);
  });

  describe('exhaustively matches spec §3 for every (state, event, context)', () => {
    const cases = ALL_STATUSES.flatMap((from) => EVENTS.flatMap((event) => CONTEXTS.map((ctx) => [from, event, ctx] as const)));
    it.each(cases)('%i on %s with %j', (from, event, ctx) => {
      expect(collectionTransition(from, event, ctx)).toBe(specTarget(from, event, ctx));
    });
    it('spans what the table reads: each event and flow it names, both outcomes of each condition it uses', () => {
      // A row with an event, flow or condition outcome no case above produces would never fire there, and pass unseen.
      const flows = new Set<string>(CONTEXTS.map((c) => (c.assetKind === 'trc20' ? 'trc20' : 'trx')));
      const unexercised = COLLECTION_TRANSITIONS.flatMap((r) => [
        ...(EVENTS.includes(r.event) ? [] : [`event ${r.event}`]),
        ...(r.flow === 'any' || flows.has(r.flow) ? [] : [`flow ${r.flow}`]),
        ...(r.condition === null || new Set(CONTEXTS.map(COLLECTION_CONDITIONS[r.condition])).size === 2 ? [] : [`condition ${r.condition}`]),
      ]);
      expect(unexercised).toEqual([]);
    });
  });

  it('has one row per spec line', () => {
    expect(COLLECTION_TRANSITIONS).toHaveLength(SPEC_TABLE.length);
  });

  it('walks the TRC20 self-delegation flow', () => {
    const ctx: CollectionContext = { assetKind: 'trc20', energyPath: 'self' };
    const walk = [['start', FUNDING_TRX], ['step-completed', ACQUIRING_ENERGY], ['step-completed', WAIT_ENERGY_READY],
      ['threshold-met', COLLECTING], ['step-completed', UNDELEGATING_ENERGY], ['step-completed', RECOVER_TRX], ['step-completed', DONE]] as const;
    let s: CollectionStatus = PENDING;
    for (const [event, to] of walk) {
      s = collectionTransition(s, event, ctx)!;
      expect(s).toBe(to);
    }
  });

  it('skips undelegation on the rental and burn paths, and TRX goes straight to COLLECTING then DONE', () => {
    expect(collectionTransition(COLLECTING, 'step-completed', { assetKind: 'trc20', energyPath: 'rental' })).toBe(RECOVER_TRX);
    expect(collectionTransition(COLLECTING, 'step-completed', { assetKind: 'trc20', energyPath: 'burn' })).toBe(RECOVER_TRX);
    expect(collectionTransition(PENDING, 'start', { assetKind: 'native', energyPath: null })).toBe(COLLECTING);
    expect(collectionTransition(COLLECTING, 'step-completed', { assetKind: 'native', energyPath: null })).toBe(DONE);
  });

  it('reaches FAILED from every non-terminal state and nothing leaves DONE or FAILED', () => {
    for (const s of ALL_STATUSES) {
      const terminal = s === DONE || s === FAILED;
      expect(isTerminalCollectionStatus(s)).toBe(terminal);
      for (const ctx of CONTEXTS) {
        expect(collectionTransition(s, 'unrecoverable-error', ctx)).toBe(terminal ? null : FAILED);
      }
    }
  });

  it('names every status as the spec does', () => {
    expect(ALL_STATUSES.map(collectionStatusName)).toEqual(Object.keys(COLLECTION_STATUS));
    expect(() => collectionStatusName(3 as CollectionStatus)).toThrow(RangeError);
  });

  it('is spec §3 row for row: changing, adding, dropping or reordering a row of COLLECTION_TRANSITIONS fails here', () => {
    // The cases above see only behaviour, and some row changes keep it (the seventh row without its condition answers
    // the same, since the fifth takes the self-delegation path first). A condition is compared by its outcome on every
    // context, which is all the machine asks of it.
    const outcomes = (condition: ((c: CollectionContext) => boolean) | null) => (condition === null ? null : CONTEXTS.map(condition));
    const table = COLLECTION_TRANSITIONS.map((r) => [r.from === ANY_STEP ? 'any step' : COLLECTION_STATUS[r.from], r.event, r.flow,
      outcomes(r.condition === null ? null : COLLECTION_CONDITIONS[r.condition]), COLLECTION_STATUS[r.to]]);
    expect(table).toEqual(SPEC_TABLE.map(([from, event, flow, condition, to]) => [from, event, flow, outcomes(condition), to]));
  });
});
