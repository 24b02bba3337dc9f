/**
 * The runner's step table against the spec's transition table: every working status has one step, the event that
 * completes it moves the task on in every context where the task can be in that status, and exactly the statuses
 * that only come after a completed sweep must finish (the runner reads mustFinish from this table: after the sweep the
 * money has moved, so nothing there may end the task FAILED). A step completed on acceptance is awaited by a later one.
 */
import { describe, expect, it } from 'vitest';
import { COLLECTION_STATUS, type CollectionStatus, type EnergyPath } from './model/collection-task.js';
import {
  COLLECTION_STEPS, collectionStatusName, collectionStepOf, collectionTransition, INITIAL_COLLECTION_STATUS,
  type CollectionContext, type CollectionEvent,
} from './collection-machine.js';

const CONTEXTS: CollectionContext[] = (['native', 'trc20'] as const).flatMap((assetKind) =>
  ([null, 'self', 'rental', 'burn'] as (EnergyPath | null)[]).map((energyPath) => ({ assetKind, energyPath })));
const WORKING = Object.values(COLLECTION_STATUS).filter((s) => s !== COLLECTION_STATUS.DONE && s !== COLLECTION_STATUS.FAILED);

/** Statuses reachable from PENDING by completing steps in a context, with whether a COLLECTING step completed on the way. */
function reachable(ctx: CollectionContext): Map<CollectionStatus, boolean> {
  const seen = new Map<CollectionStatus, boolean>([[INITIAL_COLLECTION_STATUS, false]]);
  const queue: CollectionStatus[] = [INITIAL_COLLECTION_STATUS];
  while (queue.length > 0) {
    const from = queue.shift()!;
    const row = collectionStepOf(from);
    if (row === null) continue;
    const to = collectionTransition(from, row.completedBy as CollectionEvent, ctx);
    if (to === null || seen.has(to)) continue;
    seen.set(to, seen.get(from)! || from === COLLECTION_STATUS.COLLECTING);
    queue.push(to);
  }
  return seen;
}

describe('collection step table', () => {
  it('has no row for DONE or FAILED', () => {
    expect(collectionStepOf(COLLECTION_STATUS.DONE)).toBeNull();
    expect(collectionStepOf(COLLECTION_STATUS.FAILED)).toBeNull();
  });

  it('each step\'s completing event is accepted by the spec table wherever the task can be in that status', () => {
    for (const ctx of CONTEXTS) {
      for (const status of reachable(ctx).keys()) {
        const row = collectionStepOf(status);
        if (row === null) continue;
        expect(collectionTransition(status, row.completedBy as CollectionEvent, ctx), `${collectionStatusName(status)} ${JSON.stringify(ctx)}`)
          .not.toBeNull();
      }
    }
  });

  it('walking the table from PENDING ends in DONE in every context (no cycle, no dead end)', () => {
    for (const ctx of CONTEXTS) expect(reachable(ctx).has(COLLECTION_STATUS.DONE), JSON.stringify(ctx)).toBe(true);
  });

  it('mustFinish marks exactly the statuses reached only after COLLECTING completed', () => {
    for (const status of WORKING) {
      const afterSweepSomewhere = CONTEXTS.some((ctx) => reachable(ctx).get(status) === true);
      const beforeSweepSomewhere = CONTEXTS.some((ctx) => reachable(ctx).get(status) === false);
      const row = collectionStepOf(status)!;
      expect(row.mustFinish, collectionStatusName(status)).toBe(afterSweepSomewhere && !beforeSweepSomewhere);
    }
  });

  it('a step whose transaction completes on acceptance (pipelined) is awaited by a later step on every path through it', () => {
    for (const ctx of CONTEXTS) {
      const seen = reachable(ctx);
      for (const status of seen.keys()) {
        const row = collectionStepOf(status);
        if (row === null || row.completion !== 'pipelined') continue;
        // Walk on from this status: some later step on this path awaits it.
        const later: string[] = [];
        for (let at = collectionTransition(status, row.completedBy as CollectionEvent, ctx); at !== null && collectionStepOf(at) !== null;) {
          const next = collectionStepOf(at)!;
          if (next.awaits !== null) later.push(next.awaits.status);
          at = collectionTransition(at, next.completedBy as CollectionEvent, ctx);
        }
        expect(later, `${collectionStatusName(status)} ${JSON.stringify(ctx)}`).toContain(collectionStatusName(status));
      }
    }
  });

  it('a step awaits only a status that comes before it, whose step completes on acceptance', () => {
    for (const [name, row] of Object.entries(COLLECTION_STEPS)) {
      if (row.awaits === null) continue;
      const awaited = COLLECTION_STEPS[row.awaits.status];
      expect(awaited.completion, name).toBe('pipelined');
      expect(CONTEXTS.some((ctx) => {
        const seen = [...reachable(ctx).keys()].map(collectionStatusName);
        return seen.includes(row.awaits!.status) && seen.indexOf(row.awaits!.status) < seen.indexOf(name as never);
      }), name).toBe(true);
    }
  });
});
