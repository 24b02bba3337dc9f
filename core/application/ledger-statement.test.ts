import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../adapters/memory/manual-clock.js';
import { MemoryLedger } from '../../adapters/memory/memory-ledger.js';
import { custodialAccount, holderAccount, providerPrepaidAccount, reversalOf, stakeAccount, type LedgerAccount, type LedgerEntry, type LedgerTransaction } from '../domain/ledger.js';
import { formatIsoTime } from '../domain/time.js';
import { LedgerUseCases } from './ledger.service.js';

const T0 = Date.UTC(2026, 0, 1);
const A = 'TPL66VK2gCXNCD7EJg9pgJRfqcRazjhUZY';
const B = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const FEES = ['fee_trx_burned', 'fee_bandwidth', 'fee_energy_rental'] as const;

/** One movement of a random schedule; `second` is its time after T0 (the schedule is booked in time order). */
type Move =
  | { type: 'deposit'; asset: string; to: string; amount: bigint }
  | { type: 'internal'; asset: string; from: string; to: string; amount: bigint }
  | { type: 'fee'; fee: (typeof FEES)[number]; from: string; amount: bigint }
  | { type: 'send'; asset: string; from: string; amount: bigint }
  | { type: 'refund'; asset: string; from: string; amount: bigint }
  // Staking (issue #36): TRX moves between an address's liquid and staked or unstaking accounts, still held.
  | { type: 'staking'; from: string; to: 'staked' | 'unstaking'; amount: bigint }
  // An energy rental (issue #36): paid off chain from a provider's prepaid balance, a cost no address pays.
  | { type: 'rental'; provider: string; amount: bigint }
  | { type: 'reverse'; which: number };

const address = fc.constantFrom(A, B);
const asset = fc.constantFrom('TRX', 'USDT');
const amount = fc.bigInt({ min: 1n, max: 10n ** 20n });
const move: fc.Arbitrary<Move> = fc.oneof(
  fc.record({ type: fc.constant('deposit' as const), asset, to: address, amount }),
  fc.record({ type: fc.constant('internal' as const), asset, from: address, to: address, amount }),
  fc.record({ type: fc.constant('fee' as const), fee: fc.constantFrom(...FEES), from: address, amount }),
  fc.record({ type: fc.constant('send' as const), asset, from: address, amount }),
  fc.record({ type: fc.constant('refund' as const), asset, from: address, amount }),
  fc.record({ type: fc.constant('staking' as const), from: address, to: fc.constantFrom('staked' as const, 'unstaking' as const), amount }),
  fc.record({ type: fc.constant('rental' as const), provider: fc.constantFrom('tronsave', 'itrx'), amount }),
  fc.record({ type: fc.constant('reverse' as const), which: fc.nat() }),
);
const HELD: readonly string[] = ['custodial', 'staked', 'unstaking'];

function linesOf(m: Exclude<Move, { type: 'reverse' }>): { account: LedgerAccount; amount: bigint }[] {
  switch (m.type) {
    case 'deposit': return [{ account: holderAccount('external_in', 'TRON', m.asset), amount: -m.amount }, { account: custodialAccount('TRON', m.asset, m.to), amount: m.amount }];
    case 'internal': return m.from === m.to ? [] : [{ account: custodialAccount('TRON', m.asset, m.from), amount: -m.amount }, { account: custodialAccount('TRON', m.asset, m.to), amount: m.amount }];
    case 'fee': return [{ account: custodialAccount('TRON', 'TRX', m.from), amount: -m.amount }, { account: holderAccount(m.fee, 'TRON', 'TRX'), amount: m.amount }];
    case 'staking': return [{ account: custodialAccount('TRON', 'TRX', m.from), amount: -m.amount }, { account: stakeAccount(m.to, 'TRON', 'TRX', m.from), amount: m.amount }];
    case 'rental': return [{ account: providerPrepaidAccount('TRON', 'TRX', m.provider), amount: -m.amount }, { account: holderAccount('fee_energy_rental', 'TRON', 'TRX'), amount: m.amount }];
    case 'send': case 'refund': return [{ account: custodialAccount('TRON', m.asset, m.from), amount: -m.amount }, { account: holderAccount('external_out', 'TRON', m.asset), amount: m.amount }];
  }
}

