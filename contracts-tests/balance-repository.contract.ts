import { runs } from './support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BalanceRepository } from '../core/ports/balance-repository.port.js';
import type { CommandRepository } from '../core/ports/command-repository.port.js';
import type { WalletRepository } from '../core/ports/wallet-repository.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject, withSubject } from './support/contract-options.js';
import { aBalance, aCommand, addressOf, aWallet, T0 } from './support/fixtures.js';

/** What the balance contract needs: an empty repository, and the wallets and commands of the same store (readView). */
export interface BalanceRepositorySubject extends Closable {
  readonly balances: BalanceRepository;
  readonly wallets: WalletRepository;
  readonly commands: CommandRepository;
}

/** The BalanceRepository contract (core/ports/balance-repository.port.ts). */
export function describeBalanceRepositoryContract(
  name: string,
  makeSubject: MakeSubject<BalanceRepositorySubject>,
  options: ContractOptions<BalanceRepositorySubject> = {},
): void {
  describe(`BalanceRepository contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('stores and returns a snapshot per address with bigint amounts beyond 2^64 intact', async () => {
      const { balances } = subject();
      await balances.put(aBalance());
      await balances.put(aBalance({ address: addressOf(2), items: [] }));
      expect(await balances.get(addressOf(1))).toEqual(aBalance());
      expect((await balances.get(addressOf(1)))!.items[1]!.available).toBe(2n ** 70n);
      expect((await balances.get(addressOf(2)))!.items).toEqual([]);
      expect(await balances.get(addressOf(3))).toBeNull();
    });

    it('readView: the wallet, its snapshot and what its active fund-moving command holds, as the single reads find them', async () => {
      const { balances, wallets, commands } = subject();
      expect(await balances.readView(addressOf(1))).toBeNull();
      await wallets.insert(aWallet({ id: 1, userId: 7 }), { maxSubAddresses: -1 });
      await wallets.insert(aWallet({ id: 2, userId: 7 }), { maxSubAddresses: -1 });
      const bare = { userId: 7, networkCode: 'TRON', address: addressOf(1), createdAt: T0 + 1 };
      expect(await balances.readView(addressOf(1))).toEqual({ wallet: bare, snapshot: null, active: null });
      // A snapshot of another address, a QUERY command, a finished one and another address's are not this view's.
      await balances.put(aBalance({ address: addressOf(2) }));
      await commands.insert(aCommand({ commandNo: 'Q', type: 1, assetSymbol: null, lockedAmount: 0n }), { locking: false });
      await commands.insert(aCommand({ commandNo: 'DONE', status: 3, lockedAmount: 9n }), { locking: false });
      await commands.insert(aCommand({ commandNo: 'OTHER', address: addressOf(2), lockedAmount: 8n }), { locking: true });
      expect(await balances.readView(addressOf(1))).toEqual({ wallet: bare, snapshot: null, active: null });
      await balances.put(aBalance());
      await commands.insert(aCommand({ commandNo: 'RUN', status: 2, assetSymbol: 'USDT', lockedAmount: 2n ** 70n }), { locking: true });
      const view = await balances.readView(addressOf(1));
      expect(view).toEqual({ wallet: bare, snapshot: await balances.get(addressOf(1)), active: { assetSymbol: 'USDT', lockedAmount: 2n ** 70n } });
      expect((await commands.findActiveByAddress(addressOf(1)))!.commandNo).toBe('RUN');
      expect(await balances.readView(addressOf(3))).toBeNull();
    });

    it('a newer snapshot replaces, an equal time replaces (last writer), an older one is ignored', async () => {
      const { balances } = subject();
      await balances.put(aBalance({ updatedAt: T0 + 10 }));
      const newer = aBalance({ updatedAt: T0 + 20, refreshSource: 2, items: [{ symbol: 'TRX', available: 7n, updatedAt: T0 + 20 }] });
      await balances.put(newer);
      await balances.put(aBalance({ updatedAt: T0 + 15 }));
      expect(await balances.get(addressOf(1))).toEqual(newer);
      const same = { ...newer, refreshSource: 1 as const };
      await balances.put(same);
      expect(await balances.get(addressOf(1))).toEqual(same);
    });

    it('concurrent puts leave the newest snapshot whatever the completion order', async () => {
      const { balances } = subject();
      const times = [5, 1, 9, 3, 7, 2, 8];
      await Promise.all(times.map((t) => balances.put(aBalance({ updatedAt: T0 + t }))));
      expect((await balances.get(addressOf(1)))!.updatedAt).toBe(T0 + 9);
    });

    it('after any sequence of puts the stored snapshot is the latest of the newest time', async () => {
      await fc.assert(fc.asyncProperty(fc.array(fc.nat(20), { minLength: 1, maxLength: 12 }), async (times) => {
        await withSubject(makeSubject, async ({ balances }) => {
          for (const [i, t] of times.entries()) {
            await balances.put(aBalance({ updatedAt: T0 + t, items: [{ symbol: 'TRX', available: BigInt(i), updatedAt: T0 + t }] }));
          }
          const newest = Math.max(...times);
          const expectedIndex = times.lastIndexOf(newest);
          const stored = (await balances.get(addressOf(1)))!;
          expect([stored.updatedAt, stored.items[0]!.available]).toEqual([T0 + newest, BigInt(expectedIndex)]);
        });
      }), { numRuns: options.numRuns ?? runs(25) });
    });

    it('putAll: of several snapshots for one address, the newest stays, and of equal times the last', async () => {
      const { balances } = subject();
      const at = (time: number, amount: bigint) => aBalance({ updatedAt: T0 + time, items: [{ symbol: 'TRX', available: amount, updatedAt: T0 + time }] });
      await balances.put(at(5, 1n));
      await balances.putAll([at(4, 2n), at(6, 3n), at(6, 4n), at(5, 5n), aBalance({ address: addressOf(2) })]);
      expect(await balances.get(addressOf(1))).toEqual(at(6, 4n));
      expect(await balances.get(addressOf(2))).toEqual(aBalance({ address: addressOf(2) }));
      await balances.putAll([]);
      expect(await balances.get(addressOf(1))).toEqual(at(6, 4n));
    });

    it('putAll leaves what the same puts one by one, in order, would leave (several for one address included)', async () => {
      const entry = fc.record({ address: fc.integer({ min: 1, max: 3 }), time: fc.nat(4), amount: fc.bigInt({ min: 0n, max: 2n ** 80n }) });
      await fc.assert(fc.asyncProperty(fc.array(entry, { maxLength: 5 }), fc.array(entry, { maxLength: 8 }), async (before, batch) => {
        const snapshot = (e: { address: number; time: number; amount: bigint }, i: number) => aBalance({
          address: addressOf(e.address), updatedAt: T0 + e.time, refreshSource: i % 2 === 0 ? 1 : 2,
          items: [{ symbol: 'TRX', available: e.amount, updatedAt: T0 + e.time }],
        });
        const stored = async (balances: BalanceRepository) => Promise.all([1, 2, 3].map((a) => balances.get(addressOf(a))));
        const expected = await withSubject(makeSubject, async ({ balances }) => {
          for (const [i, e] of [...before, ...batch].entries()) await balances.put(snapshot(e, i));
          return stored(balances);
        });
        await withSubject(makeSubject, async ({ balances }) => {
          for (const [i, e] of before.entries()) await balances.put(snapshot(e, i));
          await balances.putAll(batch.map((e, i) => snapshot(e, before.length + i)));
          expect(await stored(balances)).toEqual(expected);
        });
      }), { numRuns: options.numRuns ?? runs(25) });
    });

    options.extraTestsFn?.(makeSubject);
  });
}
