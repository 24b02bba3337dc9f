import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryAdapters } from '../../adapters/memory/create-memory-adapters.js';
import { ManualClock } from '../../adapters/memory/manual-clock.js';
import { custodialAccount, holderAccount, sumsPerAsset } from '../domain/ledger.js';
import { DepositRecorder, type DepositObservation } from './worker/deposit-recorder.js';

const TO = 'TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA';
const FROM = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
const ALL = { offset: 0, limit: 1000 };

/** A fresh memory store and a recorder factory (each call another scanner of the same store). */
function setup() {
  const clock = new ManualClock();
  const mem = createMemoryAdapters({ clock });
  const recorder = () => new DepositRecorder({
    deposits: mem.deposits, uow: mem.uow, developerConfigs: mem.developerConfigs, clock, ids: mem.ids, ledger: mem.ledger,
  }, 'TRON');
  return { clock, mem, recorder };
}

const transferId = (n: number) => `${n.toString(16).padStart(64, '0')}:log:0`;
const seen = (n: number, block = 10): DepositObservation => ({
  kind: 'seen', block, userId: 7, assetSymbol: 'USDT',
  transfer: { id: transferId(n), txid: transferId(n).slice(0, 64), contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', internal: false, from: FROM, to: TO, amount: BigInt(n) * 1_000_000n },
});
const dropped = (n: number): DepositObservation => ({ kind: 'dropped', transferId: transferId(n) });
const solidified = (n: number): DepositObservation => ({ kind: 'solidified', transferId: transferId(n) });

describe('deposits in the books (issue #36)', () => {
  it('a confirmation books external in -> the custodial address, at its confirmation time, keyed by the deposit', async () => {
    const { clock, mem, recorder } = setup();
    await recorder().record([seen(3)], 10);
    expect((await mem.ledger.entries(7, {}, ALL)).total).toBe(0);
    clock.advance(5_000);
    await recorder().record([solidified(3)], 30);
    const deposit = (await mem.deposits.findByTransfer('TRON', transferId(3)))!;
    const { items } = await mem.ledger.entries(7, {}, ALL);
    expect(items.map((e) => ({ account: e.account, amount: e.amount, occurredAt: e.occurredAt, cause: e.cause }))).toEqual([
      { account: holderAccount('external_in', 'TRON', 'USDT'), amount: -3_000_000n, occurredAt: deposit.confirmedAt, cause: { type: 'deposit', id: deposit.depositId, txid: deposit.txid } },
      { account: custodialAccount('TRON', 'USDT', TO), amount: 3_000_000n, occurredAt: deposit.confirmedAt, cause: { type: 'deposit', id: deposit.depositId, txid: deposit.txid } },
    ]);
  });

  it('a deposit reorged before its confirmation books nothing until it is confirmed, then once', async () => {
    const { mem, recorder } = setup();
    await recorder().record([seen(1), dropped(1), seen(2), dropped(2)], 12);
    expect((await mem.ledger.entries(7, {}, ALL)).total).toBe(0);
    await recorder().record([seen(1, 14), solidified(1)], 40);
    expect((await mem.ledger.balancesAt(7, Number.MAX_SAFE_INTEGER)).map((b) => b.balance)).toEqual([1_000_000n, -1_000_000n]);
  });

  it('random schedules of observations, redone and by two scanners: each confirmed deposit booked once, balances match', async () => {
    const step = fc.record({ n: fc.integer({ min: 1, max: 4 }), what: fc.constantFrom('seen', 'dropped', 'solidified'), scanner: fc.integer({ min: 0, max: 1 }) });
    await fc.assert(fc.asyncProperty(fc.array(step, { maxLength: 25 }), async (steps) => {
      const { mem, recorder } = setup();
      const scanners = [recorder(), recorder()];
      // Each observation is recorded, then recorded again (a pass redone after a crash before its checkpoint).
      for (const s of steps) {
        const o = s.what === 'seen' ? seen(s.n) : s.what === 'dropped' ? dropped(s.n) : solidified(s.n);
        await scanners[s.scanner]!.record([o], 50);
        await scanners[1 - s.scanner]!.record([o], 50);
      }
      const confirmed = (await mem.deposits.listByUser(7, { status: 'confirmed' }, ALL)).items;
      const { items } = await mem.ledger.entries(7, {}, ALL);
      expect(items.map((e) => e.cause.id).sort()).toEqual(confirmed.flatMap((d) => [d.depositId, d.depositId]).sort());
      expect([...sumsPerAsset(items).values()].every((s) => s === 0n)).toBe(true);
      const held = (await mem.ledger.balancesAt(7, Number.MAX_SAFE_INTEGER)).find((b) => b.account.kind === 'custodial')?.balance ?? 0n;
      expect(held).toBe(confirmed.reduce((sum, d) => sum + d.amount, 0n));
    }), { numRuns: runs(60) });
  });
});