/** Books the schedule (in time order) and answers every entry. */
async function book(ledger: MemoryLedger, schedule: readonly { second: number; move: Move }[]): Promise<void> {
  const posted: LedgerTransaction[] = [];
  const ordered = [...schedule].sort((x, y) => x.second - y.second);
  for (const [n, { second, move: m }] of ordered.entries()) {
    const occurredAt = T0 + second * 1_000;
    let tx: LedgerTransaction;
    if (m.type === 'reverse') {
      const deposits = posted.filter((p) => p.cause.type === 'deposit');
      if (deposits.length === 0) continue;
      const original = deposits[m.which % deposits.length]!;
      tx = reversalOf(original, { transactionId: `R${n}`, occurredAt, cause: { type: 'reversal', id: `of-${original.transactionId}-${n}` } });
    } else {
      const lines = linesOf(m);
      if (lines.length === 0) continue;
      tx = { transactionId: `T${n}`, userId: 1, occurredAt, cause: { type: m.type, id: `C${n}` }, reverses: null, lines };
    }
    await ledger.post(tx);
    posted.push(tx);
  }
}

const sum = (entries: readonly LedgerEntry[], pick: (e: LedgerEntry) => boolean): bigint => entries.filter(pick).reduce((s, e) => s + e.amount, 0n);

describe('GET /ledger/statement (issue #36): each total is the sum of its entries', () => {
  it('over random schedules of deposits, reversals, internal moves, fees and sends, and any period', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.record({ second: fc.nat({ max: 30 }), move }), { maxLength: 25 }),
      fc.nat({ max: 32 }), fc.nat({ max: 32 }), fc.option(asset, { nil: undefined }),
      async (schedule, s1, s2, only) => {
        const ledger = new MemoryLedger();
        await book(ledger, schedule);
        const [fromS, toS] = s1 <= s2 ? [s1, s2] : [s2, s1];
        const from = T0 + fromS * 1_000;
        const to = T0 + toS * 1_000;
        const useCases = new LedgerUseCases({ ledger, clock: new ManualClock(T0 + 3_600_000) });
        const statement = await useCases.statement(1, { from: formatIsoTime(from), to: formatIsoTime(to), ...(only === undefined ? {} : { asset_symbol: only }) });
        const all = (await ledger.entries(1, {}, { offset: 0, limit: 10_000 })).items;
        const within = all.filter((e) => e.occurredAt >= from && e.occurredAt <= to);
        const assets = only === undefined ? [...new Set(all.filter((e) => e.occurredAt <= to).map((e) => e.account.assetSymbol))].sort() : [only];
        expect(statement.from).toBe(formatIsoTime(from));
        expect(statement.to).toBe(formatIsoTime(to));
        expect(statement.assets.map((a) => a.asset_symbol)).toEqual(assets);
        for (const line of statement.assets) {
          const of = (e: LedgerEntry) => e.account.assetSymbol === line.asset_symbol;
          const expected = {
            asset_symbol: line.asset_symbol,
            opening: sum(all, (e) => of(e) && HELD.includes(e.account.kind) && e.occurredAt < from),
            received: -sum(within, (e) => of(e) && (e.account.kind === 'external_in' || e.account.kind === 'provider_prepaid')),
            costs: sum(within, (e) => of(e) && e.account.kind.startsWith('fee_')),
            sent: sum(within, (e) => of(e) && e.account.kind === 'external_out'),
            closing: sum(all, (e) => of(e) && HELD.includes(e.account.kind) && e.occurredAt <= to),
            refunded: sum(within, (e) => of(e) && e.account.kind === 'external_out' && e.cause.type === 'refund'),
            prepaid: -sum(within, (e) => of(e) && e.account.kind === 'provider_prepaid'),
          };
          expect(line).toEqual(Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, String(v)])));
          expect(BigInt(line.closing)).toBe(BigInt(line.opening) + BigInt(line.received) - BigInt(line.costs) - BigInt(line.sent));
        }
      },
    ), { numRuns: runs(150) });
  });

  it('refuses a missing from, a from after to, and a bad time', async () => {
    const useCases = new LedgerUseCases({ ledger: new MemoryLedger(), clock: new ManualClock(T0) });
    await expect(useCases.statement(1, {})).rejects.toThrow(/from/);
    await expect(useCases.statement(1, { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' })).rejects.toThrow(/from/);
    await expect(useCases.statement(1, { from: '2026-01-01T00:00:00Z', to: 'tomorrow' })).rejects.toThrow(/to/);
    await expect(useCases.statement(1, { from: '2026-01-01T00:00:00Z', asset_symbol: '' })).rejects.toThrow(/asset_symbol/);
  });
});
