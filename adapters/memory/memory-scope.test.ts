import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aLedgerDeposit } from '../../contracts-tests/ledger.contract.js';
import { aCommand, addressOf } from '../../contracts-tests/support/fixtures.js';
import { sealAuditEntry } from '../../core/domain/audit-chain.js';
import { COMMAND_STATUS, COMMAND_TYPE } from '../../core/domain/model/command.js';
import { MemoryAuditLog } from './memory-audit-log.js';
import { MemoryLedger } from './memory-ledger.js';
import { JournaledMap } from './memory-scope.js';
import { MemoryStore } from './memory-store.js';

/**
 * UnitOfWork.atomically on the memory store (issue #39 item 7; memory-scope.ts): whatever a scope writes — rows of an
 * indexed table (inserts, replaces, deletes), keys of a plain table, audit entries, ledger postings — a throw puts back
 * exactly the state it began on: rows, their order, the indexes, the books. A nested scope's throw takes back its own.
 */
type Op =
  | { readonly kind: 'command'; readonly no: number; readonly user: number; readonly address: number | null; readonly done: boolean }
  | { readonly kind: 'dropCommand'; readonly no: number }
  | { readonly kind: 'key'; readonly key: number; readonly value: number }
  | { readonly kind: 'dropKey'; readonly key: number }
  | { readonly kind: 'audit'; readonly user: number }
  | { readonly kind: 'post'; readonly n: number; readonly amount: bigint };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('command' as const), no: fc.nat(5), user: fc.nat(2), address: fc.option(fc.nat(1), { nil: null }), done: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('dropCommand' as const), no: fc.nat(5) }),
  fc.record({ kind: fc.constant('key' as const), key: fc.nat(5), value: fc.nat(9) }),
  fc.record({ kind: fc.constant('dropKey' as const), key: fc.nat(5) }),
  fc.record({ kind: fc.constant('audit' as const), user: fc.nat(2) }),
  fc.record({ kind: fc.constant('post' as const), n: fc.nat(4), amount: fc.bigInt({ min: 1n, max: 5n }) }),
);

/** A store, a plain journaled table beside it, its audit log and books. */
class World {
  readonly store = new MemoryStore();
  readonly keys = new JournaledMap<number, number>();
  readonly audit = new MemoryAuditLog(this.store);
  readonly ledger = new MemoryLedger();

  async apply(o: Op): Promise<void> {
    const commands = this.store.commands;
    switch (o.kind) {
      case 'command': {
        const no = `C${o.no}`;
        commands.set(no, aCommand({
          commandNo: no, userId: o.user, type: COMMAND_TYPE.COLLECTION, address: o.address === null ? null : addressOf(o.address + 1),
          status: o.done ? COMMAND_STATUS.SUCCESS : COMMAND_STATUS.PENDING, version: (commands.get(no)?.version ?? 0) + 1,
        }));
        return;
      }
      case 'dropCommand':
        commands.delete(`C${o.no}`);
        return;
      case 'key':
        this.keys.set(o.key, o.value);
        return;
      case 'dropKey':
        this.keys.delete(o.key);
        return;
      case 'audit': {
        const head = await this.audit.head(o.user);
        await this.audit.insert(sealAuditEntry(head, { userId: o.user, action: 'auth.login', actor: { kind: 'user', id: null }, detail: {} }, 1));
        return;
      }
      case 'post':
        await this.ledger.post(aLedgerDeposit(o.n, { amount: o.amount }));
    }
  }

  async applyAll(ops: readonly Op[]): Promise<void> {
    for (const o of ops) await this.apply(o);
  }

  /** Everything a reader could tell apart: rows in table order, index answers, keys in order, chains, the books. */
  async snapshot(): Promise<unknown> {
    const commands = this.store.commands;
    const users = [0, 1, 2];
    return {
      rows: [...commands.entries()],
      order: [...commands.keys()].sort((a, b) => commands.seqOf(a) - commands.seqOf(b)),
      byUser: users.map((u) => commands.byUser.keys(u)),
      holders: [1, 2].map((a) => [...commands.lockHolders.keys(addressOf(a))]),
      due: commands.dueByType.get(COMMAND_TYPE.COLLECTION)!.queue.size,
      keys: [...this.keys.entries()],
      chains: await Promise.all(users.map((u) => this.audit.readChain(u, 0, 100))),
      books: await this.ledger.entries(1, {}, { offset: 0, limit: 100 }),
      balances: await this.ledger.balancesAt(1, Number.MAX_SAFE_INTEGER),
    };
  }
}

const boom = new Error('the scope throws');

describe('memory atomic scopes (memory-scope.ts)', () => {
  it('a scope that throws leaves exactly the state it began on, whatever it wrote', async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 12 }), fc.array(op, { minLength: 1, maxLength: 12 }), async (before, inside) => {
      const world = new World();
      await world.applyAll(before);
      const start = await world.snapshot();
      await expect(world.store.gate.atomically(async () => {
        await world.applyAll(inside);
        throw boom;
      })).rejects.toBe(boom);
      expect(await world.snapshot()).toEqual(start);
      // The rows put back are live: the next writes index them as any others.
      await world.applyAll(inside);
      const twin = new World();
      await twin.applyAll([...before, ...inside]);
      expect(await world.snapshot()).toEqual(await twin.snapshot());
    }), { numRuns: runs(150) });
  });

  it('a nested scope that throws takes back its own writes only; the outer scope\'s land', async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 8 }), fc.array(op, { maxLength: 8 }), fc.array(op, { minLength: 1, maxLength: 8 }),
      fc.array(op, { maxLength: 8 }), async (before, outerFirst, nested, outerAfter) => {
        const world = new World();
        await world.applyAll(before);
        await world.store.gate.atomically(async () => {
          await world.applyAll(outerFirst);
          await expect(world.store.gate.atomically(async () => {
            await world.applyAll(nested);
            throw boom;
          })).rejects.toBe(boom);
          await world.applyAll(outerAfter);
        });
        const twin = new World();
        await twin.applyAll([...before, ...outerFirst, ...outerAfter]);
        expect(await world.snapshot()).toEqual(await twin.snapshot());
      }), { numRuns: runs(100) });
  });
});
