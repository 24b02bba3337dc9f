/**
 * Cost accounting on the devnet through real tronweb (issue #10): whatever the path (self-delegation with and without
 * the main address's bandwidth stake, a rental from each provider simulation, burning), a new or an activated
 * sub-address, TRX of its own or none, the cost a collection records from its receipts equals the TRX that left the
 * main address and the sub-address together, plus the rental price it paid, to the SUN.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { totalCostSun } from '../../core/domain/sweep-cost.js';
import type { EnergyProvider } from '../../core/ports/energy-provider.port.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { devnetRentalProvider } from '../../contracts-tests/harness/tron-devnet.js';
import { buildWorkerWorld, TRX } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

const scenarioArb = fc.record({
  path: fc.constantFrom<'self' | 'tronsave' | 'itrx' | 'burn'>('self', 'tronsave', 'itrx', 'burn'),
  mainBandwidthStake: fc.boolean(),
  subState: fc.constantFrom<'new' | 'activated' | 'holds-trx'>('new', 'activated', 'holds-trx'),
  usdt: fc.bigInt({ min: 1n, max: 50_000_000n }),
});

describe('what a sweep costs, from its receipts', () => {
  it('the recorded cost equals the TRX that left main and sub together, plus the rental price, to the SUN', async () => {
    await fc.assert(fc.asyncProperty(scenarioArb, async (s) => {
      const w = await buildWorkerWorld({ solidifyLag: 1, stakeTrx: s.path === 'self' ? 20_000n : 0n, seed: `cost-${s.path}` });
      try {
        if (s.mainBandwidthStake) {
          await w.gateway.broadcast(await w.gateway.prepare(w.main, { kind: 'freeze', resource: 'BANDWIDTH', amountSun: 100n * TRX }));
          w.devnet.mine(1);
        }
        const sub = await w.addSub();
        w.devnet.fundToken(sub, s.usdt);
        if (s.subState === 'activated') w.devnet.fund(sub, 1);
        if (s.subState === 'holds-trx') w.devnet.fund(sub, 3n * TRX);
        const energy: { self?: EnergyProvider; rental?: EnergyProvider } = s.path === 'self' ? { self: new SelfDelegationEnergyProvider(w.gateway) }
          : s.path === 'burn' ? {} : { rental: devnetRentalProvider(w.devnet, s.path) };
        const executor = new CollectionExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy },
          { confirmations: 1, pollMs: 3_000, burnEnabled: s.path === 'burn' });
        const trx = async () => (await w.gateway.getTrxBalance(w.main.address)) + (await w.gateway.getTrxBalance(sub));
        const before = await trx();
        const task = await w.collect(sub, 'USDT');
        await driveUntil(w, [executor], async () => (await w.stores.tasks.get(task.taskNo))!.finishedAt !== null, { maxRounds: 200 });
        const done = (await w.stores.tasks.get(task.taskNo))!;
        expect({ status: done.status, error: done.lastError }).toEqual({ status: COLLECTION_STATUS.DONE, error: null });
        const cost = done.cost!;
        const left = before - (await trx());
        expect(totalCostSun(cost) - cost.rentalSun, `${s.path} ${s.subState} stake=${s.mainBandwidthStake}`).toBe(left);
        // The rental price is the provider's quote the plan chose; nothing else is off chain.
        expect(cost.rentalSun).toBe(s.path === 'tronsave' || s.path === 'itrx' ? done.plan!.sourceSun : 0n);
        // What was lent came back, less what the sub itself burnt, or stayed as the sub's own TRX.
        expect(cost.lentSun).toBe(done.steps.filter((r) => r.status === COLLECTION_STATUS.FUNDING_TRX).reduce((sum, r) => sum + r.amount!, 0n));
        // The plan's estimate prices standard transaction sizes; a transfer's amount can add a byte or two.
        const off = done.plan!.estimatedCostSun - totalCostSun(cost);
        expect(off < 0n ? -off : off, `estimate ${done.plan!.estimatedCostSun} vs ${totalCostSun(cost)}`).toBeLessThanOrEqual(5_000n);
      } finally {
        await w.close();
      }
    }), { numRuns: 16, seed: 10 });
  }, 120_000);

  it('logs a warning when the main address holds none of the token (the sweep then pays the new-holder energy)', async () => {
    const w = await buildWorkerWorld({ solidifyLag: 1, seed: 'cost-warning' });
    try {
      const warnings: string[] = [];
      const log = { warn: (_fields: object, message: string) => warnings.push(message), error: () => undefined };
      // Who the executor asks for a token balance (the main address's is read for the warning only).
      const asked: string[] = [];
      const counting = new Proxy(w.gateway, {
        get: (target, key) => (key === 'getTokenBalance'
          ? (address: string, contract: string) => { asked.push(address); return target.getTokenBalance(address, contract); }
          : Reflect.get(target, key)),
      });
      const executor = new CollectionExecutor({
        ...w.stores, chain: counting, cipher: w.cipher, assets: w.assets, energy: { self: new SelfDelegationEnergyProvider(w.gateway) }, log,
      }, { confirmations: 1, pollMs: 3_000 });
      const sweep = async () => {
        const sub = await w.addSub();
        w.devnet.fundToken(sub, 2_000_000n);
        const task = await w.collect(sub, 'USDT');
        await driveUntil(w, [executor], async () => (await w.stores.tasks.get(task.taskNo))!.finishedAt !== null);
        return (await w.stores.tasks.get(task.taskNo))!;
      };
      const first = await sweep();
      expect(warnings.filter((m) => m.startsWith('main address holds none of the token'))).toHaveLength(1);
      expect(first.plan!.energy).toBe(130_285);
      expect(asked.filter((a) => a === w.main.address)).toHaveLength(1);
      // Main holds USDT now: no warning, and the holder price; a dry run at the holder price says main holds some, so
      // main's balance is not read (no scanner here: nothing cached about it).
      asked.length = 0;
      const second = await sweep();
      expect(warnings.filter((m) => m.startsWith('main address holds none of the token'))).toHaveLength(1);
      expect(second.plan!.energy).toBe(64_285);
      expect(asked).not.toContain(w.main.address);
      // The scanner's cached balance shows main holding USDT: the plan asks no node about main's token balance.
      await w.stores.balances.put({ address: w.main.address, items: [{ symbol: 'USDT', available: 1n, updatedAt: w.clock.now() }], refreshSource: 1, updatedAt: w.clock.now() });
      asked.length = 0;
      const cached = new CollectionExecutor({
        ...w.stores, chain: counting, cipher: w.cipher, assets: w.assets, energy: {}, log,
      }, { confirmations: 1, pollMs: 3_000, burnEnabled: true });
      const sub = await w.addSub();
      w.devnet.fundToken(sub, 2_000_000n);
      const task = await w.collect(sub, 'USDT');
      await driveUntil(w, [cached], async () => (await w.stores.tasks.get(task.taskNo))!.finishedAt !== null);
      const third = (await w.stores.tasks.get(task.taskNo))!;
      expect(third.status, third.lastError ?? '').toBe(COLLECTION_STATUS.DONE);
      expect(asked).not.toContain(w.main.address);
      expect(warnings.filter((m) => m.startsWith('main address holds none of the token'))).toHaveLength(1);
    } finally {
      await w.close();
    }
  }, 60_000);
});
