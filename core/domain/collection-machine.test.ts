import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { COLLECTION_STATUS, type CollectionStatus, type EnergyPath } from './model/collection-task.js';
import {
  collectionStatusName, collectionTransition, COLLECTION_TRANSITIONS, INITIAL_COLLECTION_STATUS,
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
    it('covers every combination', () => {
      expect(cases).toHaveLength(9 * 4 * 8);
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

  describe('model-based: random event sequences', () => {
    interface Model { status: CollectionStatus; readonly ctx: CollectionContext; visited: CollectionStatus[] }
    interface Real { status: CollectionStatus }
    const LEGAL_TRC20 = new Set<CollectionStatus>([PENDING, FUNDING_TRX, ACQUIRING_ENERGY, WAIT_ENERGY_READY, COLLECTING, UNDELEGATING_ENERGY, RECOVER_TRX, DONE, FAILED]);
    const LEGAL_TRX = new Set<CollectionStatus>([PENDING, COLLECTING, DONE, FAILED]);

    class Fire implements fc.Command<Model, Real> {
      constructor(readonly event: CollectionEvent) {}
      check(): boolean { return true; }
      run(model: Model, real: Real): void {
        const before = real.status;
        const next = collectionTransition(before, this.event, model.ctx);
        const expected = specTarget(model.status, this.event, model.ctx);
        expect(next).toBe(expected);
        if (next !== null) real.status = next;
        model.status = real.status;
        model.visited.push(real.status);
        if (isTerminalCollectionStatus(before)) expect(real.status).toBe(before);
        expect((model.ctx.assetKind === 'trc20' ? LEGAL_TRC20 : LEGAL_TRX).has(real.status)).toBe(true);
        if (model.ctx.assetKind === 'trc20' && model.ctx.energyPath !== 'self') expect(real.status).not.toBe(UNDELEGATING_ENERGY);
      }
      toString(): string { return this.event; }
    }

    it('never reach an illegal state, and terminal states never change', () => {
      const ctxArb = fc.constantFrom(...CONTEXTS);
      const commands = fc.commands(EVENTS.map((e) => fc.constant(new Fire(e))), { maxCommands: 40 });
      fc.assert(fc.property(ctxArb, commands, (ctx, cmds) => {
        const model: Model = { status: PENDING, ctx, visited: [] };
        fc.modelRun(() => ({ model, real: { status: PENDING } }), cmds);
        const firstTerminal = model.visited.findIndex(isTerminalCollectionStatus);
        if (firstTerminal >= 0) expect(new Set(model.visited.slice(firstTerminal)).size).toBe(1);
      }), { numRuns: 200 });
    });
  });
});
