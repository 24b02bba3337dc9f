import { runs } from './support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../core/domain/errors.js';
import type { CollectionStatus, CollectionTask, ReclaimRecord } from '../core/domain/model/collection-task.js';
import type { CollectionTaskRepository } from '../core/ports/collection-task-repository.port.js';
import type { UnitOfWork } from '../core/ports/unit-of-work.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject, withSubject } from './support/contract-options.js';
import { addressOf, aTask, T0 } from './support/fixtures.js';

/** What the collection-task contract needs: the repository and the unit of work that inserts tasks. */
export interface CollectionTaskRepositorySubject extends Closable {
  readonly tasks: CollectionTaskRepository;
  readonly uow: UnitOfWork;
}

const LEASE = 30_000;
const STATUSES: readonly CollectionStatus[] = [1, 2, 6, 8, 11, 12, 15, 16, 17];
const TERMINAL = new Set<CollectionStatus>([11, 12]);

function claimable(task: CollectionTask, now: number): boolean {
  return !TERMINAL.has(task.status) && task.nextRunAt <= now && (task.lease === null || task.lease.expiresAt <= now);
}

/** The CollectionTaskRepository contract (core/ports/collection-task-repository.port.ts). */
export function describeCollectionTaskRepositoryContract(
  name: string,
  makeSubject: MakeSubject<CollectionTaskRepositorySubject>,
  options: ContractOptions<CollectionTaskRepositorySubject> = {},
): void {
  const concurrency = options.concurrency ?? 50;
  const numRuns = options.numRuns ?? runs(50);
  describe(`CollectionTaskRepository contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('gets a task inserted through the unit of work, with bigint and steps intact', async () => {
      const { tasks, uow } = subject();
      const task = aTask({
        sweptAmount: 2n ** 66n, energyPath: 'self',
        steps: [{ status: 2, transaction: { txid: 'ef'.repeat(32), signedJson: '{}', expiresAt: T0 + 1, broadcastAt: T0 }, orderRef: null, startedAt: T0, completedAt: null }],
      });
      await uow.commit({ newTasks: [task] });
      expect(await tasks.get('K0001')).toEqual(task);
      expect(await tasks.get('K9999')).toBeNull();
    });

    it('findLatestByAddress returns the most recently created task of the address', async () => {
      const { tasks, uow } = subject();
      await uow.commit({ newTasks: [aTask({ taskNo: 'K1', startedAt: T0 + 1 }), aTask({ taskNo: 'K3', startedAt: T0 + 3 })] });
      await uow.commit({ newTasks: [aTask({ taskNo: 'K2', startedAt: T0 + 2 }), aTask({ taskNo: 'KX', address: addressOf(2), startedAt: T0 + 9 })] });
      expect((await tasks.findLatestByAddress(addressOf(1)))!.taskNo).toBe('K3');
      expect((await tasks.findLatestByAddress(addressOf(2)))!.taskNo).toBe('KX');
      expect(await tasks.findLatestByAddress(addressOf(3))).toBeNull();
    });

    it('update is optimistic', async () => {
      const { tasks, uow } = subject();
      await uow.commit({ newTasks: [aTask()] });
      await tasks.update(aTask({ status: 6, version: 2 }));
      await expect(tasks.update(aTask({ status: 12, version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(tasks.update(aTask({ taskNo: 'nope', version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect((await tasks.get('K0001'))!.status).toBe(6);
    });

    it('claimDue leases a due task to the owner and bumps its version; not-yet-due tasks wait', async () => {
      const { tasks, uow } = subject();
      await uow.commit({ newTasks: [aTask({ taskNo: 'LATER', nextRunAt: T0 + 1000 }), aTask({ taskNo: 'DUE', nextRunAt: T0 })] });
      const claimed = await tasks.claimDue(T0, 'worker-a', LEASE);
      expect(claimed).toMatchObject({ taskNo: 'DUE', version: 2, lease: { owner: 'worker-a', expiresAt: T0 + LEASE } });
      expect(await tasks.get('DUE')).toEqual(claimed);
      expect(await tasks.claimDue(T0, 'worker-b', LEASE)).toBeNull();
      expect((await tasks.claimDue(T0 + 1000, 'worker-b', LEASE))!.taskNo).toBe('LATER');
    });

    it('a live lease blocks claims; an expired lease can be reclaimed and the old owner\'s write then conflicts', async () => {
      const { tasks, uow } = subject();
      await uow.commit({ newTasks: [aTask()] });
      const first = (await tasks.claimDue(T0, 'worker-a', LEASE))!;
      expect(await tasks.claimDue(T0 + LEASE - 1, 'worker-b', LEASE)).toBeNull();
      const second = (await tasks.claimDue(T0 + LEASE, 'worker-b', LEASE))!;
      expect(second).toMatchObject({ version: 3, lease: { owner: 'worker-b' } });
      await expect(tasks.update({ ...first, status: 2, version: first.version + 1 })).rejects.toBeInstanceOf(ConcurrencyConflict);
      await tasks.update({ ...second, status: 2, lease: null, version: second.version + 1 });
      expect((await tasks.get('K0001'))!.status).toBe(2);
    });

    it('never claims DONE or FAILED tasks', async () => {
      const { tasks, uow } = subject();
      await uow.commit({ newTasks: [aTask({ taskNo: 'D', status: 11 }), aTask({ taskNo: 'F', status: 12 })] });
      expect(await tasks.claimDue(T0 + 10 * LEASE, 'worker-a', LEASE)).toBeNull();
    });

    it(`${concurrency} concurrent claims over 10 due tasks: each task gets exactly one owner`, async () => {
      const { tasks, uow } = subject();
      await uow.commit({ newTasks: Array.from({ length: 10 }, (_, i) => aTask({ taskNo: `K${i}`, address: addressOf(i) })) });
      const claims = await Promise.all(Array.from({ length: concurrency }, (_, i) => tasks.claimDue(T0, `worker-${i}`, LEASE)));
      const claimed = claims.filter((c) => c !== null);
      expect(claimed).toHaveLength(Math.min(10, concurrency));
      expect(new Set(claimed.map((c) => c.taskNo)).size).toBe(claimed.length);
      for (const c of claimed) expect((await tasks.get(c.taskNo))!.lease!.owner).toBe(c.lease!.owner);
    });

    it('claims a task exactly when one is claimable (random tasks and times)', async () => {
      const taskArb = fc.record({
        status: fc.constantFrom(...STATUSES),
        nextRunAt: fc.integer({ min: 0, max: 100 }),
        lease: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
      });
      await fc.assert(fc.asyncProperty(fc.array(taskArb, { maxLength: 6 }), fc.integer({ min: 0, max: 100 }), (specs, at) =>
        withSubject(makeSubject, async ({ tasks, uow }) => {
          const rows = specs.map((s, i) => aTask({
            taskNo: `K${i}`, address: addressOf(i), status: s.status, nextRunAt: T0 + s.nextRunAt,
            lease: s.lease === null ? null : { owner: 'old', expiresAt: T0 + s.lease },
          }));
          await uow.commit({ newTasks: rows });
          const claimed = await tasks.claimDue(T0 + at, 'me', LEASE);
          const eligible = rows.filter((r) => claimable(r, T0 + at)).map((r) => r.taskNo);
          if (eligible.length === 0) expect(claimed).toBeNull();
          else expect(eligible).toContain(claimed?.taskNo);
        })), { numRuns });
    });

    it('claimSeveralDue claims up to the limit, earliest due first, exactly the claimable tasks, each leased and bumped (random tasks and times)', async () => {
      const taskArb = fc.record({
        status: fc.constantFrom(...STATUSES),
        nextRunAt: fc.integer({ min: 0, max: 100 }),
        lease: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
      });
      await fc.assert(fc.asyncProperty(fc.array(taskArb, { maxLength: 6 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 7 }), (specs, at, limit) =>
        withSubject(makeSubject, async ({ tasks, uow }) => {
          const rows = specs.map((s, i) => aTask({
            taskNo: `K${i}`, address: addressOf(i), status: s.status, nextRunAt: T0 + s.nextRunAt,
            lease: s.lease === null ? null : { owner: 'old', expiresAt: T0 + s.lease },
          }));
          await uow.commit({ newTasks: rows });
          const claimed = await tasks.claimSeveralDue(T0 + at, 'me', LEASE, limit);
          // The claimable ones in due order (ties in insertion order): the first `limit` of them.
          const eligible = rows.filter((r) => claimable(r, T0 + at)).sort((a, b) => a.nextRunAt - b.nextRunAt);
          expect(claimed.map((c) => c.taskNo)).toEqual(eligible.slice(0, limit).map((r) => r.taskNo));
          for (const c of claimed) {
            const before = rows.find((r) => r.taskNo === c.taskNo)!;
            expect(c).toMatchObject({ lease: { owner: 'me', expiresAt: T0 + at + LEASE }, version: before.version + 1 });
            expect(await tasks.get(c.taskNo)).toEqual(c);
          }
        })), { numRuns });
    });

    it(`${concurrency} concurrent claims of 3 tasks each over 10 due tasks: each task gets exactly one owner`, async () => {
      const { tasks, uow } = subject();
      await uow.commit({ newTasks: Array.from({ length: 10 }, (_, i) => aTask({ taskNo: `K${i}`, address: addressOf(i) })) });
      const claims = (await Promise.all(Array.from({ length: concurrency }, (_, i) => tasks.claimSeveralDue(T0, `worker-${i}`, LEASE, 3)))).flat();
      expect(claims).toHaveLength(Math.min(10, 3 * concurrency));
      expect(new Set(claims.map((c) => c.taskNo)).size).toBe(claims.length);
      for (const c of claims) expect((await tasks.get(c.taskNo))!.lease!.owner).toBe(c.lease!.owner);
    });

    const pending = (nextRunAt: number, lease: { owner: string; expiresAt: number } | null = null): ReclaimRecord => ({
      status: 'pending', steps: [], nextRunAt, lease, finishedAt: null,
    });

    it('stores a reclaim record with its steps and amounts intact; a task without one reads without one', async () => {
      const { tasks, uow } = subject();
      const reclaim: ReclaimRecord = {
        status: 'pending', nextRunAt: T0 + 5, lease: { owner: 'w', expiresAt: T0 + 9 }, finishedAt: null,
        steps: [{ status: 15, transaction: { txid: 'ab'.repeat(32), signedJson: '{}', expiresAt: T0 + 1, broadcastAt: null }, orderRef: null, amount: 2n ** 70n, startedAt: T0, completedAt: null }],
      };
      await uow.commit({ newTasks: [aTask({ taskNo: 'R', status: 12, reclaim }), aTask({ taskNo: 'N', address: addressOf(2) })] });
      expect(await tasks.get('R')).toEqual(aTask({ taskNo: 'R', status: 12, reclaim }));
      expect((await tasks.get('N'))!.reclaim).toBeUndefined();
      const done: ReclaimRecord = { ...reclaim, status: 'done', lease: null, finishedAt: T0 + 20 };
      await tasks.update(aTask({ taskNo: 'R', status: 12, reclaim: done, version: 2 }));
      expect((await tasks.get('R'))!.reclaim).toEqual(done);
    });

    it('claimReclaimDue leases a due pending reclaim of a FAILED task in the reclaim only, bumping the version', async () => {
      const { tasks, uow } = subject();
      await uow.commit({ newTasks: [
        aTask({ taskNo: 'F', status: 12, nextRunAt: T0 - 50, reclaim: pending(T0) }),
        aTask({ taskNo: 'LATER', address: addressOf(2), status: 12, reclaim: pending(T0 + 1000) }),
        aTask({ taskNo: 'DONE', address: addressOf(3), status: 12, reclaim: { ...pending(T0), status: 'done', finishedAt: T0 } }),
        aTask({ taskNo: 'NONE', address: addressOf(4), status: 12 }),
        aTask({ taskNo: 'LIVE', address: addressOf(5), status: 6, reclaim: pending(T0) }),
      ] });
      const claimed = await tasks.claimReclaimDue(T0, 'reclaimer-a', LEASE);
      expect(claimed).toEqual(aTask({
        taskNo: 'F', status: 12, nextRunAt: T0 - 50, lease: null, version: 2,
        reclaim: pending(T0, { owner: 'reclaimer-a', expiresAt: T0 + LEASE }),
      }));
      expect(await tasks.get('F')).toEqual(claimed);
      expect(await tasks.claimReclaimDue(T0 + 999, 'reclaimer-b', LEASE)).toBeNull();
      expect((await tasks.claimReclaimDue(T0 + 1000, 'reclaimer-b', LEASE))!.taskNo).toBe('LATER');
      expect(await tasks.claimDue(T0 + 10 * LEASE, 'worker', LEASE)).toMatchObject({ taskNo: 'LIVE' });
    });

    it('a live reclaim lease blocks reclaim claims; an expired one is taken over and the old owner\'s write conflicts', async () => {
      const { tasks, uow } = subject();
      await uow.commit({ newTasks: [aTask({ status: 12, reclaim: pending(T0) })] });
      const first = (await tasks.claimReclaimDue(T0, 'a', LEASE))!;
      expect(await tasks.claimReclaimDue(T0 + LEASE - 1, 'b', LEASE)).toBeNull();
      const second = (await tasks.claimReclaimDue(T0 + LEASE, 'b', LEASE))!;
      expect(second).toMatchObject({ version: 3, reclaim: { lease: { owner: 'b' } } });
      await expect(tasks.update({ ...first, version: first.version + 1 })).rejects.toBeInstanceOf(ConcurrencyConflict);
    });

    it(`${concurrency} concurrent reclaim claims over 10 due reclaims: each gets exactly one owner`, async () => {
      const { tasks, uow } = subject();
      await uow.commit({ newTasks: Array.from({ length: 10 }, (_, i) => aTask({ taskNo: `R${i}`, address: addressOf(i), status: 12, reclaim: pending(T0) })) });
      const claims = await Promise.all(Array.from({ length: concurrency }, (_, i) => tasks.claimReclaimDue(T0, `r-${i}`, LEASE)));
      const claimed = claims.filter((c) => c !== null);
      expect(claimed).toHaveLength(Math.min(10, concurrency));
      expect(new Set(claimed.map((c) => c.taskNo)).size).toBe(claimed.length);
      for (const c of claimed) expect((await tasks.get(c.taskNo))!.reclaim!.lease!.owner).toBe(c.reclaim!.lease!.owner);
    });

    it('claims a reclaim exactly when one is claimable (random tasks and times)', async () => {
      const arb = fc.record({
        status: fc.constantFrom(...STATUSES),
        reclaim: fc.constantFrom('none', 'pending', 'done'),
        nextRunAt: fc.integer({ min: 0, max: 100 }),
        lease: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
      });
      await fc.assert(fc.asyncProperty(fc.array(arb, { maxLength: 6 }), fc.integer({ min: 0, max: 100 }), (specs, at) =>
        withSubject(makeSubject, async ({ tasks, uow }) => {
          const rows = specs.map((s, i) => aTask({
            taskNo: `K${i}`, address: addressOf(i), status: s.status,
            ...(s.reclaim === 'none' ? {} : { reclaim: {
              ...pending(T0 + s.nextRunAt, s.lease === null ? null : { owner: 'old', expiresAt: T0 + s.lease }),
              status: s.reclaim === 'done' ? 'done' : 'pending',
            } }),
          }));
          await uow.commit({ newTasks: rows });
          const claimed = await tasks.claimReclaimDue(T0 + at, 'me', LEASE);
          const now = T0 + at;
          const eligible = rows.filter((r) => r.status === 12 && r.reclaim?.status === 'pending' && r.reclaim.nextRunAt <= now
            && (r.reclaim.lease === null || r.reclaim.lease.expiresAt <= now)).map((r) => r.taskNo);
          if (eligible.length === 0) expect(claimed).toBeNull();
          else expect(eligible).toContain(claimed?.taskNo);
        })), { numRuns });
    });

    it('listByUser: a page of the filtered list is the same page of a filter over all tasks, newest first (random tasks, filters and pages)', async () => {
      // Few start times and statuses, so that equal starts (ordered by insertion) and matches are common.
      const taskArb = fc.record({
        userId: fc.constantFrom(1, 1, 2),
        address: fc.integer({ min: 1, max: 3 }),
        status: fc.constantFrom<CollectionStatus>(1, 6, 11, 12),
        startedAt: fc.integer({ min: 0, max: 2 }),
      });
      const filterArb = fc.record({ status: fc.constantFrom<CollectionStatus>(1, 6, 11, 12), address: fc.integer({ min: 1, max: 4 }).map(addressOf) }, { requiredKeys: [] });
      const pageArb = fc.record({ offset: fc.integer({ min: 0, max: 6 }), limit: fc.integer({ min: 1, max: 6 }) });
      await fc.assert(fc.asyncProperty(fc.array(fc.array(taskArb, { maxLength: 5 }), { maxLength: 3 }), filterArb, pageArb, (commits, filter, page) =>
        withSubject(makeSubject, async ({ tasks, uow }) => {
          const inserted: CollectionTask[] = [];
          for (const specs of commits) {
            const rows = specs.map((s, i) => aTask({
              taskNo: `K${inserted.length + i}`, userId: s.userId, address: addressOf(s.address), status: s.status,
              startedAt: T0 + s.startedAt, finishedAt: TERMINAL.has(s.status) ? T0 + 10 : null,
            }));
            if (rows.length > 0) await uow.commit({ newTasks: rows });
            inserted.push(...rows);
          }
          // The reference: every task of user 1 that matches, newest first, a later insert first among equal starts.
          const matching = inserted.map((t, seq) => ({ t, seq }))
            .filter(({ t }) => t.userId === 1 && (filter.status === undefined || t.status === filter.status)
              && (filter.address === undefined || t.address === filter.address))
            .sort((a, b) => b.t.startedAt - a.t.startedAt || b.seq - a.seq).map(({ t }) => t);
          const found = await tasks.listByUser(1, filter, page);
          expect(found.total).toBe(matching.length);
          expect(found.items).toEqual(matching.slice(page.offset, page.offset + page.limit));
        })), { numRuns });
    });

    it('listByUser: newest first, equal starts in reverse insertion order (within and across commits), only the user\'s', async () => {
      const { tasks, uow } = subject();
      await uow.commit({ newTasks: [aTask({ taskNo: 'A', startedAt: T0 + 1 }), aTask({ taskNo: 'B', startedAt: T0 + 1, status: 11 })] });
      await uow.commit({ newTasks: [aTask({ taskNo: 'C', startedAt: T0 + 1, address: addressOf(2) }), aTask({ taskNo: 'D', startedAt: T0 })] });
      await uow.commit({ newTasks: [aTask({ taskNo: 'X', startedAt: T0 + 5, userId: 2 })] });
      const list = async (filter: Parameters<CollectionTaskRepository['listByUser']>[1], offset = 0, limit = 10) =>
        (await tasks.listByUser(1, filter, { offset, limit })).items.map((t) => t.taskNo);
      expect(await list({})).toEqual(['C', 'B', 'A', 'D']);
      expect(await list({}, 1, 2)).toEqual(['B', 'A']);
      expect(await list({ status: 1 })).toEqual(['C', 'A', 'D']);
      expect(await list({ address: addressOf(1) })).toEqual(['B', 'A', 'D']);
      expect(await list({ address: addressOf(1), status: 11 })).toEqual(['B']);
      expect(await tasks.listByUser(3, {}, { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
    });

    it('listFinishedSince: every user\'s tasks in the status finished at or after the time, oldest finish first, then by number (random tasks)', async () => {
      const taskArb = fc.record({
        userId: fc.constantFrom(1, 2), status: fc.constantFrom<CollectionStatus>(6, 11, 12), finishedAt: fc.integer({ min: 0, max: 3 }),
        no: fc.constantFrom('K1', 'K2', 'K10', 'Kb', 'KA', 'K_'),
      });
      await fc.assert(fc.asyncProperty(
        fc.uniqueArray(taskArb, { selector: (t) => t.no, maxLength: 6 }), fc.constantFrom<CollectionStatus>(11, 12), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 4 }),
        (specs, status, since, limit) => withSubject(makeSubject, async ({ tasks, uow }) => {
          const rows = specs.map((s) => aTask({
            taskNo: s.no, userId: s.userId, status: s.status, finishedAt: TERMINAL.has(s.status) ? T0 + s.finishedAt : null,
          }));
          if (rows.length > 0) await uow.commit({ newTasks: rows });
          const expected = rows.filter((t) => t.status === status && t.finishedAt !== null && t.finishedAt >= T0 + since)
            .sort((a, b) => a.finishedAt! - b.finishedAt! || (a.taskNo < b.taskNo ? -1 : a.taskNo > b.taskNo ? 1 : 0)).slice(0, limit);
          expect(await tasks.listFinishedSince(status, T0 + since, limit)).toEqual(expected);
        }),
      ), { numRuns });
    });

    it('listFinishedSince: equal finishes by task number in code-unit order, a later finish after, limited', async () => {
      const { tasks, uow } = subject();
      await uow.commit({ newTasks: [
        aTask({ taskNo: 'Kb', status: 11, finishedAt: T0 + 1 }), aTask({ taskNo: 'K_', status: 11, finishedAt: T0 + 1, userId: 2 }),
        aTask({ taskNo: 'KA', status: 11, finishedAt: T0 + 1 }), aTask({ taskNo: 'K2', status: 11, finishedAt: T0 + 1 }),
        aTask({ taskNo: 'K10', status: 11, finishedAt: T0 + 1 }), aTask({ taskNo: 'K0', status: 11, finishedAt: T0 }),
        aTask({ taskNo: 'K9', status: 11, finishedAt: T0 + 2 }), aTask({ taskNo: 'KF', status: 12, finishedAt: T0 + 1 }), aTask({ taskNo: 'KR', status: 6 }),
      ] });
      const list = async (since: number, limit: number) => (await tasks.listFinishedSince(11, since, limit)).map((t) => t.taskNo);
      expect(await list(T0 + 1, 10)).toEqual(['K10', 'K2', 'KA', 'K_', 'Kb', 'K9']);
      expect(await list(T0, 3)).toEqual(['K0', 'K10', 'K2']);
      expect(await list(T0 + 3, 10)).toEqual([]);
      expect((await tasks.listFinishedSince(12, T0, 10)).map((t) => t.taskNo)).toEqual(['KF']);
    });

    it('countByStatus counts the tasks in each status, terminal ones included, and follows updates', async () => {
      const { tasks, uow } = subject();
      expect(await tasks.countByStatus()).toEqual(new Map());
      const statuses: CollectionStatus[] = [1, 1, 6, 11, 11, 11, 12];
      await uow.commit({ newTasks: statuses.map((status, i) => aTask({ taskNo: `K${i}`, address: addressOf(i), status })) });
      expect(await tasks.countByStatus()).toEqual(new Map<CollectionStatus, number>([[1, 2], [6, 1], [11, 3], [12, 1]]));
      await tasks.update(aTask({ taskNo: 'K2', address: addressOf(2), status: 11, version: 2 }));
      expect(await tasks.countByStatus()).toEqual(new Map<CollectionStatus, number>([[1, 2], [11, 4], [12, 1]]));
    });

    options.extraTestsFn?.(makeSubject);
  });
}
