import { runs } from './support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../core/domain/errors.js';
import { COMMAND_STATUS, COMMAND_TYPE, type CommandStatus, type CommandType } from '../core/domain/model/command.js';
import { COLLECTION_STATUS } from '../core/domain/model/collection-task.js';
import type { CommandRepository } from '../core/ports/command-repository.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject, withSubject } from './support/contract-options.js';
import { aCommand, addressOf, T0 } from './support/fixtures.js';

/** What the command contract needs: an empty repository. */
export interface CommandRepositorySubject extends Closable {
  readonly commands: CommandRepository;
}

const LOCKING = { locking: true } as const;
const NOT_LOCKING = { locking: false } as const;
const { QUERY, WITHDRAWAL, COLLECTION, STAKE } = COMMAND_TYPE;
const { PENDING, RUNNING, SUCCESS, FAILED } = COMMAND_STATUS;

/** The CommandRepository contract (core/ports/command-repository.port.ts); a fresh, empty subject per test. */
export function describeCommandRepositoryContract(
  name: string,
  makeSubject: MakeSubject<CommandRepositorySubject>,
  options: ContractOptions<CommandRepositorySubject> = {},
): void {
  const concurrency = options.concurrency ?? 50;
  describe(`CommandRepository contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('inserts and gets a command with bigint, params and transaction intact', async () => {
      const { commands } = subject();
      const command = aCommand({
        lockedAmount: 2n ** 80n, params: { to: addressOf(5), amount: '123' },
        transaction: { txid: 'ab'.repeat(32), signedJson: '{"raw":1}', expiresAt: T0 + 60_000, broadcastAt: null },
      });
      expect(await commands.insert(command, LOCKING)).toBe('created');
      expect(await commands.get('C0001')).toEqual(command);
      expect(await commands.get('C9999')).toBeNull();
    });

    it('keeps the runner\'s lease, next run time and a transaction\'s refusal through update and get', async () => {
      const { commands } = subject();
      await commands.insert(aCommand(), LOCKING);
      const running = aCommand({
        status: RUNNING, startedAt: T0 + 1, version: 2, nextRunAt: T0 + 3_000, lease: { owner: 'w1', expiresAt: T0 + 60_000 },
        transaction: { txid: 'cd'.repeat(32), signedJson: '{"raw":2}', expiresAt: T0 + 60_000, broadcastAt: T0 + 2, refusal: 'CHAIN-BROADCAST-FAILED: TAPOS_ERROR' },
      });
      await commands.update(running);
      expect(await commands.get('C0001')).toEqual(running);
      const released = { ...running, lease: null, transaction: { ...running.transaction!, refusal: null }, version: 3 };
      await commands.update(released);
      expect(await commands.get('C0001')).toEqual(released);
    });

    it('keeps a funded withdrawal\'s funding (plan, records, cost, outcome) through update and get', async () => {
      const { commands } = subject();
      await commands.insert(aCommand(), LOCKING);
      const tx = { txid: 'ef'.repeat(32), signedJson: '{"raw":3}', expiresAt: T0 + 60_000, broadcastAt: T0 + 2 };
      const funded = aCommand({
        status: RUNNING, startedAt: T0 + 1, version: 2,
        funding: {
          mainAddress: addressOf(9), phase: COLLECTION_STATUS.RECOVER_TRX, energyPath: 'self',
          plan: {
            path: 'self', provider: null, energy: 64_285, activate: true, subNeedsSun: 345_000n, fundSun: 345_000n, sourceSun: 0n,
            estimatedCostSun: 1_445_000n, options: [{ path: 'self', provider: null, costSun: 1_445_000n, refusal: null }],
            dryRun: { amount: 10n ** 7n, energy: 64_285, subTrxSun: 0n, at: T0 },
          },
          steps: [
            { status: COLLECTION_STATUS.FUNDING_TRX, transaction: tx, orderRef: null, amount: 345_000n, startedAt: T0, completedAt: T0 + 3 },
            { status: COLLECTION_STATUS.ACQUIRING_ENERGY, transaction: null, orderRef: 'order-1', startedAt: T0 + 3, completedAt: null },
          ],
          cost: { bandwidthSun: 1n, energySun: 2n, activationSun: 3n, rentalSun: 4n, lentSun: 5n, returnedSun: 6n, txids: [tx.txid] },
          outcome: { ok: false, errorCode: 'CHAIN-TRANSACTION-FAILED', lastError: 'reverted' },
        },
      });
      await commands.update(funded);
      expect(await commands.get('C0001')).toEqual(funded);
      const plain = { ...funded, funding: null, version: 3 };
      await commands.update(plain);
      expect((await commands.get('C0001'))?.funding ?? null).toBeNull();
    });

    it('a locking insert is refused while the address has a PENDING or RUNNING fund-moving command', async () => {
      const { commands } = subject();
      await commands.insert(aCommand({ commandNo: 'C1', status: PENDING }), LOCKING);
      expect(await commands.insert(aCommand({ commandNo: 'C2', type: WITHDRAWAL }), LOCKING)).toBe('locked');
      expect(await commands.get('C2')).toBeNull();
      await commands.update(aCommand({ commandNo: 'C1', status: RUNNING, version: 2 }));
      expect(await commands.insert(aCommand({ commandNo: 'C3', type: STAKE }), LOCKING)).toBe('locked');
      await commands.update(aCommand({ commandNo: 'C1', status: FAILED, version: 3 }));
      expect(await commands.insert(aCommand({ commandNo: 'C4' }), LOCKING)).toBe('created');
    });

    it('other addresses, QUERY commands and non-locking inserts are not held back', async () => {
      const { commands } = subject();
      await commands.insert(aCommand({ commandNo: 'C1' }), LOCKING);
      expect(await commands.insert(aCommand({ commandNo: 'C2', address: addressOf(2) }), LOCKING)).toBe('created');
      expect(await commands.insert(aCommand({ commandNo: 'C3', type: QUERY }), NOT_LOCKING)).toBe('created');
      await commands.insert(aCommand({ commandNo: 'C4', type: QUERY, address: addressOf(3) }), NOT_LOCKING);
      expect(await commands.insert(aCommand({ commandNo: 'C5', address: addressOf(3) }), LOCKING)).toBe('created');
    });

    it('an active fund-moving command inserted without locking still holds its free address against a locking insert', async () => {
      const { commands } = subject();
      expect(await commands.insert(aCommand({ commandNo: 'C1', type: WITHDRAWAL }), NOT_LOCKING)).toBe('created');
      expect(await commands.insert(aCommand({ commandNo: 'C2' }), LOCKING)).toBe('locked');
      // Not refused itself when the address is taken: a second non-locking insert is stored beside the holder.
      expect(await commands.insert(aCommand({ commandNo: 'C3', type: STAKE }), NOT_LOCKING)).toBe('created');
      expect((await commands.findActiveByAddress(addressOf(1)))!.commandNo).toBe('C1');
    });

    it(`of ${concurrency} concurrent locking inserts on one address exactly one is created`, async () => {
      const { commands } = subject();
      const outcomes = await Promise.all(Array.from({ length: concurrency }, (_, i) =>
        commands.insert(aCommand({ commandNo: `C${i}`, type: i % 2 === 0 ? COLLECTION : WITHDRAWAL }), LOCKING)));
      expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'locked')).toHaveLength(concurrency - 1);
    });

    it('findActiveByAddress returns the lock holder only while it is PENDING or RUNNING', async () => {
      const { commands } = subject();
      await commands.insert(aCommand({ commandNo: 'Q1', type: QUERY }), NOT_LOCKING);
      expect(await commands.findActiveByAddress(addressOf(1))).toBeNull();
      await commands.insert(aCommand({ commandNo: 'C1' }), LOCKING);
      expect((await commands.findActiveByAddress(addressOf(1)))!.commandNo).toBe('C1');
      await commands.update(aCommand({ commandNo: 'C1', status: SUCCESS, version: 2 }));
      expect(await commands.findActiveByAddress(addressOf(1))).toBeNull();
      expect(await commands.findActiveByAddress(addressOf(2))).toBeNull();
    });

    it('listByUser: newest first, filtered by type and status, paged with the total', async () => {
      const { commands } = subject();
      const rows = [
        { commandNo: 'A', type: COLLECTION, status: SUCCESS, createdAt: T0 + 1 },
        { commandNo: 'B', type: QUERY, status: SUCCESS, createdAt: T0 + 4 },
        { commandNo: 'C', type: COLLECTION, status: FAILED, createdAt: T0 + 3 },
        { commandNo: 'D', type: WITHDRAWAL, status: SUCCESS, createdAt: T0 + 2 },
        { commandNo: 'E', type: COLLECTION, status: SUCCESS, createdAt: T0 + 5 },
      ] as const;
      for (const row of rows) await commands.insert(aCommand({ ...row, address: null }), NOT_LOCKING);
      await commands.insert(aCommand({ commandNo: 'X', userId: 2, createdAt: T0 + 9 }), NOT_LOCKING);
      const all = await commands.listByUser(1, {}, { offset: 0, limit: 20 });
      expect(all.items.map((c) => c.commandNo)).toEqual(['E', 'B', 'C', 'D', 'A']);
      expect(all.total).toBe(5);
      const collections = await commands.listByUser(1, { type: COLLECTION }, { offset: 0, limit: 20 });
      expect(collections.items.map((c) => c.commandNo)).toEqual(['E', 'C', 'A']);
      const succeeded = await commands.listByUser(1, { type: COLLECTION, status: SUCCESS }, { offset: 1, limit: 1 });
      expect(succeeded).toMatchObject({ total: 2, items: [{ commandNo: 'A' }] });
      expect((await commands.listByUser(1, { status: FAILED }, { offset: 0, limit: 20 })).items.map((c) => c.commandNo)).toEqual(['C']);
      expect(await commands.listByUser(1, {}, { offset: 5, limit: 20 })).toEqual({ items: [], total: 5 });
      expect(await commands.listByUser(3, {}, { offset: 0, limit: 20 })).toEqual({ items: [], total: 0 });
    });

    it('update is optimistic: a stale, skipped or unknown version throws ConcurrencyConflict', async () => {
      const { commands } = subject();
      await commands.insert(aCommand(), LOCKING);
      await commands.update(aCommand({ status: RUNNING, startedAt: T0 + 1, version: 2 }));
      await expect(commands.update(aCommand({ status: FAILED, version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(commands.update(aCommand({ status: FAILED, version: 4 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(commands.update(aCommand({ commandNo: 'nope', version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await commands.get('C0001')).toEqual(aCommand({ status: RUNNING, startedAt: T0 + 1, version: 2 }));
    });

    it('of concurrent updates from one version exactly one wins', async () => {
      const { commands } = subject();
      await commands.insert(aCommand(), LOCKING);
      const outcomes = await Promise.allSettled([SUCCESS, FAILED, RUNNING].map((status) => commands.update(aCommand({ status, version: 2 }))));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    });

    it('claimDue: PENDING and RUNNING commands of the given types, earliest due then oldest, under a lease', async () => {
      const { commands } = subject();
      const rows = [
        { commandNo: 'W3', type: WITHDRAWAL, createdAt: T0 + 3 },
        { commandNo: 'W1', type: WITHDRAWAL, createdAt: T0 + 1, status: RUNNING, startedAt: T0 + 1 },
        { commandNo: 'S2', type: STAKE, createdAt: T0 + 2 },
        { commandNo: 'K0', type: COLLECTION, createdAt: T0 },
        { commandNo: 'L9', type: WITHDRAWAL, createdAt: T0, nextRunAt: T0 + 50 },
        { commandNo: 'D8', type: WITHDRAWAL, createdAt: T0, status: SUCCESS, startedAt: T0, finishedAt: T0 + 1 },
      ] as const;
      for (const [i, row] of rows.entries()) await commands.insert(aCommand({ ...row, address: addressOf(i) }), NOT_LOCKING);
      const claimed: string[] = [];
      for (;;) {
        const c = await commands.claimDue([WITHDRAWAL, STAKE], T0 + 10, 'w1', 1_000);
        if (c === null) break;
        expect(c.lease).toEqual({ owner: 'w1', expiresAt: T0 + 1_010 });
        expect(await commands.get(c.commandNo)).toEqual(c);
        claimed.push(c.commandNo);
      }
      // L9 is not due until T0 + 50, D8 is terminal, K0 is not of the types.
      expect(claimed).toEqual(['W1', 'S2', 'W3']);
      expect(await commands.claimDue([QUERY], T0 + 10, 'w1', 1_000)).toBeNull();
      // Leased: nobody else gets them until the lease ends; then the earliest due goes first (L9 due at T0 + 50).
      expect(await commands.claimDue([WITHDRAWAL, STAKE], T0 + 100, 'w2', 1_000)).toMatchObject({ commandNo: 'L9' });
      expect(await commands.claimDue([WITHDRAWAL, STAKE], T0 + 1_010, 'w2', 1_000)).toMatchObject({ commandNo: 'W1', lease: { owner: 'w2' } });
    });

    it('claimDue bumps the version, so the loser of a lease takeover fails its next write', async () => {
      const { commands } = subject();
      await commands.insert(aCommand({ type: WITHDRAWAL }), LOCKING);
      const first = (await commands.claimDue([WITHDRAWAL], T0, 'w1', 100))!;
      expect(first.version).toBe(2);
      const second = (await commands.claimDue([WITHDRAWAL], T0 + 100, 'w2', 100))!;
      expect(second).toMatchObject({ version: 3, lease: { owner: 'w2' } });
      await expect(commands.update({ ...first, status: RUNNING, version: first.version + 1 })).rejects.toBeInstanceOf(ConcurrencyConflict);
      await commands.update({ ...second, status: RUNNING, lease: null, nextRunAt: T0 + 500, version: second.version + 1 });
      expect(await commands.claimDue([WITHDRAWAL], T0 + 499, 'w3', 100)).toBeNull();
      expect(await commands.claimDue([WITHDRAWAL], T0 + 500, 'w3', 100)).toMatchObject({ status: RUNNING, nextRunAt: T0 + 500 });
    });

    it('of concurrent claims of one due command exactly one wins', async () => {
      const { commands } = subject();
      await commands.insert(aCommand({ type: WITHDRAWAL }), LOCKING);
      const claims = await Promise.all(['a', 'b', 'c'].map((owner) => commands.claimDue([WITHDRAWAL], T0, owner, 1_000)));
      expect(claims.filter((c) => c !== null)).toHaveLength(1);
    });

    it('listFinishedSince: every user\'s commands of the type in the status finished at or after the time, oldest finish first, then by number (random commands)', async () => {
      const commandArb = fc.record({
        userId: fc.constantFrom(1, 2), type: fc.constantFrom<CommandType>(WITHDRAWAL, STAKE),
        status: fc.constantFrom<CommandStatus>(RUNNING, SUCCESS, FAILED), finishedAt: fc.integer({ min: 0, max: 3 }),
        no: fc.constantFrom('C1', 'C2', 'C10', 'Cb', 'CA', 'C_'),
      });
      await fc.assert(fc.asyncProperty(
        fc.uniqueArray(commandArb, { selector: (c) => c.no, maxLength: 6 }), fc.constantFrom<CommandType>(WITHDRAWAL, STAKE),
        fc.constantFrom<CommandStatus>(SUCCESS, FAILED), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 4 }),
        (specs, type, status, since, limit) => withSubject(makeSubject, async ({ commands }) => {
          const rows = specs.map((s, i) => aCommand({
            commandNo: s.no, userId: s.userId, type: s.type, status: s.status, address: addressOf(i + 1),
            finishedAt: s.status === RUNNING ? null : T0 + s.finishedAt,
          }));
          for (const row of rows) await commands.insert(row, NOT_LOCKING);
          const expected = rows.filter((c) => c.type === type && c.status === status && c.finishedAt !== null && c.finishedAt >= T0 + since)
            .sort((a, b) => a.finishedAt! - b.finishedAt! || (a.commandNo < b.commandNo ? -1 : a.commandNo > b.commandNo ? 1 : 0)).slice(0, limit);
          expect(await commands.listFinishedSince(type, status, T0 + since, limit)).toEqual(expected);
        }),
      ), { numRuns: runs(25) });
    });

    it('listFinishedSince: equal finishes by command number in code-unit order, a later finish after, limited, other types and statuses apart', async () => {
      const { commands } = subject();
      const rows = [
        aCommand({ commandNo: 'Cb', status: SUCCESS, finishedAt: T0 + 1 }), aCommand({ commandNo: 'C_', status: SUCCESS, finishedAt: T0 + 1, userId: 2 }),
        aCommand({ commandNo: 'CA', status: SUCCESS, finishedAt: T0 + 1 }), aCommand({ commandNo: 'C2', status: SUCCESS, finishedAt: T0 + 1 }),
        aCommand({ commandNo: 'C10', status: SUCCESS, finishedAt: T0 + 1 }), aCommand({ commandNo: 'C0', status: SUCCESS, finishedAt: T0 }),
        aCommand({ commandNo: 'C9', status: SUCCESS, finishedAt: T0 + 2 }), aCommand({ commandNo: 'CF', status: FAILED, finishedAt: T0 + 1 }),
        aCommand({ commandNo: 'CS', type: STAKE, status: SUCCESS, finishedAt: T0 + 1 }), aCommand({ commandNo: 'CR', status: RUNNING }),
      ];
      for (const [i, row] of rows.entries()) await commands.insert({ ...row, type: row.commandNo === 'CS' ? STAKE : WITHDRAWAL, address: addressOf(i + 1) }, NOT_LOCKING);
      const list = async (since: number, limit: number) => (await commands.listFinishedSince(WITHDRAWAL, SUCCESS, since, limit)).map((c) => c.commandNo);
      expect(await list(T0 + 1, 10)).toEqual(['C10', 'C2', 'CA', 'C_', 'Cb', 'C9']);
      expect(await list(T0, 3)).toEqual(['C0', 'C10', 'C2']);
      expect(await list(T0 + 3, 10)).toEqual([]);
      expect((await commands.listFinishedSince(WITHDRAWAL, FAILED, T0, 10)).map((c) => c.commandNo)).toEqual(['CF']);
      expect((await commands.listFinishedSince(STAKE, SUCCESS, T0, 10)).map((c) => c.commandNo)).toEqual(['CS']);
    });

    it('returns copies: changing a returned object does not change the stored one', async () => {
      const { commands } = subject();
      await commands.insert(aCommand(), LOCKING);
      const got = (await commands.get('C0001'))!;
      try { (got as { status: number }).status = SUCCESS; } catch { /* a frozen copy is fine too */ }
      expect((await commands.findActiveByAddress(addressOf(1)))!.status).toBe(PENDING);
    });

    options.extraTestsFn?.(makeSubject);
  });
}
