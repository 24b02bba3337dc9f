import { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict, DomainError } from '../../core/domain/errors.js';
import { aCommand, addressOf, anEvent, aTask, aWallet, T0 } from '../../contracts-tests/support/fixtures.js';
import type { MongoTestDatabase } from '../../contracts-tests/harness/mongodb.js';
import { ManualClock } from '../memory/manual-clock.js';
import { COLLECTIONS } from './collections.js';
import { createMongoAdapters, type MongoAdapters } from './create-mongo-adapters.js';
import { ensureIndexes, INDEX_DEFINITIONS } from './mongo-indexes.js';

const DAY = 24 * 60 * 60 * 1000;
const LEASE = 30_000;

/**
 * MongoDB-only tests, run inside the integration file after the shared contract suites. They cover what no shared
 * suite can: the stored representation (money never a double), the server's index set, atomicity of the unit of
 * work (no contract suite for it yet), the idempotency store and id sequences, several clients on one database
 * (as several processes would be), and the standalone fallback.
 */
export function describeMongoAdapterTests(database: () => MongoTestDatabase, fresh: () => Promise<MongoAdapters>): void {
  describe('MongoDB adapters: store specifics', () => {
    it('stores amounts as decimal strings, never as doubles, and reads them back exactly', async () => {
      const store = await fresh();
      await store.commands.insert(aCommand({ lockedAmount: 2n ** 80n + 1n }), { locking: true });
      await store.balances.put({ address: addressOf(1), refreshSource: 1, updatedAt: T0, items: [{ symbol: 'USDT', available: 10n ** 30n, updatedAt: T0 }] });
      const { db } = database().connection;
      const raw = await db.collection(COLLECTIONS.commands).findOne({ _id: 'C0001' as never });
      expect(raw?.['lockedAmount']).toBe((2n ** 80n + 1n).toString());
      expect(await db.collection(COLLECTIONS.commands).countDocuments({ lockedAmount: { $type: 'double' } })).toBe(0);
      expect(await db.collection(COLLECTIONS.balances).countDocuments({ 'items.available': { $type: 'string' } })).toBe(1);
      expect((await store.balances.get(addressOf(1)))!.items[0]!.available).toBe(10n ** 30n);
    });

    it('has every documented index with its uniqueness, partial filter and TTL; ensureIndexes is idempotent', async () => {
      const { db } = database().connection;
      await ensureIndexes(db);
      for (const definition of INDEX_DEFINITIONS) {
        const found = (await db.collection(definition.collection).listIndexes().toArray()).find((i) => i['name'] === definition.options.name);
        expect(found, `${definition.collection}.${definition.options.name}`).toBeDefined();
        expect(found!['key']).toEqual(definition.keys);
        expect(found!['unique'] === true).toBe(definition.options.unique === true);
        expect(found!['partialFilterExpression']).toEqual(definition.options.partialFilterExpression);
        expect(found!['expireAfterSeconds']).toEqual(definition.options.expireAfterSeconds);
      }
    });

    it('reports a replica set: transactions are on', () => {
      expect(database().connection.transactions).toBe(true);
    });
  });

  describe('MongoDB adapters: unit of work (atomic change sets)', () => {
    it('a locked address aborts the whole change set: the task and the event are not stored', async () => {
      const { uow, commands, tasks, outbox } = await fresh();
      await commands.insert(aCommand({ commandNo: 'HOLDER' }), { locking: true });
      const commit = uow.commit({ newCommands: [aCommand({ commandNo: 'C2' })], newTasks: [aTask({ commandNo: 'C2' })], events: [anEvent()] });
      await expect(commit).rejects.toSatisfy((e) => e instanceof DomainError && e.code === 'BIZ-COMMAND-LOCKED');
      expect(await commands.get('C2')).toBeNull();
      expect(await tasks.get('K0001')).toBeNull();
      expect(await outbox.get(anEvent().eventId)).toBeNull();
    });

    it('a stale replace aborts the whole change set with ConcurrencyConflict', async () => {
      const { uow, commands, outbox } = await fresh();
      await commands.insert(aCommand(), { locking: true });
      const stale = aCommand({ status: 3, version: 3 });
      await expect(uow.commit({ commands: [stale], events: [anEvent()] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect((await commands.get('C0001'))!.version).toBe(1);
      expect(await outbox.listUndispatched(10)).toEqual([]);
    });

    it('a command turning terminal frees its address for a new command in the same change set', async () => {
      const { uow, commands, tasks } = await fresh();
      await uow.commit({ newCommands: [aCommand()], newTasks: [aTask()] });
      const done = aCommand({ status: 3, finishedAt: T0 + 5, version: 2 });
      const finished = aTask({ status: 11, finishedAt: T0 + 5, version: 2 });
      await uow.commit({ commands: [done], tasks: [finished], newCommands: [aCommand({ commandNo: 'C2' })], events: [anEvent()] });
      expect(await commands.get('C0001')).toEqual(done);
      expect(await tasks.get('K0001')).toEqual(finished);
      expect((await commands.findActiveByAddress(addressOf(1)))!.commandNo).toBe('C2');
      expect(await commands.insert(aCommand({ commandNo: 'C3' }), { locking: true })).toBe('locked');
    });

    it('a taken task number or event id is a ConcurrencyConflict and writes nothing', async () => {
      const { uow, commands } = await fresh();
      await uow.commit({ newTasks: [aTask()], events: [anEvent()] });
      await expect(uow.commit({ newCommands: [aCommand({ commandNo: 'N1' })], newTasks: [aTask()] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(uow.commit({ newCommands: [aCommand({ commandNo: 'N2' })], events: [anEvent()] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await commands.get('N1')).toBeNull();
      expect(await commands.get('N2')).toBeNull();
    });
  });

  describe('MongoDB adapters: idempotency store and id sequences', () => {
    it('of 20 concurrent begins exactly one starts; then replay, mismatch, and a fresh start after the window', async () => {
      const clock = new ManualClock();
      const { idempotency } = createMongoAdapters({ connection: database().connection, clock });
      await database().clear();
      const begins = await Promise.all(Array.from({ length: 20 }, () => idempotency.begin('u1:POST:/transfers', 'k1', 'h1', DAY)));
      expect(begins.filter((b) => b.outcome === 'started')).toHaveLength(1);
      expect(begins.filter((b) => b.outcome === 'in-progress')).toHaveLength(19);
      await idempotency.complete('u1:POST:/transfers', 'k1', { status: 201, body: '{"ok":true}' });
      expect(await idempotency.begin('u1:POST:/transfers', 'k1', 'h1', DAY)).toEqual({ outcome: 'replay', response: { status: 201, body: '{"ok":true}' } });
      expect(await idempotency.begin('u1:POST:/transfers', 'k1', 'h2', DAY)).toEqual({ outcome: 'mismatch' });
      expect(await idempotency.begin('u2:POST:/transfers', 'k1', 'h2', DAY)).toEqual({ outcome: 'started' });
      clock.advance(DAY);
      expect(await idempotency.begin('u1:POST:/transfers', 'k1', 'h2', DAY)).toEqual({ outcome: 'started' });
      const raw = await database().connection.db.collection(COLLECTIONS.idempotency).findOne({ scope: 'u1:POST:/transfers', key: 'k1' });
      expect(raw?.['purgeAt']).toBeInstanceOf(Date);
      expect((raw!['purgeAt'] as Date).getTime()).toBeGreaterThanOrEqual(raw!['expiresAt'] as number);
    });

    it('abandon lets the same key start again; complete does not revive an abandoned record', async () => {
      const { idempotency } = await fresh();
      expect((await idempotency.begin('s', 'k', 'h', DAY)).outcome).toBe('started');
      await idempotency.abandon('s', 'k');
      await idempotency.complete('s', 'k', { status: 200, body: '{}' });
      expect((await idempotency.begin('s', 'k', 'h', DAY)).outcome).toBe('started');
    });

    it('sequences from two clients on one database are distinct and dense', async () => {
      const first = await fresh();
      const second = await secondClient(database());
      try {
        const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? first : second.adapters).ids.nextInt('user')));
        expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      } finally {
        await second.close();
      }
    });
  });

  describe('MongoDB adapters: risk deny-list (no contract suite yet; mirrors MemoryRiskPolicy)', () => {
    it('blocks a listed user, address or destination; deny is idempotent and keeps the first position; allow removes', async () => {
      const { risk } = await fresh();
      await risk.deny({ kind: 'address', value: addressOf(2), reason: null });
      await risk.deny({ kind: 'user', value: '7', reason: 'fraud' });
      await Promise.all([1, 2, 3].map(() => risk.deny({ kind: 'address', value: addressOf(2), reason: 'sanctioned' })));
      expect(await risk.list()).toEqual([
        { kind: 'address', value: addressOf(2), reason: 'sanctioned' },
        { kind: 'user', value: '7', reason: 'fraud' },
      ]);
      expect(await risk.check({ userId: 7, operation: 'withdrawal', address: addressOf(2) })).toEqual({ blocked: true, reason: 'fraud' });
      expect(await risk.check({ userId: 1, operation: 'withdrawal', address: addressOf(1), toAddress: addressOf(2) }))
        .toEqual({ blocked: true, reason: 'sanctioned' });
      expect(await risk.check({ userId: 1, operation: 'collection', address: addressOf(1) })).toEqual({ blocked: false });
      expect(await risk.allow('address', addressOf(2))).toBe(true);
      expect(await risk.allow('address', addressOf(2))).toBe(false);
      expect((await risk.check({ userId: 1, operation: 'withdrawal', address: addressOf(1), toAddress: addressOf(2) })).blocked).toBe(false);
    });
  });

  describe('MongoDB adapters: several processes on one database', () => {
    it('two clients claiming 10 due tasks: each task has exactly one owner', async () => {
      const first = await fresh();
      const second = await secondClient(database());
      try {
        await first.uow.commit({ newTasks: Array.from({ length: 10 }, (_, i) => aTask({ taskNo: `K${i}`, address: addressOf(i) })) });
        const claims = await Promise.all(Array.from({ length: 30 }, (_, i) =>
          (i % 2 === 0 ? first : second.adapters).tasks.claimDue(T0, `worker-${i}`, LEASE)));
        const claimed = claims.filter((c) => c !== null);
        expect(claimed).toHaveLength(10);
        expect(new Set(claimed.map((c) => c.taskNo)).size).toBe(10);
      } finally {
        await second.close();
      }
    });

    it('two clients inserting locking commands on one address: exactly one is created', async () => {
      const first = await fresh();
      const second = await secondClient(database());
      try {
        const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? first : second.adapters).commands.insert(aCommand({ commandNo: `C${i}` }), { locking: true })));
        expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
      } finally {
        await second.close();
      }
    });
  });

  describe('MongoDB adapters: standalone fallback (no transactions)', () => {
    it('keeps the sub-address quota under concurrency by reserving on the counter', async () => {
      await database().clear();
      const { wallets } = createMongoAdapters({ connection: { ...database().connection, transactions: false }, clock: new ManualClock() });
      const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => wallets.insert(aWallet({ id: i + 1 }), { maxSubAddresses: 7 })));
      expect(outcomes.filter((o) => o === 'created')).toHaveLength(7);
      expect(await wallets.countSubs(1, 'TRON')).toBe(7);
      expect(await wallets.insert(aWallet({ id: 99, address: addressOf(1) }), { maxSubAddresses: -1 })).toBe('address-exists');
      expect(await wallets.insert(aWallet({ id: 100 }), { maxSubAddresses: 8 })).toBe('created');
    });

    it('still applies a change set, and a failing one (locked, stale, taken) writes nothing', async () => {
      await database().clear();
      const { uow, commands, tasks, outbox } = createMongoAdapters({ connection: { ...database().connection, transactions: false }, clock: new ManualClock() });
      await uow.commit({ newCommands: [aCommand()], newTasks: [aTask()] });
      expect(await commands.get('C0001')).toEqual(aCommand());
      const locked = uow.commit({ newTasks: [aTask({ taskNo: 'K2' })], events: [anEvent()], newCommands: [aCommand({ commandNo: 'C2' })] });
      await expect(locked).rejects.toSatisfy((e) => e instanceof DomainError && e.code === 'BIZ-COMMAND-LOCKED');
      const stale = uow.commit({ events: [anEvent()], commands: [aCommand({ status: 3, version: 3 })] });
      await expect(stale).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(uow.commit({ events: [anEvent()], newTasks: [aTask()] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await tasks.get('K2')).toBeNull();
      expect(await outbox.get(anEvent().eventId)).toBeNull();
      await uow.commit({ commands: [aCommand({ status: 3, version: 2 })], newCommands: [aCommand({ commandNo: 'C3' })] });
      expect((await commands.findActiveByAddress(addressOf(1)))!.commandNo).toBe('C3');
    });
  });
}

/** A second MongoClient on the same database: what another API or worker process would hold. */
async function secondClient(database: MongoTestDatabase): Promise<{ adapters: MongoAdapters; close(): Promise<void> }> {
  const other = new MongoClient(database.url, { serverSelectionTimeoutMS: 5_000 });
  const connection = { client: other, db: other.db(database.connection.db.databaseName), transactions: true };
  return { adapters: createMongoAdapters({ connection, clock: new ManualClock() }), close: () => other.close() };
}
