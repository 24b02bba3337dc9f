import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bookedEntries, custodialAccount, holderAccount, ledgerAccountKey, ledgerTransactionProblems, providerPrepaidAccount, reversalOf, sumsPerAsset,
  type LedgerAccount, type LedgerLine, type LedgerTransaction,
} from './ledger.js';

const ASSETS = ['TRX', 'USDT'] as const;
const account: fc.Arbitrary<LedgerAccount> = fc.oneof(
  fc.tuple(fc.constantFrom(...ASSETS), fc.constantFrom('TA', 'TB', 'TC')).map(([asset, address]) => custodialAccount('TRON', asset, address)),
  fc.tuple(fc.constantFrom('fee_trx_burned', 'fee_bandwidth', 'fee_energy_rental', 'external_in', 'external_out') as fc.Arbitrary<'external_in'>,
    fc.constantFrom(...ASSETS)).map(([kind, asset]) => holderAccount(kind, 'TRON', asset)),
);
const amount = fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).filter((a) => a !== 0n);

/** A balanced transaction: random lines, then per asset one line on a custodial address that brings its sum to 0. */
const transaction = (id: string): fc.Arbitrary<LedgerTransaction> => fc.array(fc.record({ account, amount }), { minLength: 1, maxLength: 6 })
  .map((lines): LedgerTransaction => {
    const balancing: LedgerLine[] = [];
    for (const [asset, sum] of sumsPerAsset(lines)) {
      if (sum !== 0n) balancing.push({ account: custodialAccount('TRON', asset.split(':')[1]!, 'TZ'), amount: -sum });
    }
    const all = [...lines, ...balancing];
    // A transaction whose random lines already balance still needs two lines: add a pair.
    if (all.length < 2) all.push({ account: holderAccount('external_in', 'TRON', 'TRX'), amount: 5n }, { account: custodialAccount('TRON', 'TRX', 'TZ'), amount: -5n });
    return { transactionId: id, userId: 1, occurredAt: 0, cause: { type: 'test', id }, reverses: null, lines: all };
  });

describe('ledger transactions', () => {
  it('a balanced transaction is bookable; moving one line off by any amount is refused, naming the asset', () => {
    fc.assert(fc.property(transaction('T1'), fc.nat(), amount, (tx, pick, delta) => {
      expect(ledgerTransactionProblems(tx)).toEqual([]);
      const i = pick % tx.lines.length;
      const line = tx.lines[i]!;
      if (line.amount + delta === 0n) return;
      const broken = { ...tx, lines: tx.lines.map((l, j) => (j === i ? { ...l, amount: l.amount + delta } : l)) };
      expect(ledgerTransactionProblems(broken).join()).toContain(`TRON:${line.account.assetSymbol} lines sum to`);
      expect(() => bookedEntries(broken, () => 0n)).toThrow(RangeError);
    }));
  });

  it('refuses zero lines, a single line, an address on a holder account and a custodial account without one', () => {
    const base = { transactionId: 'T', userId: 1, occurredAt: 0, cause: { type: 'x', id: '1' }, reverses: null };
    const a = custodialAccount('TRON', 'TRX', 'TA');
    expect(ledgerTransactionProblems({ ...base, lines: [{ account: a, amount: 0n }, { account: holderAccount('external_in', 'TRON', 'TRX'), amount: 0n }] }))
      .toEqual(['a zero line on TRON|TRX|custodial|TA', 'a zero line on TRON|TRX|external_in|']);
    expect(ledgerTransactionProblems({ ...base, lines: [] })).toEqual(['a transaction has at least two lines']);
    expect(ledgerTransactionProblems({ ...base, lines: [{ account: { ...a, address: null }, amount: 1n }, { account: { ...a, kind: 'external_in' }, amount: -1n }] }))
      .toEqual(['custodial needs address', 'external_in takes no address']);
    // A provider's prepaid account (issue #36) is held by the provider: it needs the provider's name.
    expect(ledgerTransactionProblems({ ...base, lines: [{ account: { ...providerPrepaidAccount('TRON', 'TRX', 'tronsave'), address: null }, amount: -1n },
      { account: holderAccount('fee_energy_rental', 'TRON', 'TRX'), amount: 1n }] })).toEqual(['provider_prepaid needs holder']);
    expect(ledgerTransactionProblems({ ...base, lines: [{ account: providerPrepaidAccount('TRON', 'TRX', 'tronsave'), amount: -1n },
      { account: holderAccount('fee_energy_rental', 'TRON', 'TRX'), amount: 1n }] })).toEqual([]);
    expect(ledgerTransactionProblems({ ...base, cause: { type: '', id: '1' }, lines: [{ account: a, amount: 1n }, { account: holderAccount('external_in', 'TRON', 'TRX'), amount: -1n }] }))
      .toEqual(['a cause has a type and an id']);
  });

  it('every entry\'s balance is the previous balance of its account plus its amount, across transactions', () => {
    fc.assert(fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 8 }).chain((ns) => fc.tuple(...ns.map((_, i) => transaction(`T${i}`)))), (txs) => {
      const balances = new Map<string, bigint>();
      const totals = new Map<string, bigint>();
      for (const tx of txs) {
        const { entries, balances: after } = bookedEntries(tx, (key) => balances.get(key) ?? 0n);
        for (const entry of entries) {
          const key = ledgerAccountKey(entry.account);
          expect(entry.balanceAfter).toBe((totals.get(key) ?? 0n) + entry.amount);
          totals.set(key, entry.balanceAfter);
        }
        for (const [key, balance] of after) balances.set(key, balance);
        // The entries of one transaction sum to zero per asset.
        expect([...sumsPerAsset(entries).values()].every((s) => s === 0n)).toBe(true);
      }
      expect(balances).toEqual(totals);
    }));
  });

  it('a reversal exactly cancels its transaction: every balance returns to what it was, and it names the one reversed', () => {
    fc.assert(fc.property(transaction('T1'), fc.array(fc.record({ key: fc.constantFrom('TRON|TRX|custodial|TA', 'TRON|USDT|external_in|'), amount }), { maxLength: 3 }), (tx, start) => {
      const before = new Map<string, bigint>(start.map((s) => [s.key, s.amount]));
      const booked = bookedEntries(tx, (key) => before.get(key) ?? 0n);
      const reversal = reversalOf(tx, { transactionId: 'R1', occurredAt: 1, cause: { type: 'reversal', id: 'T1' } });
      expect(reversal.reverses).toBe('T1');
      expect(ledgerTransactionProblems(reversal)).toEqual([]);
      const undone = bookedEntries(reversal, (key) => booked.balances.get(key) ?? before.get(key) ?? 0n);
      for (const [key, balance] of undone.balances) expect(balance).toBe(before.get(key) ?? 0n);
    }));
  });
});
