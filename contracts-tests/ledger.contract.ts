import { runs } from './support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../core/domain/errors.js';
import {
  custodialAccount, holderAccount, ledgerAccountKey, providerPrepaidAccount, reversalOf, stakeAccount, sumsPerAsset, type LedgerEntry, type LedgerTransaction,
} from '../core/domain/ledger.js';
import type { Ledger } from '../core/ports/ledger.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject, withSubject } from './support/contract-options.js';
import { addressOf, T0 } from './support/fixtures.js';

/** What the ledger contract needs: empty books. */
export interface LedgerSubject extends Closable {
  readonly ledger: Ledger;
}

/** A deposit of `amount` TRX (or `asset`) to addressOf(1) of user 1: external in -> the custodial address. */
export function aLedgerDeposit(n: number, overrides: Partial<LedgerTransaction> & { amount?: bigint; asset?: string; address?: string } = {}): LedgerTransaction {
  const { amount = 1_000_000n, asset = 'TRX', address = addressOf(1), ...rest } = overrides;
  return {
    transactionId: `LT${n}`, userId: 1, occurredAt: T0 + n, cause: { type: 'deposit', id: `D${n}`, txid: n.toString(16).padStart(64, '0') },
    reverses: null,
    lines: [{ account: holderAccount('external_in', 'TRON', asset), amount: -amount }, { account: custodialAccount('TRON', asset, address), amount }],
    ...rest,
  };
}

/** Checks the books' own arithmetic: each entry's balance follows the one before it on its account. */
function expectChained(entries: readonly LedgerEntry[]): Map<string, bigint> {
  const balances = new Map<string, bigint>();
  for (const entry of entries) {
    const key = `${entry.userId}|${ledgerAccountKey(entry.account)}`;
    expect(entry.balanceAfter).toBe((balances.get(key) ?? 0n) + entry.amount);
    balances.set(key, entry.balanceAfter);
  }
  return balances;
}

const ALL = { offset: 0, limit: 10_000 } as const;

