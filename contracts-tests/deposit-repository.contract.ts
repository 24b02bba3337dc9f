import { runs } from './support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../core/domain/errors.js';
import type { Deposit, DepositStatus } from '../core/domain/model/deposit.js';
import type { DepositFilter, DepositRepository } from '../core/ports/deposit-repository.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject, withSubject } from './support/contract-options.js';
import { addressOf, T0 } from './support/fixtures.js';

/** What the deposit contract needs: an empty repository. */
export interface DepositRepositorySubject extends Closable {
  readonly deposits: DepositRepository;
}

/** A pending TRX deposit of user 1 to addressOf(1), transfer `tx<n>`, deposit id `D<n>`. */
export function aDeposit(overrides: Partial<Deposit> = {}): Deposit {
  return {
    depositId: 'D1', transferId: 'aa'.repeat(32), userId: 1, address: addressOf(1), networkCode: 'TRON', assetSymbol: 'TRX',
    amount: 1_500_000n, fromAddress: addressOf(500), txid: 'aa'.repeat(32), blockNumber: 100, status: 'pending', detectedAt: T0,
    confirmedAt: null, version: 1, ...overrides,
  };
}

/** Deposit `n`: its own deposit id, txid and transfer id (an internal transfer's id, to have a `:` in it). */
function depositNo(n: number, overrides: Partial<Deposit> = {}): Deposit {
  const txid = n.toString(16).padStart(64, '0');
  return aDeposit({ depositId: `D${n}`, txid, transferId: `${txid}:internal:0`, ...overrides });
}

const matches = (d: Deposit, f: DepositFilter): boolean => (f.address === undefined || d.address === f.address)
  && (f.assetSymbol === undefined || d.assetSymbol === f.assetSymbol) && (f.status === undefined || d.status === f.status);

