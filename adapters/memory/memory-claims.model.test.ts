/**
 * Adapter-only: the memory repositories' indexed claims against the full scans they replaced (copied here as the
 * model), over random rows written straight into the store (as the unit of work writes them), claims at times that
 * move back and forth, and the leases those claims write. The contract suites pin the claim semantics on small
 * cases; this compares every claim of long histories, across command types and the two task claims.
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COLLECTION_STATUS, COMMAND_STATUS, type CollectionTask, type Command, type CommandType } from '../../core/domain/model/index.js';
import { aCommand, aTask } from '../../contracts-tests/support/fixtures.js';
import { MemoryCollectionTaskRepository } from './memory-collection-task-repository.js';
import { MemoryCommandRepository } from './memory-command-repository.js';
import { MemoryStore } from './memory-store.js';

function naiveCommand(store: MemoryStore, types: readonly CommandType[], now: number): string | null {
  let due: Command | undefined;
  for (const c of store.commands.values()) {
    if (!types.includes(c.type) || (c.status !== COMMAND_STATUS.PENDING && c.status !== COMMAND_STATUS.RUNNING)) continue;
    if ((c.nextRunAt ?? 0) > now || (c.lease != null && c.lease.expiresAt > now)) continue;
    const [da, db] = [c.nextRunAt ?? 0, due?.nextRunAt ?? 0];
    if (due === undefined || (da !== db ? da < db : c.createdAt < due.createdAt)) due = c;
  }
  return due?.commandNo ?? null;
}

function naiveTask(store: MemoryStore, now: number): string | null {
  let due: CollectionTask | undefined;
  for (const t of store.tasks.values()) {
    const terminal = t.status === COLLECTION_STATUS.DONE || t.status === COLLECTION_STATUS.FAILED;
    const free = t.lease === null || t.lease.expiresAt <= now;
    if (!terminal && t.nextRunAt <= now && free && (due === undefined || t.nextRunAt < due.nextRunAt)) due = t;
  }
  return due?.taskNo ?? null;
}

function naiveReclaim(store: MemoryStore, now: number): string | null {
  let due: CollectionTask | undefined;
  for (const t of store.tasks.values()) {
    const r = t.reclaim;
    if (t.status !== COLLECTION_STATUS.FAILED || r === undefined || r.status !== 'pending' || r.nextRunAt > now) continue;
    if (r.lease !== null && r.lease.expiresAt > now) continue;
    if (due === undefined || r.nextRunAt < due.reclaim!.nextRunAt) due = t;
  }
  return due?.taskNo ?? null;
}

const lease = fc.option(fc.record({ owner: fc.constant('x'), expiresAt: fc.integer({ min: 0, max: 40 }) }), { nil: null, freq: 2 });
const commandArb = fc.record({
  n: fc.integer({ min: 0, max: 15 }), type: fc.constantFrom<CommandType>(2, 3, 4), status: fc.constantFrom<Command['status']>(1, 2, 2, 3, 4),
  nextRunAt: fc.integer({ min: 0, max: 30 }), createdAt: fc.integer({ min: 0, max: 3 }), lease,
});
const taskArb = fc.record({
  n: fc.integer({ min: 0, max: 15 }), status: fc.constantFrom<CollectionTask['status']>(1, 2, 11, 12), nextRunAt: fc.integer({ min: 0, max: 30 }), lease,
  reclaim: fc.option(fc.record({ status: fc.constantFrom('pending' as const, 'done' as const), nextRunAt: fc.integer({ min: 0, max: 30 }), lease }), { nil: undefined }),
});
type Op =
  | { readonly kind: 'command'; readonly c: typeof commandArb extends fc.Arbitrary<infer C> ? C : never }
  | { readonly kind: 'task'; readonly t: typeof taskArb extends fc.Arbitrary<infer T> ? T : never }
  | { readonly kind: 'claim'; readonly dt: number; readonly types: CommandType[] };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: commandArb.map((c) => ({ kind: 'command' as const, c })) },
  { weight: 3, arbitrary: taskArb.map((t) => ({ kind: 'task' as const, t })) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('claim' as const), dt: fc.integer({ min: -8, max: 10 }), types: fc.subarray<CommandType>([2, 3, 4], { minLength: 1 }) }) },
);

describe('indexed memory claims against the scans they replaced', () => {
  it('commands (by types), collection stages and reclaims claim what a scan would', async () => {
    await fc.assert(fc.asyncProperty(fc.array(opArb, { minLength: 20, maxLength: 150, size: 'max' }), async (ops) => {
      const store = new MemoryStore();
      const commands = new MemoryCommandRepository(store);
      const tasks = new MemoryCollectionTaskRepository(store);
      let now = 10;
      for (const op of ops) {
        if (op.kind === 'command') {
          const { n, ...fields } = op.c;
          store.commands.set(`C${n}`, aCommand({ commandNo: `C${n}`, ...fields, version: (store.commands.get(`C${n}`)?.version ?? 0) + 1 }));
        } else if (op.kind === 'task') {
          const { n, reclaim, ...fields } = op.t;
          const base = aTask({ taskNo: `K${n}`, ...fields, version: (store.tasks.get(`K${n}`)?.version ?? 0) + 1 });
          store.tasks.set(`K${n}`, reclaim === undefined ? base : { ...base, reclaim: { ...reclaim, steps: [], finishedAt: null } });
        } else {
          now = Math.max(0, now + op.dt);
          const expectCommand = naiveCommand(store, op.types, now);
          expect((await commands.claimDue(op.types, now, 'me', 5))?.commandNo ?? null).toBe(expectCommand);
          const expectTask = naiveTask(store, now);
          expect((await tasks.claimDue(now, 'me', 5))?.taskNo ?? null).toBe(expectTask);
          const expectReclaim = naiveReclaim(store, now);
          expect((await tasks.claimReclaimDue(now, 'me', 5))?.taskNo ?? null).toBe(expectReclaim);
        }
      }
    }), { numRuns: runs(150) });
  });
});