/** The Ledger contract (core/ports/ledger.port.ts); a fresh, empty subject per test. */
export function describeLedgerContract(name: string, makeSubject: MakeSubject<LedgerSubject>, options: ContractOptions<LedgerSubject> = {}): void {
  const concurrency = options.concurrency ?? 50;
  const numRuns = options.numRuns ?? runs(50);
  describe(`Ledger contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('books every line as an entry with its balance after, keeping every field (an amount past 2^64 exactly)', async () => {
      const { ledger } = subject();
      const big = 2n ** 70n + 1n;
      const first = await ledger.post(aLedgerDeposit(1, { amount: big, asset: 'USDT' }));
      expect(first.created).toBe(true);
      expect(first.entries).toEqual([
        { entryId: 'LT1:0', transactionId: 'LT1', userId: 1, occurredAt: T0 + 1, account: holderAccount('external_in', 'TRON', 'USDT'), amount: -big,
          balanceAfter: -big, cause: { type: 'deposit', id: 'D1', txid: '1'.padStart(64, '0') }, reverses: null },
        { entryId: 'LT1:1', transactionId: 'LT1', userId: 1, occurredAt: T0 + 1, account: custodialAccount('TRON', 'USDT', addressOf(1)), amount: big,
          balanceAfter: big, cause: { type: 'deposit', id: 'D1', txid: '1'.padStart(64, '0') }, reverses: null },
      ]);
      await ledger.post(aLedgerDeposit(2, { amount: 5n, asset: 'USDT', cause: { type: 'deposit', id: 'D2' } }));
      const { items, total } = await ledger.entries(1, {}, ALL);
      expect(total).toBe(4);
      expect(items.slice(0, 2)).toEqual(first.entries);
      expect(items[3]).toMatchObject({ balanceAfter: big + 5n, cause: { type: 'deposit', id: 'D2' } });
      expect(items[3]!.cause).not.toHaveProperty('txid');
    });

    it('a second post of the same cause is a no-op that answers the first booking, even with other lines', async () => {
      const { ledger } = subject();
      const first = await ledger.post(aLedgerDeposit(1));
      const again = await ledger.post(aLedgerDeposit(9, { cause: aLedgerDeposit(1).cause, amount: 7n }));
      expect(again).toEqual({ created: false, entries: first.entries });
      expect((await ledger.entries(1, {}, ALL)).total).toBe(2);
      // The cause is the user's: another user's same cause is its own transaction.
      expect((await ledger.post(aLedgerDeposit(2, { userId: 2, cause: aLedgerDeposit(1).cause }))).created).toBe(true);
    });

    it('refuses a transaction that does not balance (RangeError) and a transaction id of another cause (ConcurrencyConflict), writing nothing', async () => {
      const { ledger } = subject();
      const unbalanced = aLedgerDeposit(1);
      await expect(ledger.post({ ...unbalanced, lines: [unbalanced.lines[0]!, { ...unbalanced.lines[1]!, amount: 999n }] })).rejects.toBeInstanceOf(RangeError);
      await ledger.post(aLedgerDeposit(2));
      await expect(ledger.post(aLedgerDeposit(3, { transactionId: 'LT2' }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      const { items } = await ledger.entries(1, {}, ALL);
      expect(items.map((e) => e.transactionId)).toEqual(['LT2', 'LT2']);
      expect((await ledger.post(aLedgerDeposit(1))).created).toBe(true);
    });

    it('a reversal is a new transaction naming the one it reverses, and brings every balance back', async () => {
      const { ledger } = subject();
      const deposit = aLedgerDeposit(1, { amount: 40n });
      await ledger.post(aLedgerDeposit(0, { amount: 2n }));
      await ledger.post(deposit);
      const reversal = reversalOf(deposit, { transactionId: 'LR1', occurredAt: T0 + 5, cause: { type: 'deposit.reversal', id: 'D1' } });
      const booked = await ledger.post(reversal);
      expect(booked.entries.map((e) => [e.reverses, e.amount, e.balanceAfter])).toEqual([['LT1', 40n, -2n], ['LT1', -40n, 2n]]);
      expect(await ledger.balancesAt(1, T0 + 5)).toEqual([
        { account: custodialAccount('TRON', 'TRX', addressOf(1)), balance: 2n }, { account: holderAccount('external_in', 'TRON', 'TRX'), balance: -2n },
      ]);
      // The original is still there, unchanged.
      expect((await ledger.entries(1, {}, ALL)).items.filter((e) => e.transactionId === 'LT1').map((e) => e.amount)).toEqual([-40n, 40n]);
    });

    it('balancesAt answers the balance after the last entry at or before the time, per account, nothing before the first', async () => {
      const { ledger } = subject();
      await ledger.post(aLedgerDeposit(10, { amount: 100n }));
      await ledger.post(aLedgerDeposit(20, { amount: 30n, asset: 'USDT' }));
      await ledger.post(aLedgerDeposit(30, { amount: 5n }));
      await ledger.post(aLedgerDeposit(31, { amount: 6n, userId: 2 }));
      expect(await ledger.balancesAt(1, T0 + 9)).toEqual([]);
      const custodialTrx = custodialAccount('TRON', 'TRX', addressOf(1));
      expect(await ledger.balancesAt(1, T0 + 10)).toEqual([
        { account: custodialTrx, balance: 100n }, { account: holderAccount('external_in', 'TRON', 'TRX'), balance: -100n },
      ]);
      expect(await ledger.balancesAt(1, T0 + 29)).toEqual([
        { account: custodialTrx, balance: 100n }, { account: holderAccount('external_in', 'TRON', 'TRX'), balance: -100n },
        { account: custodialAccount('TRON', 'USDT', addressOf(1)), balance: 30n }, { account: holderAccount('external_in', 'TRON', 'USDT'), balance: -30n },
      ]);
      expect((await ledger.balancesAt(1, T0 + 1000))[0]).toEqual({ account: custodialTrx, balance: 105n });
      expect(await ledger.balancesAt(3, T0 + 1000)).toEqual([]);
    });

    it('an address\'s staked and unstaking accounts (issue #36: staking booked) are stored and read back with their address', async () => {
      const { ledger } = subject();
      await ledger.post(aLedgerDeposit(1, { amount: 100n }));
      const [liquid, staked, unstaking] = [custodialAccount('TRON', 'TRX', addressOf(1)), stakeAccount('staked', 'TRON', 'TRX', addressOf(1)),
        stakeAccount('unstaking', 'TRON', 'TRX', addressOf(1))];
      await ledger.post({ transactionId: 'LT2', userId: 1, occurredAt: T0 + 2, reverses: null, cause: { type: 'staking', id: 'C2' },
        lines: [{ account: liquid, amount: -60n }, { account: staked, amount: 60n }] });
      await ledger.post({ transactionId: 'LT3', userId: 1, occurredAt: T0 + 3, reverses: null, cause: { type: 'staking', id: 'C3' },
        lines: [{ account: staked, amount: -25n }, { account: unstaking, amount: 25n }] });
      const balances = new Map((await ledger.balancesAt(1, T0 + 3)).map((b) => [ledgerAccountKey(b.account), b.balance]));
      expect([liquid, staked, unstaking].map((a) => balances.get(ledgerAccountKey(a)))).toEqual([40n, 35n, 25n]);
      const entries = (await ledger.entries(1, { kind: 'unstaking' }, ALL)).items;
      expect(entries.map((e) => [e.account, e.amount, e.balanceAfter])).toEqual([[unstaking, 25n, 25n]]);
    });

    it('a rental provider\'s prepaid account (issue #36: the rental price booked) is stored and read back with its holder, one per provider', async () => {
      const { ledger } = subject();
      const rental = holderAccount('fee_energy_rental', 'TRON', 'TRX');
      const [tronsave, itrx] = [providerPrepaidAccount('TRON', 'TRX', 'tronsave'), providerPrepaidAccount('TRON', 'TRX', 'itrx')];
      for (const [n, prepaid, price] of [[1, tronsave, 3n], [2, itrx, 4n], [3, tronsave, 5n]] as const) {
        await ledger.post({ transactionId: `LT${n}`, userId: 1, occurredAt: T0 + n, reverses: null, cause: { type: 'collection', id: `K${n}` },
          lines: [{ account: prepaid, amount: -price }, { account: rental, amount: price }] });
      }
      const balances = new Map((await ledger.balancesAt(1, T0 + 3)).map((b) => [ledgerAccountKey(b.account), b]));
      expect([tronsave, itrx, rental].map((a) => balances.get(ledgerAccountKey(a)))).toEqual([
        { account: tronsave, balance: -8n }, { account: itrx, balance: -4n }, { account: rental, balance: 12n },
      ]);
      const entries = (await ledger.entries(1, { kind: 'provider_prepaid' }, ALL)).items;
      expect(entries.map((e) => [e.account, e.amount, e.balanceAfter])).toEqual([[tronsave, -3n, -3n], [itrx, -4n, -4n], [tronsave, -5n, -8n]]);
    });

    it('usersWithBooks lists the users with entries, ascending, after a user and up to a limit', async () => {
      const { ledger } = subject();
      expect(await ledger.usersWithBooks(null, 10)).toEqual([]);
      for (const userId of [12, 3, 7, 3, 1_000_000_007]) await ledger.post(aLedgerDeposit(userId * 10 + (await ledger.entries(userId, {}, ALL)).total, { userId }));
      expect(await ledger.usersWithBooks(null, 10)).toEqual([3, 7, 12, 1_000_000_007]);
      expect(await ledger.usersWithBooks(3, 2)).toEqual([7, 12]);
      expect(await ledger.usersWithBooks(12, 10)).toEqual([1_000_000_007]);
      expect(await ledger.usersWithBooks(1_000_000_007, 10)).toEqual([]);
    });

    it('filters entries by time (both ends inclusive), address, asset and kind, and pages them with the total', async () => {
      const { ledger } = subject();
      for (let n = 1; n <= 6; n += 1) {
        await ledger.post(aLedgerDeposit(n, { asset: n % 2 === 0 ? 'USDT' : 'TRX', address: addressOf(n <= 3 ? 1 : 2) }));
      }
      const ids = async (filter: Parameters<Ledger['entries']>[1], page: { offset: number; limit: number } = ALL) => {
        const result = await ledger.entries(1, filter, page);
        return { total: result.total, ids: result.items.map((e) => e.entryId) };
      };
      expect(await ids({ from: T0 + 2, to: T0 + 3 })).toEqual({ total: 4, ids: ['LT2:0', 'LT2:1', 'LT3:0', 'LT3:1'] });
      expect(await ids({ address: addressOf(2), assetSymbol: 'USDT' })).toEqual({ total: 2, ids: ['LT4:1', 'LT6:1'] });
      expect(await ids({ kind: 'external_in', to: T0 + 3 })).toEqual({ total: 3, ids: ['LT1:0', 'LT2:0', 'LT3:0'] });
      expect(await ids({}, { offset: 3, limit: 2 })).toEqual({ total: 12, ids: ['LT2:1', 'LT3:0'] });
      expect(await ids({}, { offset: 0, limit: 0 })).toEqual({ total: 12, ids: [] });
      expect(await ids({ kind: 'external_out' })).toEqual({ total: 0, ids: [] });
      await ledger.post(aLedgerDeposit(7, { cause: { type: 'refund', id: 'R7' } }));
      expect(await ids({ causeType: 'refund' })).toEqual({ total: 2, ids: ['LT7:0', 'LT7:1'] });
      expect(await ids({ causeType: 'deposit', kind: 'custodial', from: T0 + 6 })).toEqual({ total: 1, ids: ['LT6:1'] });
      expect((await ledger.entries(2, {}, ALL)).total).toBe(0);
    });

    it(`of ${concurrency} concurrent posts of one cause exactly one books, and every one answers its entries`, async () => {
      const { ledger } = subject();
      const results = await Promise.all(Array.from({ length: concurrency }, (_, i) =>
        ledger.post(aLedgerDeposit(i, { cause: { type: 'deposit', id: 'D-same' } }))));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const winner = results.find((r) => r.created)!.entries;
      for (const r of results) expect(r.entries).toEqual(winner);
      expect((await ledger.entries(1, {}, ALL)).items).toEqual(winner);
    });

    it(`${concurrency} concurrent posts to one account chain their balances after, in booking order`, async () => {
      const { ledger } = subject();
      await Promise.all(Array.from({ length: concurrency }, (_, i) => ledger.post(aLedgerDeposit(i + 1, { amount: BigInt(i + 1), occurredAt: T0 }))));
      const { items } = await ledger.entries(1, {}, ALL);
      expect(items).toHaveLength(2 * concurrency);
      const balances = expectChained(items);
      const total = BigInt((concurrency * (concurrency + 1)) / 2);
      expect(balances.get(`1|${ledgerAccountKey(custodialAccount('TRON', 'TRX', addressOf(1)))}`)).toBe(total);
      expect((await ledger.balancesAt(1, T0))[0]!.balance).toBe(total);
    });

    it('a random schedule of posts, repeats included: each cause booked once, every transaction sums to zero, balances chain', async () => {
      const post = fc.record({ n: fc.integer({ min: 1, max: 6 }), user: fc.integer({ min: 1, max: 2 }), amount: fc.bigInt({ min: 1n, max: 10n ** 30n }),
        asset: fc.constantFrom('TRX', 'USDT'), address: fc.integer({ min: 1, max: 3 }) });
      await fc.assert(fc.asyncProperty(fc.array(post, { maxLength: 15 }), async (posts) => withSubject(makeSubject, async ({ ledger }) => {
        const firsts = new Map<string, LedgerTransaction>();
        for (const [i, p] of posts.entries()) {
          // Booked in time order, as the port asks.
          const tx = aLedgerDeposit(p.n, { transactionId: `T${i}`, occurredAt: T0 + i, userId: p.user, amount: p.amount, asset: p.asset, address: addressOf(p.address) });
          const key = `${p.user}|${p.n}`;
          const result = await ledger.post(tx);
          expect(result.created).toBe(!firsts.has(key));
          if (!firsts.has(key)) firsts.set(key, tx);
        }
        for (const user of [1, 2]) {
          const { items } = await ledger.entries(user, {}, ALL);
          const mine = [...firsts.values()].filter((t) => t.userId === user);
          expect(new Set(items.map((e) => e.transactionId))).toEqual(new Set(mine.map((t) => t.transactionId)));
          for (const t of mine) expect([...sumsPerAsset(items.filter((e) => e.transactionId === t.transactionId)).values()].every((s) => s === 0n)).toBe(true);
          const chained = expectChained(items);
          for (const b of await ledger.balancesAt(user, T0 + 100)) expect(b.balance).toBe(chained.get(`${user}|${ledgerAccountKey(b.account)}`));
        }
      })), { numRuns });
    });

    options.extraTestsFn?.(makeSubject);
  });
}
