/**
 * A sweep in the books (issue #36), on the devnet through real tronweb: once a collection is DONE, the booking pass
 * writes one transaction keyed by the task whose entries sum to zero per asset, and the custodial balances after it
 * equal the chain's balances of the sub-address and the main address, TRX and USDT, to the SUN: the reconciliation
 * property in miniature, whatever the energy path and whether the sub-address is new or holds TRX of its own.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CollectionBookingCatchUp, CollectionLedgerBooker } from '../../core/application/collection-ledger-booker.js';
import { COLLECTION_CAUSE } from '../../core/application/ledger-bookings.js';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { ReclaimExecutor } from '../../core/application/worker/reclaim-executor.js';
import { LedgerReconciliation } from '../../core/application/ledger-reconciliation.js';
import { custodialAccount, holderAccount, sumsPerAsset } from '../../core/domain/ledger.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import type { EnergyProvider } from '../../core/ports/energy-provider.port.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { devnetRentalProvider } from '../../contracts-tests/harness/tron-devnet.js';
import { buildWorkerWorld, TRX } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

const scenarioArb = fc.record({
  path: fc.constantFrom<'self' | 'tronsave' | 'burn'>('self', 'tronsave', 'burn'),
  subState: fc.constantFrom<'new' | 'holds-trx'>('new', 'holds-trx'),
  usdt: fc.bigInt({ min: 1n, max: 50_000_000n }),
});

describe('a sweep in the books', () => {
  it('books once per task, sums to zero per asset, and leaves the custodial balances equal to the chain\'s', async () => {
    await fc.assert(fc.asyncProperty(scenarioArb, async (s) => {
      const w = await buildWorkerWorld({ solidifyLag: 1, stakeTrx: s.path === 'self' ? 20_000n : 0n, seed: `ledger-${s.path}` });
      try {
        const sub = await w.addSub();
        w.devnet.fundToken(sub, s.usdt);
        if (s.subState === 'holds-trx') w.devnet.fund(sub, 3n * TRX);
        const usdtOf = (address: string) => w.gateway.getTokenBalance(address, w.devnet.usdtAddress);
        const chain = async () => ({
          mainTrx: await w.gateway.getTrxBalance(w.main.address), subTrx: await w.gateway.getTrxBalance(sub),
          mainUsdt: await usdtOf(w.main.address), subUsdt: await usdtOf(sub),
        });
        // What the addresses hold before the sweep, booked as the scanner books deposits.
        const opening = await chain();
        let n = 0;
        for (const [address, asset, amount] of [[w.main.address, 'TRX', opening.mainTrx], [sub, 'TRX', opening.subTrx],
          [w.main.address, 'USDT', opening.mainUsdt], [sub, 'USDT', opening.subUsdt]] as const) {
          if (amount === 0n) continue;
          n += 1;
          await w.stores.ledger.post({ transactionId: `open-${n}`, userId: w.userId, occurredAt: w.clock.now(), reverses: null, cause: { type: 'deposit', id: `open-${n}` },
            lines: [{ account: holderAccount('external_in', 'TRON', asset), amount: -amount }, { account: custodialAccount('TRON', asset, address), amount }] });
        }
        const energy: { self?: EnergyProvider; rental?: EnergyProvider } = s.path === 'self' ? { self: new SelfDelegationEnergyProvider(w.gateway) }
          : s.path === 'burn' ? {} : { rental: devnetRentalProvider(w.devnet, s.path) };
        const executor = new CollectionExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy },
          { confirmations: 1, pollMs: 3_000, burnEnabled: s.path === 'burn' });
        let receiptReads = 0;
        const counted = { getTransaction: (txid: string) => { receiptReads += 1; return w.gateway.getTransaction(txid); } };
        const booker = new CollectionLedgerBooker({ tasks: w.stores.tasks, chain: counted, ledger: w.stores.ledger, ids: w.stores.ids });
        const task = await w.collect(sub, 'USDT');
        expect(await booker.book(task.taskNo)).toBe('not-done');
        await driveUntil(w, [executor], async () => (await w.stores.tasks.get(task.taskNo))!.finishedAt !== null, { maxRounds: 200 });
        const done = (await w.stores.tasks.get(task.taskNo))!;
        expect({ status: done.status, error: done.lastError }).toEqual({ status: COLLECTION_STATUS.DONE, error: null });
        w.devnet.mine(2);

        // The executor finished without booking (as a worker dying right after its DONE write): two workers' catch-up
        // passes at once, then a redo: one booking.
        const catchUp = () => new CollectionBookingCatchUp(booker, w.clock, { lookbackMs: 3_600_000, everyMs: 60_000, limit: 10 });
        const outcomes = await Promise.all([catchUp().maybeRun(), catchUp().maybeRun()]);
        expect(outcomes.reduce((a, b) => a + b, 0)).toBe(1);
        // A redo finds the booking without reading the chain again.
        const reads = receiptReads;
        expect(await booker.book(task.taskNo)).toBe('already-booked');
        expect(await booker.bookUser(w.userId)).toBe(0);
        expect(receiptReads).toBe(reads);
        const entries = (await w.stores.ledger.entries(w.userId, { causeType: COLLECTION_CAUSE }, { offset: 0, limit: 1_000 })).items;
        expect(new Set(entries.map((e) => e.transactionId)).size).toBe(1);
        expect(entries[0]!.cause).toEqual({ type: COLLECTION_CAUSE, id: task.taskNo, txid: done.sweepTxHash });
        for (const [asset, sum] of sumsPerAsset(entries)) expect(sum, asset).toBe(0n);

        // The books say what the chain says, per address and asset.
        const balances = await w.stores.ledger.balancesAt(w.userId, w.clock.now() + 3_600_000);
        const booked = (address: string, asset: string) => balances.find((b) => b.account.kind === 'custodial' && b.account.address === address
          && b.account.assetSymbol === asset)?.balance ?? 0n;
        const after = await chain();
        const label = `${s.path} ${s.subState}`;
        expect({ mainTrx: booked(w.main.address, 'TRX'), subTrx: booked(sub, 'TRX'), mainUsdt: booked(w.main.address, 'USDT'), subUsdt: booked(sub, 'USDT') }, label)
          .toEqual(after);
        // What the sweep cost in fees is what its cost record says, the rental included; the rental is paid off chain,
        // from the provider's prepaid account (issue #36).
        const fees = entries.filter((e) => e.account.kind.startsWith('fee_')).reduce((sum, e) => sum + e.amount, 0n);
        const cost = done.cost!;
        expect(fees, label).toBe(cost.bandwidthSun + cost.energySun + cost.activationSun + cost.rentalSun);
        const prepaid = entries.filter((e) => e.account.kind === 'provider_prepaid').map((e) => [e.account.address, e.amount]);
        expect(prepaid, label).toEqual(s.path === 'tronsave' ? [['tronsave', -cost.rentalSun]] : []);
      } finally {
        await w.close();
      }
    }), { numRuns: 6, seed: 36 });
  }, 180_000);

  it('a sweep that fails after its funding went out is booked too: what it burned and lent; the books still equal the chain', async () => {
    const w = await buildWorkerWorld({ solidifyLag: 1, stakeTrx: 0n, seed: 'ledger-failed' });
    try {
      const sub = await w.addSub();
      w.devnet.fundToken(sub, 9_000_000n);
      // What the addresses hold before the sweep, booked as the scanner books deposits.
      const opening: [string, string, bigint][] = [[w.main.address, 'TRX', await w.gateway.getTrxBalance(w.main.address)], [sub, 'USDT', 9_000_000n]];
      for (const [n, [address, asset, amount]] of opening.entries()) {
        await w.stores.ledger.post({ transactionId: `open-${n}`, userId: w.userId, occurredAt: w.clock.now(), reverses: null, cause: { type: 'deposit', id: `open-${n}` },
          lines: [{ account: holderAccount('external_in', 'TRON', asset), amount: -amount }, { account: custodialAccount('TRON', asset, address), amount }] });
      }
      const executor = new CollectionExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: {} },
        { confirmations: 1, pollMs: 3_000, burnEnabled: true });
      const task = await w.collect(sub, 'USDT');
      // The token's issuer blacklists the sub-address once its gas went out: the sweep can never succeed.
      const doomed = { runDue: async () => {
        await executor.runDue();
        if ((await w.stores.tasks.get(task.taskNo))!.steps.some((st) => st.transaction !== null)) w.devnet.setUsdtBlacklisted(sub);
      } };
      await driveUntil(w, [doomed], async () => (await w.stores.tasks.get(task.taskNo))!.finishedAt !== null, { maxRounds: 200 });
      const failed = (await w.stores.tasks.get(task.taskNo))!;
      expect(failed.status).toBe(COLLECTION_STATUS.FAILED);
      const booker = new CollectionLedgerBooker({ tasks: w.stores.tasks, chain: w.gateway, ledger: w.stores.ledger, ids: w.stores.ids });
      // Its TRX float goes back to main first (the reclaim): until then the booking waits.
      expect(failed.reclaim?.status).toBe('pending');
      expect(await booker.book(task.taskNo)).toBe('receipts-pending');
      const reclaimer = new ReclaimExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: {} }, { confirmations: 1, pollMs: 3_000 });
      await driveUntil(w, [reclaimer], async () => (await w.stores.tasks.get(task.taskNo))!.reclaim?.status === 'done', { maxRounds: 100 });
      const reclaimedTask = (await w.stores.tasks.get(task.taskNo))!;
      w.devnet.mine(2);
      // Found by the catch-up pass, which lists FAILED tasks too; once.
      expect(await new CollectionBookingCatchUp(booker, w.clock, { lookbackMs: 3_600_000, everyMs: 60_000, limit: 10 }).maybeRun()).toBe(1);
      expect(await booker.book(task.taskNo)).toBe('already-booked');
      const entries = (await w.stores.ledger.entries(w.userId, { causeType: COLLECTION_CAUSE }, { offset: 0, limit: 1_000 })).items;
      for (const [asset, sum] of sumsPerAsset(entries)) expect(sum, asset).toBe(0n);
      expect(entries.some((e) => e.account.assetSymbol === 'USDT')).toBe(false);
      const fees = entries.filter((e) => e.account.kind.startsWith('fee_')).reduce((sum, e) => sum + e.amount, 0n);
      expect(fees).toBeGreaterThan(0n);
      expect(fees).toBe(reclaimedTask.cost!.bandwidthSun + reclaimedTask.cost!.energySun + reclaimedTask.cost!.activationSun);
      // The books against the chain: every address and asset matches.
      const lines = await new LedgerReconciliation({ ...w.stores, chain: w.gateway, assets: w.assets }).user(w.userId);
      expect(lines.map((l) => [l.address, l.assetSymbol, l.judgement.status, String(l.ledger), String(l.chain)]))
        .toEqual(lines.map((l) => [l.address, l.assetSymbol, 'matched', String(l.chain), String(l.chain)]));
    } finally {
      await w.close();
    }
  }, 60_000);
});