/** The DepositRepository contract (core/ports/deposit-repository.port.ts); a fresh, empty subject per test. */
export function describeDepositRepositoryContract(
  name: string,
  makeSubject: MakeSubject<DepositRepositorySubject>,
  options: ContractOptions<DepositRepositorySubject> = {},
): void {
  const concurrency = options.concurrency ?? 50;
  const numRuns = options.numRuns ?? runs(50);
  describe(`DepositRepository contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('inserts and finds by deposit id and by transfer, keeping every field (an amount past 2^64 exactly)', async () => {
      const { deposits } = subject();
      const deposit = depositNo(1, { amount: 2n ** 70n + 1n, assetSymbol: 'USDT' });
      expect(await deposits.insert(deposit)).toEqual({ created: true, deposit });
      expect(await deposits.findById('D1')).toEqual(deposit);
      expect(await deposits.findByTransfer('TRON', deposit.transferId)).toEqual(deposit);
      expect(await deposits.findById('D2')).toBeNull();
      expect(await deposits.findByTransfer('TRON', deposit.txid)).toBeNull();
    });

    it('a second insert of the same transfer creates nothing and returns the stored record unchanged', async () => {
      const { deposits } = subject();
      const first = depositNo(1);
      await deposits.insert(first);
      const again = await deposits.insert({ ...first, depositId: 'D2', status: 'confirmed', confirmedAt: T0 + 5, amount: 7n, version: 4 });
      expect(again).toEqual({ created: false, deposit: first });
      expect(await deposits.findById('D2')).toBeNull();
      expect(await deposits.findById('D1')).toEqual(first);
      expect((await deposits.listByUser(1, {}, { offset: 0, limit: 10 })).total).toBe(1);
    });

    it('a deposit id already used by another transfer is a ConcurrencyConflict', async () => {
      const { deposits } = subject();
      await deposits.insert(depositNo(1));
      await expect(deposits.insert(depositNo(2, { depositId: 'D1' }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await deposits.findByTransfer('TRON', depositNo(2).transferId)).toBeNull();
    });

    it(`of ${concurrency} concurrent inserts of one transfer exactly one creates, and all return its record`, async () => {
      const { deposits } = subject();
      const results = await Promise.all(Array.from({ length: concurrency }, (_, i) => deposits.insert(depositNo(1, { depositId: `R${i}` }))));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const winner = results.find((r) => r.created)!.deposit.depositId;
      expect(new Set(results.map((r) => r.deposit.depositId))).toEqual(new Set([winner]));
      expect((await deposits.listByUser(1, {}, { offset: 0, limit: 100 })).total).toBe(1);
    });

    it('update replaces when the version follows the stored one; stale, skipped or unknown is a ConcurrencyConflict', async () => {
      const { deposits } = subject();
      await deposits.insert(depositNo(1));
      const confirmed = depositNo(1, { status: 'confirmed', confirmedAt: T0 + 60_000, version: 2 });
      await deposits.update(confirmed);
      expect(await deposits.findById('D1')).toEqual(confirmed);
      await expect(deposits.update(depositNo(1, { status: 'reverted', version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(deposits.update(depositNo(1, { status: 'reverted', version: 4 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(deposits.update(depositNo(9, { version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await deposits.findById('D1')).toEqual(confirmed);
    });

    it('of concurrent updates from the same version exactly one wins', async () => {
      const { deposits } = subject();
      await deposits.insert(depositNo(1));
      const statuses: DepositStatus[] = ['confirmed', 'reverted'];
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) =>
        deposits.update(depositNo(1, { status: statuses[i % 2]!, blockNumber: 200 + i, version: 2 }))));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 'rejected').every((o) => (o as PromiseRejectedResult).reason instanceof ConcurrencyConflict)).toBe(true);
      expect((await deposits.findById('D1'))!.version).toBe(2);
    });

    it('lists the user\'s deposits newest first (ties: the later inserted first), filtered, paged with the total', async () => {
      const { deposits } = subject();
      await deposits.insert(depositNo(1, { detectedAt: T0 + 1 }));
      await deposits.insert(depositNo(2, { detectedAt: T0 + 3, assetSymbol: 'USDT' }));
      await deposits.insert(depositNo(3, { detectedAt: T0 + 2, address: addressOf(2), status: 'confirmed', confirmedAt: T0 + 9 }));
      await deposits.insert(depositNo(4, { detectedAt: T0 + 2 }));
      await deposits.insert(depositNo(5, { detectedAt: T0 + 5, userId: 2, address: addressOf(3) }));
      const ids = async (filter: DepositFilter, offset = 0, limit = 10) => {
        const page = await deposits.listByUser(1, filter, { offset, limit });
        return { ids: page.items.map((d) => d.depositId), total: page.total };
      };
      expect(await ids({})).toEqual({ ids: ['D2', 'D4', 'D3', 'D1'], total: 4 });
      expect(await ids({}, 1, 2)).toEqual({ ids: ['D4', 'D3'], total: 4 });
      expect(await ids({ address: addressOf(1) })).toEqual({ ids: ['D2', 'D4', 'D1'], total: 3 });
      expect(await ids({ assetSymbol: 'TRX', address: addressOf(1) }, 1, 5)).toEqual({ ids: ['D1'], total: 2 });
      expect(await ids({ status: 'confirmed' })).toEqual({ ids: ['D3'], total: 1 });
      expect(await ids({ status: 'reverted' })).toEqual({ ids: [], total: 0 });
      expect(await ids({ address: addressOf(3) })).toEqual({ ids: [], total: 0 });
      expect(await ids({}, 10, 5)).toEqual({ ids: [], total: 4 });
      expect((await deposits.listByUser(3, {}, { offset: 0, limit: 10 }))).toEqual({ items: [], total: 0 });
    });

    it('an update that changes the status moves the record between filtered lists, keeping its place', async () => {
      const { deposits } = subject();
      await deposits.insert(depositNo(1, { detectedAt: T0 + 1 }));
      await deposits.insert(depositNo(2, { detectedAt: T0 + 2 }));
      await deposits.update(depositNo(1, { detectedAt: T0 + 1, status: 'reverted', version: 2 }));
      expect((await deposits.listByUser(1, { status: 'pending' }, { offset: 0, limit: 10 })).items.map((d) => d.depositId)).toEqual(['D2']);
      expect((await deposits.listByUser(1, { status: 'reverted' }, { offset: 0, limit: 10 })).items.map((d) => d.depositId)).toEqual(['D1']);
      expect((await deposits.listByUser(1, {}, { offset: 0, limit: 10 })).items.map((d) => d.depositId)).toEqual(['D2', 'D1']);
    });

    it('listPendingUpTo gives the pending records at or below a height, lowest block first, up to the limit', async () => {
      const { deposits } = subject();
      await deposits.insert(depositNo(1, { blockNumber: 12 }));
      await deposits.insert(depositNo(2, { blockNumber: 10 }));
      await deposits.insert(depositNo(3, { blockNumber: 10, depositId: 'D0' }));
      await deposits.insert(depositNo(4, { blockNumber: 11, status: 'confirmed', confirmedAt: T0 }));
      await deposits.insert(depositNo(5, { blockNumber: 9, status: 'reverted' }));
      await deposits.insert(depositNo(6, { blockNumber: 13, userId: 2 }));
      const ids = async (height: number, limit: number) => (await deposits.listPendingUpTo('TRON', height, limit)).map((d) => d.depositId);
      expect(await ids(12, 10)).toEqual(['D0', 'D2', 'D1']);
      expect(await ids(11, 10)).toEqual(['D0', 'D2']);
      expect(await ids(13, 2)).toEqual(['D0', 'D2']);
      expect(await ids(9, 10)).toEqual([]);
      expect(await ids(13, 0)).toEqual([]);
      expect(await deposits.listPendingUpTo('OTHER', 13, 10)).toEqual([]);
    });

    it('listAutoCollectDue gives the due triggers, earliest confirmed first, up to the limit; an update moves one out', async () => {
      const { deposits } = subject();
      const confirmed = (n: number, at: number, autoCollect?: Deposit['autoCollect']) =>
        depositNo(n, { status: 'confirmed', confirmedAt: T0 + at, ...(autoCollect === undefined ? {} : { autoCollect }) });
      await deposits.insert(confirmed(1, 20, 'due'));
      await deposits.insert(confirmed(2, 10, 'due'));
      await deposits.insert({ ...confirmed(3, 10, 'due'), depositId: 'D0' });
      await deposits.insert(confirmed(4, 5, 'started'));
      await deposits.insert(confirmed(5, 5, 'skipped'));
      await deposits.insert(confirmed(6, 5));
      const ids = async (limit: number) => (await deposits.listAutoCollectDue('TRON', limit)).map((d) => d.depositId);
      expect(await ids(10)).toEqual(['D0', 'D2', 'D1']);
      expect(await ids(2)).toEqual(['D0', 'D2']);
      expect(await ids(0)).toEqual([]);
      expect(await deposits.listAutoCollectDue('OTHER', 10)).toEqual([]);
      const stored = (await deposits.findById('D2'))!;
      expect(stored.autoCollect).toBe('due');
      await deposits.update({ ...stored, autoCollect: 'started', version: stored.version + 1 });
      expect(await ids(10)).toEqual(['D0', 'D1']);
      expect((await deposits.findById('D2'))!.autoCollect).toBe('started');
      expect((await deposits.findById('D6'))!.autoCollect).toBeUndefined();
    });

    it('listAutoCollectDue also gives started triggers whose task is followed, until the task is written away (issue #34)', async () => {
      const { deposits } = subject();
      await deposits.insert(depositNo(1, { status: 'confirmed', confirmedAt: T0 + 1, autoCollect: 'started', autoCollectTask: 'TASK-1' }));
      await deposits.insert(depositNo(2, { status: 'confirmed', confirmedAt: T0 + 2, autoCollect: 'started' }));
      const ids = async () => (await deposits.listAutoCollectDue('TRON', 10)).map((d) => [d.depositId, d.autoCollect, d.autoCollectTask]);
      expect(await ids()).toEqual([['D1', 'started', 'TASK-1']]);
      const followed = (await deposits.findById('D1'))!;
      const { autoCollectTask: _ended, ...letGo } = followed;
      await deposits.update({ ...letGo, version: followed.version + 1 });
      expect(await ids()).toEqual([]);
      expect(await deposits.findById('D1')).not.toHaveProperty('autoCollectTask');
      const stored = (await deposits.findById('D2'))!;
      await deposits.update({ ...stored, autoCollectTask: 'TASK-2', version: stored.version + 1 });
      expect(await ids()).toEqual([['D2', 'started', 'TASK-2']]);
    });

    it('returns copies: changing a returned or inserted object does not change the stored one', async () => {
      const { deposits } = subject();
      const inserted = { ...depositNo(1) };
      await deposits.insert(inserted);
      (inserted as { amount: bigint }).amount = 1n;
      const found = (await deposits.findById('D1'))!;
      expect(found.amount).toBe(1_500_000n);
      try { (found as { status: string }).status = 'confirmed'; } catch { /* a frozen copy is fine too */ }
      expect((await deposits.findById('D1'))!.status).toBe('pending');
    });

    it('behaves like the model under random inserts (transfers seen again) and filtered listings', async () => {
      const insert = fc.record({ transfer: fc.nat(8), user: fc.integer({ min: 1, max: 2 }), address: fc.integer({ min: 1, max: 3 }),
        symbol: fc.constantFrom('TRX', 'USDT'), status: fc.constantFrom<DepositStatus>('pending', 'confirmed', 'reverted'), at: fc.nat(4) });
      const list = fc.record({ user: fc.integer({ min: 1, max: 2 }), address: fc.option(fc.integer({ min: 1, max: 3 })),
        symbol: fc.option(fc.constantFrom('TRX', 'USDT')), status: fc.option(fc.constantFrom<DepositStatus>('pending', 'confirmed', 'reverted')),
        offset: fc.nat(3), limit: fc.integer({ min: 1, max: 4 }) });
      const step = fc.oneof(insert.map((i) => ({ kind: 'insert' as const, ...i })), list.map((l) => ({ kind: 'list' as const, ...l })));
      await fc.assert(fc.asyncProperty(fc.array(step, { maxLength: 25 }), (steps) => withSubject(makeSubject, async ({ deposits }) => {
        const model: Deposit[] = [];
        for (const [i, s] of steps.entries()) {
          if (s.kind === 'insert') {
            const candidate = depositNo(s.transfer, {
              depositId: `M${i}`, userId: s.user, address: addressOf(s.address), assetSymbol: s.symbol, status: s.status,
              confirmedAt: s.status === 'confirmed' ? T0 : null, detectedAt: T0 + s.at,
            });
            const known = model.find((d) => d.transferId === candidate.transferId);
            expect(await deposits.insert(candidate)).toEqual({ created: known === undefined, deposit: known ?? candidate });
            if (known === undefined) model.push(candidate);
          } else {
            const filter: DepositFilter = {
              ...(s.address === null ? {} : { address: addressOf(s.address) }), ...(s.symbol === null ? {} : { assetSymbol: s.symbol }),
              ...(s.status === null ? {} : { status: s.status }),
            };
            // Newest first; among equal times the later inserted first.
            const expected = model.map((d, seq) => ({ d, seq })).filter(({ d }) => d.userId === s.user && matches(d, filter))
              .sort((a, b) => b.d.detectedAt - a.d.detectedAt || b.seq - a.seq).map(({ d }) => d.depositId);
            const page = await deposits.listByUser(s.user, filter, { offset: s.offset, limit: s.limit });
            expect(page.total).toBe(expected.length);
            expect(page.items.map((d) => d.depositId)).toEqual(expected.slice(s.offset, s.offset + s.limit));
          }
        }
      })), { numRuns });
    });

    options.extraTestsFn?.(makeSubject);
  });
}
