/**
 * Adapter-only (issue #39 item 5): the per-block reads of CachingChainGateway on the devnet, counted from the node
 * client's own call hook (what a provider would bill), and compared with an uncached gateway on the same chain.
 * The contract suite (tronweb-devnet.test.ts) runs over the decorator too; what it cannot see is how many calls a
 * read cost and whether a remembered answer was ever older than what the node says.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runs } from '../../contracts-tests/support/depth.js';
import type { ChainGateway, Signer } from '../../core/ports/chain-gateway.port.js';
import { ManualClock } from '../memory/index.js';
import { startDevnet, type Devnet } from '../tron-devnet/index.js';
import { CachingChainGateway } from './caching-chain-gateway.js';
import { createDevnetChainGateway } from './devnet-chain-gateway.js';

const TRX = 1_000_000n;
let devnet: Devnet;

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'caching-chain-gateway' });
});
afterAll(async () => {
  await devnet.close();
});

/** A decorated gateway whose tip is the devnet's head (as the scanner's would be), its calls counted, and a plain one. */
function world(options: { tip?: boolean } = {}) {
  const clock = new ManualClock();
  const calls: string[] = [];
  const inner = createDevnetChainGateway(devnet, { now: () => clock.now(), onCall: (path) => calls.push(path), blockCacheMs: 3_000 });
  const gateway = new CachingChainGateway(inner, {
    blockMs: 3_000, now: () => clock.now(), ...(options.tip === false ? {} : { tip: () => devnet.info().head_number }),
  });
  const plain = createDevnetChainGateway(devnet);
  const count = (path?: string): number => (path === undefined ? calls.length : calls.filter((c) => c === path).length);
  return { clock, gateway, plain, count };
}

async function funded(g: ChainGateway, sun: bigint): Promise<Signer> {
  const account = await g.createAccount();
  devnet.fund(account.address, sun);
  devnet.mine(1);
  return { address: account.address, privateKey: async () => account.privateKey };
}

describe('CachingChainGateway', () => {
  it('asks each state read once a block, for every caller; energyAvailable and accountExists share the reads they follow from', async () => {
    const { gateway, count } = world();
    const a = await funded(gateway, 5n * TRX);
    const [x, y] = await Promise.all([gateway.getTrxBalance(a.address), gateway.getTrxBalance(a.address)]);
    expect([x, y]).toEqual([5n * TRX, 5n * TRX]);
    await gateway.getTrxBalance(a.address);
    expect(await gateway.accountExists(a.address)).toBe(true);
    const resources = await gateway.getResources(a.address);
    expect(await gateway.energyAvailable(a.address)).toBe(resources.energy.available);
    await gateway.getChainPrices();
    await gateway.getChainPrices();
    await gateway.energyFactor(devnet.usdtAddress);
    await gateway.energyFactor(devnet.usdtAddress);
    await gateway.getCanDelegateEnergySun(a.address);
    await gateway.getCanDelegateEnergySun(a.address);
    expect(count('wallet/getaccount')).toBe(2); // the balance's, and getResources' own (it reads the account whole)
    // An account with no stake and no delegation: its getaccount answers its resources (with the free bandwidth limit
    // from the chain's parameters, read once for the prices too).
    expect(count('wallet/getaccountresource')).toBe(0);
    // What it can delegate follows from the same account read: no energy stake, 0 (java-tron's answer whatever the usage).
    expect([count('wallet/getchainparameters'), count('wallet/getcontractinfo'), count('wallet/getcandelegatedmaxsize')]).toEqual([1, 1, 0]);
    // An account seen to hold TRX exists for good (TRON deletes none): asked in a later block, no call.
    devnet.mine(1);
    expect(await gateway.accountExists(a.address)).toBe(true);
    expect(count('wallet/getaccount')).toBe(2);
  });

  it('a newer block (the tip, a head read, a transaction found in it) or one block time ends every read', async () => {
    const tipped = world();
    const a = await funded(tipped.gateway, 2n * TRX);
    await tipped.gateway.getTrxBalance(a.address);
    devnet.fund(a.address, TRX);
    devnet.mine(1);
    expect(await tipped.gateway.getTrxBalance(a.address)).toBe(3n * TRX);

    // Without a tip: a head read here, or a transaction found in a newer block, says the block moved.
    const { gateway, clock, count } = world({ tip: false });
    const payer = await funded(gateway, 10n * TRX);
    expect(await gateway.getTrxBalance(a.address)).toBe(3n * TRX);
    devnet.fund(a.address, TRX);
    devnet.mine(1);
    expect(await gateway.getTrxBalance(a.address)).toBe(3n * TRX); // the same block time, no newer block known: as a node behind
    clock.advance(3_000);
    await gateway.head();
    expect(await gateway.getTrxBalance(a.address)).toBe(4n * TRX);
    const tx = await gateway.prepare(payer, { kind: 'transfer-trx', to: devnet.info().rental_pool, amountSun: TRX });
    await gateway.broadcast(tx);
    const before = count('wallet/getaccount');
    devnet.fund(a.address, TRX);
    devnet.mine(1);
    expect((await gateway.getTransaction(tx.txid)).state).toBe('confirmed');
    expect(await gateway.getTrxBalance(a.address)).toBe(5n * TRX);
    expect(count('wallet/getaccount')).toBe(before + 1);
  });

  it('a transaction it sends ends the reads of the addresses it touches, not of others', async () => {
    const { gateway, count } = world();
    const a = await funded(gateway, 5n * TRX);
    const b = (await gateway.createAccount()).address;
    const c = await funded(gateway, 5n * TRX);
    await Promise.all([gateway.getTrxBalance(a.address), gateway.getTrxBalance(b), gateway.getTrxBalance(c.address)]);
    const reads = count('wallet/getaccount');
    await gateway.broadcast(await gateway.prepare(a, { kind: 'transfer-trx', to: b, amountSun: TRX }));
    await Promise.all([gateway.getTrxBalance(a.address), gateway.getTrxBalance(b), gateway.getTrxBalance(c.address)]);
    expect(count('wallet/getaccount')).toBe(reads + 2);
  });

  it('energyPerStakedSun in the block of a getResources read is that reply\'s (TRON sends the network totals in every one): no call', async () => {
    const { gateway, plain, count } = world();
    const a = await funded(gateway, 50n * TRX);
    await plain.broadcast(await plain.prepare(a, { kind: 'freeze', resource: 'ENERGY', amountSun: 10n * TRX }));
    devnet.mine(1);
    await gateway.getResources(a.address);
    const reads = count('wallet/getaccountresource');
    expect(await gateway.energyPerStakedSun()).toBe(await plain.energyPerStakedSun());
    expect(count('wallet/getaccountresource')).toBe(reads);
    // A block later it is asked again.
    devnet.mine(1);
    expect(await gateway.energyPerStakedSun()).toBe(await plain.energyPerStakedSun());
    expect(count('wallet/getaccountresource')).toBe(reads + 1);
  });

  it('what the main address can delegate, from a getResources read that a delegation it sends overtook, is asked of the node', async () => {
    const { gateway, plain, count } = world();
    const owner = await funded(plain, 500n * TRX);
    const sub = await funded(plain, 5n * TRX);
    await plain.broadcast(await plain.prepare(owner, { kind: 'freeze', resource: 'ENERGY', amountSun: 200n * TRX }));
    devnet.mine(1);
    const delegation = await gateway.prepare(owner, { kind: 'delegate', resource: 'ENERGY', receiver: sub.address, amountSun: 100n * TRX });
    // The read starts before the send and ends after it (two rounds of requests against one): its account reply may
    // show the stake from before the delegation, so it must not answer what the owner can delegate now.
    const reading = gateway.getResources(owner.address);
    await gateway.broadcast(delegation);
    await reading;
    const asked = count('wallet/getcandelegatedmaxsize');
    expect(await gateway.getCanDelegateEnergySun(owner.address)).toBe(await plain.getCanDelegateEnergySun(owner.address));
    expect(count('wallet/getcandelegatedmaxsize')).toBe(asked + 1);
    devnet.mine(1);
    expect(await gateway.getCanDelegateEnergySun(owner.address)).toBe(100n * TRX);
  });

  it('energyPerStakedSun in the block of an energyAvailable read is that reply\'s: no call', async () => {
    const { gateway, plain, count } = world();
    const a = await funded(gateway, 50n * TRX);
    await gateway.energyAvailable(a.address);
    const reads = count('wallet/getaccountresource');
    expect(reads).toBe(1);
    expect(await gateway.energyPerStakedSun()).toBe(await plain.energyPerStakedSun());
    expect(count('wallet/getaccountresource')).toBe(reads);
  });

  it('property: getCanDelegateEnergySun is always the node\'s answer; with a getResources read of the block it costs no call exactly when the account shows no energy usage or no energy stake', async () => {
    await fc.assert(fc.asyncProperty(
      fc.record({
        stakeTrx: fc.constantFrom(0, 1, 3, 40, 200), spend: fc.boolean(), received: fc.boolean(), dayLater: fc.boolean(), together: fc.boolean(),
      }),
      async ({ stakeTrx, spend, received, dayLater, together }) => {
        const { gateway, plain, count } = world();
        const owner = await funded(plain, 500n * TRX);
        const other = await funded(plain, 500n * TRX);
        const send = async (signer: Signer, intent: Parameters<ChainGateway['prepare']>[1]): Promise<void> => {
          await plain.broadcast(await plain.prepare(signer, intent));
          devnet.mine(1);
        };
        if (stakeTrx > 0) await send(owner, { kind: 'freeze', resource: 'ENERGY', amountSun: BigInt(stakeTrx) * TRX });
        if (received) {
          // Stake received from another account is subtracted from the usage counted as stake (getV2EnergyUsage).
          await send(other, { kind: 'freeze', resource: 'ENERGY', amountSun: 100n * TRX });
          await send(other, { kind: 'delegate', resource: 'ENERGY', receiver: owner.address, amountSun: 100n * TRX });
        }
        if (spend) {
          // A USDT transfer paid from the owner's own energy first: its usage goes above 0.
          devnet.fundToken(owner.address, 5_000_000n);
          await send(owner, { kind: 'transfer-trc20', contract: devnet.usdtAddress, to: other.address, amount: 1n, feeLimitSun: 100n * TRX });
        }
        if (dayLater) {
          devnet.advance(24 * 3_600_000);
          devnet.mine(1);
        }
        const used = (await plain.getResources(owner.address)).energy.used;
        const before = count('wallet/getcandelegatedmaxsize');
        const answer = together
          ? (await Promise.all([gateway.getResources(owner.address), gateway.getCanDelegateEnergySun(owner.address)]))[1]
          : await gateway.getResources(owner.address).then(() => gateway.getCanDelegateEnergySun(owner.address));
        expect(answer).toBe(await plain.getCanDelegateEnergySun(owner.address));
        expect(count('wallet/getcandelegatedmaxsize') - before, `used ${used}, stake ${stakeTrx} TRX`).toBe(used === 0 || stakeTrx === 0 ? 0 : 1);
        // A block later, with no getResources read in it, the node is asked.
        devnet.mine(1);
        expect(await gateway.getCanDelegateEnergySun(owner.address)).toBe(await plain.getCanDelegateEnergySun(owner.address));
        expect(count('wallet/getcandelegatedmaxsize') - before).toBe(used === 0 || stakeTrx === 0 ? 1 : 2);
      },
    ), { numRuns: runs(12), seed: 39_55 });
  });

  it('getResources from the account read alone only for an account with no stake and no delegation; each answer what the full reads say', async () => {
    const { gateway, plain, count } = world();
    const bare = await funded(gateway, 50n * TRX);
    const staked = await funded(gateway, 50n * TRX);
    const receiver = await funded(gateway, 5n * TRX);
    await plain.broadcast(await plain.prepare(staked, { kind: 'freeze', resource: 'BANDWIDTH', amountSun: 20n * TRX }));
    devnet.mine(1);
    // The bare account spends free bandwidth; the receiver gets a delegation (its energy limit is the network's share).
    await plain.broadcast(await plain.prepare(bare, { kind: 'transfer-trx', to: receiver.address, amountSun: TRX }));
    await plain.broadcast(await plain.prepare(staked, { kind: 'freeze', resource: 'ENERGY', amountSun: 20n * TRX }));
    devnet.mine(1);
    await plain.broadcast(await plain.prepare(staked, { kind: 'delegate', resource: 'ENERGY', receiver: receiver.address, amountSun: 10n * TRX }));
    devnet.mine(1);
    const at = count('wallet/getaccountresource');
    expect(await gateway.getResources(bare.address)).toEqual(await plain.getResources(bare.address));
    expect(count('wallet/getaccountresource')).toBe(at);
    expect((await gateway.getResources(bare.address)).bandwidth.freeUsed).toBeGreaterThan(0);
    expect(await gateway.getResources(staked.address)).toEqual(await plain.getResources(staked.address));
    expect(await gateway.getResources(receiver.address)).toEqual(await plain.getResources(receiver.address));
    expect(count('wallet/getaccountresource')).toBe(at + 2);
    // Hours later its free bandwidth has recovered, in the account read as in the resource read.
    devnet.advance(6 * 3_600_000);
    expect(await gateway.getResources(bare.address)).toEqual(await plain.getResources(bare.address));
    // An address that does not exist yet: 600 free bytes either way.
    const fresh = (await plain.createAccount()).address;
    expect(await gateway.getResources(fresh)).toEqual(await plain.getResources(fresh));
  });

  it('a failed read is not remembered: asked again, it is sent again', async () => {
    const { gateway } = world();
    const a = await funded(gateway, TRX);
    devnet.setFaults({ script: [{ path: 'wallet/getaccount', kind: 'http_500', times: 1 }] });
    const first = await gateway.getTrxBalance(a.address).then(() => 'ok', () => 'failed');
    expect([first, await gateway.getTrxBalance(a.address)]).toEqual(['failed', TRX]);
  });

  it('energyFactor reads getcontractinfo\'s energy_factor (0 when java-tron omits it); without the chain\'s time, a new factor is seen in the next block', async () => {
    const { gateway } = world();
    const before = devnet.chain.params.usdtEnergyFactor;
    try {
      devnet.setParams({ usdtEnergyFactor: 0 });
      devnet.toMaintenance();
      expect(await gateway.energyFactor(devnet.usdtAddress)).toBe(0);
      devnet.setParams({ usdtEnergyFactor: 36_000 });
      devnet.toMaintenance();
      expect(await gateway.energyFactor(devnet.usdtAddress)).toBe(36_000);
    } finally {
      devnet.setParams({ usdtEnergyFactor: before });
      devnet.toMaintenance();
    }
  });

  it('property: every read answers what an uncached gateway answers at that moment, and a read repeated in one block costs no call', async () => {
    type Op = { kind: 'read'; what: 'trx' | 'exists' | 'resources' | 'energy' | 'usdt' | 'dry-run'; who: 0 | 1 | 2 }
      | { kind: 'send'; from: 0 | 1; to: 0 | 1 | 2; trc20: boolean } | { kind: 'mine' } | { kind: 'outside'; who: 0 | 1 | 2 };
    const who = fc.constantFrom(0 as const, 1 as const, 2 as const);
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 6, arbitrary: fc.record({ kind: fc.constant('read' as const), what: fc.constantFrom('trx', 'exists', 'resources', 'energy', 'usdt', 'dry-run'), who }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('send' as const), from: fc.constantFrom(0 as const, 1 as const), to: who, trc20: fc.boolean() }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('mine' as const) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('outside' as const), who }) },
    );
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 14 }), async (ops) => {
      const { gateway, plain, count } = world();
      const senders = [await funded(plain, 50n * TRX), await funded(plain, 50n * TRX)];
      devnet.fundToken(senders[0]!.address, 9_000_000n);
      devnet.fundToken(senders[1]!.address, 9_000_000n);
      devnet.mine(1);
      const addresses = [senders[0]!.address, senders[1]!.address, (await plain.createAccount()).address];
      const asked = new Set<string>();
      for (const o of ops) {
        if (o.kind === 'mine') {
          devnet.mine(1);
          asked.clear();
        } else if (o.kind === 'outside') {
          // Someone else pays the address: the chain shows it with the block that carries it.
          devnet.fund(addresses[o.who]!, 1n);
          devnet.mine(1);
          asked.clear();
        } else if (o.kind === 'send') {
          // Never to itself (refused as a transfer): the other sender instead.
          const to = addresses[o.to === o.from ? 1 - o.from : o.to]!;
          const tx = await gateway.prepare(senders[o.from]!, o.trc20
            ? { kind: 'transfer-trc20', contract: devnet.usdtAddress, to, amount: 1n, feeLimitSun: 50n * TRX }
            : { kind: 'transfer-trx', to, amountSun: 1n });
          await gateway.broadcast(tx);
          asked.clear();
        } else {
          const address = addresses[o.who]!;
          const read = (g: ChainGateway): Promise<unknown> => {
            switch (o.what) {
              case 'trx': return g.getTrxBalance(address);
              case 'exists': return g.accountExists(address);
              case 'resources': return g.getResources(address).then((r) => ({ ...r, withdrawableSun: 0n }));
              case 'energy': return g.energyAvailable(address);
              case 'usdt': return g.getTokenBalance(address, devnet.usdtAddress);
              case 'dry-run': return g.estimateTrc20TransferEnergy(addresses[0]!, address, devnet.usdtAddress, 1n);
            }
          };
          const key = `${o.what} ${o.who}`;
          const calls = count();
          const cached = await read(gateway);
          if (asked.has(key)) expect(count(), `${key} asked again in the same block`).toBe(calls);
          asked.add(key);
          expect(cached, key).toEqual(await read(plain));
        }
      }
    }), { numRuns: runs(12), seed: 39_5 });
  });
});

describe('CachingChainGateway: the energy factor and the prices until the next maintenance', () => {
  let chain: Devnet;
  beforeAll(async () => {
    // A short maintenance interval (a chain parameter, 6 h on mainnet), so that a test crosses several.
    chain = await startDevnet({ port: 0, blockMs: 0, seed: 'caching-maintenance', params: { maintenanceTimeInterval: 120_000 } });
  });
  afterAll(async () => {
    await chain.close();
  });

  /** A decorated gateway with the chain's time (the head's, as the scanner's fresh head gives it), and a plain one. */
  function periodWorld() {
    const clock = new ManualClock();
    const calls: string[] = [];
    const inner = createDevnetChainGateway(chain, { now: () => clock.now(), onCall: (path) => calls.push(path), blockCacheMs: 3_000 });
    const gateway = new CachingChainGateway(inner, {
      blockMs: 3_000, now: () => clock.now(), tip: () => chain.info().head_number, chainTime: () => chain.chain.head.time,
    });
    const plain = createDevnetChainGateway(chain);
    const count = (path: string): number => calls.filter((c) => c === path).length;
    const mine = (blocks: number): void => {
      chain.mine(blocks);
      clock.advance(3_000 * blocks);
    };
    const toMaintenance = (): void => {
      const from = chain.chain.head.time;
      chain.toMaintenance();
      clock.advance(chain.chain.head.time - from);
    };
    const read = async (g: ChainGateway): Promise<[number, bigint, bigint]> => {
      const [factor, prices] = await Promise.all([g.energyFactor(chain.usdtAddress), g.getChainPrices()]);
      return [factor, prices.energySun, prices.bandwidthSun];
    };
    return { gateway, plain, count, mine, toMaintenance, read };
  }

  it('one read of each a period; the schedule read once, then stepped on its grid; read again when a maintenance changed the interval', async () => {
    const { gateway, plain, count, mine, toMaintenance, read } = periodWorld();
    toMaintenance();
    mine(5);
    expect(await read(gateway)).toEqual([34_000, 100n, 1_000n]);
    expect([count('wallet/getcontractinfo'), count('wallet/getchainparameters'), count('wallet/getnextmaintenancetime')]).toEqual([1, 1, 1]);
    // Changes approved for the next maintenance: the chain answers the old values until then, and so does the cache,
    // block after block, without a call.
    chain.setParams({ usdtEnergyFactor: 40_000, energyFee: 210, transactionFee: 2_000 });
    for (let i = 0; i < 10; i++) {
      mine(2);
      expect(await read(gateway)).toEqual(await read(plain));
    }
    expect([count('wallet/getcontractinfo'), count('wallet/getchainparameters'), count('wallet/getnextmaintenancetime')]).toEqual([1, 1, 1]);
    // The maintenance: read again, once, at the new values; the next maintenance follows on the grid, not read.
    toMaintenance();
    mine(3);
    expect(await read(gateway)).toEqual([40_000, 210n, 2_000n]);
    mine(2);
    expect(await read(gateway)).toEqual([40_000, 210n, 2_000n]);
    expect([count('wallet/getcontractinfo'), count('wallet/getchainparameters'), count('wallet/getnextmaintenancetime')]).toEqual([2, 2, 1]);
    // A maintenance that changes the interval: the prices read after it shows so, and the schedule is read again.
    chain.setParams({ maintenanceTimeInterval: 60_000, usdtEnergyFactor: 34_000, energyFee: 100, transactionFee: 1_000 });
    toMaintenance();
    mine(3);
    expect(await read(gateway)).toEqual([34_000, 100n, 1_000n]);
    mine(1);
    expect(await read(gateway)).toEqual([34_000, 100n, 1_000n]);
    expect(count('wallet/getnextmaintenancetime')).toBe(2);
    const reads = count('wallet/getcontractinfo');
    mine(2);
    expect(await read(gateway)).toEqual([34_000, 100n, 1_000n]);
    expect(count('wallet/getcontractinfo')).toBe(reads);
    // …and the next maintenance on the new grid ends them.
    chain.setParams({ usdtEnergyFactor: 36_000 });
    toMaintenance();
    mine(3);
    expect(await read(gateway)).toEqual([36_000, 100n, 1_000n]);
  });

  it('near a maintenance (within two blocks of it, either side) a read stands one block only', async () => {
    const { gateway, count, mine, read } = periodWorld();
    mine(3);
    await read(gateway);
    const next = chain.chain.nextMaintenanceTime;
    // Up to the block two slots before the maintenance: from there on, once a block.
    mine((next - chain.chain.head.time) / 3_000 - 2);
    const before = count('wallet/getcontractinfo');
    await read(gateway);
    mine(1);
    await read(gateway);
    expect(count('wallet/getcontractinfo')).toBe(before + 2);
    // The maintenance block and the one after: a node a block behind may not have applied it yet.
    mine(1);
    await read(gateway);
    mine(1);
    await read(gateway);
    expect(count('wallet/getcontractinfo')).toBe(before + 4);
    // Past the margin: it stands again.
    mine(1);
    await read(gateway);
    mine(1);
    await read(gateway);
    expect(count('wallet/getcontractinfo')).toBe(before + 5);
  });

  it('maintenancePeriod: the next maintenance while well inside a period, null within two blocks of either end or without the chain\'s time; no call of its own', async () => {
    const { gateway, plain, count, mine, toMaintenance, read } = periodWorld();
    toMaintenance();
    mine(1);
    // One block after the maintenance: a node a block behind may not have applied it.
    expect(await gateway.maintenancePeriod()).toBeNull();
    mine(2);
    const next = chain.chain.nextMaintenanceTime;
    expect(await gateway.maintenancePeriod()).toBe(next);
    const calls = ['wallet/getchainparameters', 'wallet/getnextmaintenancetime', 'wallet/getcontractinfo'].map(count);
    // The prices read near the maintenance were read again once inside the period (decision 302); never the factor.
    expect(calls).toEqual([2, 1, 0]);
    // Through the period, block after block: the same mark, and no call (the prices and the schedule are kept).
    while (chain.chain.head.time + 3 * 3_000 < next) {
      mine(1);
      expect(await gateway.maintenancePeriod()).toBe(next);
    }
    expect(['wallet/getchainparameters', 'wallet/getnextmaintenancetime', 'wallet/getcontractinfo'].map(count)).toEqual(calls);
    // Two blocks before the maintenance, at it and one block after: none.
    mine(1);
    expect(chain.chain.head.time + 2 * 3_000).toBeGreaterThanOrEqual(next);
    expect(await gateway.maintenancePeriod()).toBeNull();
    mine(2);
    expect(await gateway.maintenancePeriod()).toBeNull();
    mine(2);
    expect(await gateway.maintenancePeriod()).toBe(chain.chain.nextMaintenanceTime);
    expect(chain.chain.nextMaintenanceTime).toBeGreaterThan(next);
    expect(await read(gateway)).toEqual(await read(plain));
    // Without the chain's time (no fresh head from the scanner), and on a gateway without a schedule: never known.
    const blind = new CachingChainGateway(createDevnetChainGateway(chain), { blockMs: 3_000, now: () => 0, chainTime: () => null });
    expect(await blind.maintenancePeriod()).toBeNull();
    expect(await plain.maintenancePeriod()).toBeNull();
  });

  /** Random chain histories for the two properties below: blocks, value changes, maintenances, and the probe `kind`. */
  type ChainOp<K extends 'mark' | 'read'> = { kind: 'mine'; blocks: number } | { kind: 'change'; factor: number; fee: number } | { kind: 'maintenance' } | { kind: K };
  const chainOps = <K extends 'mark' | 'read'>(kind: K): fc.Arbitrary<ChainOp<K>[]> => fc.array(fc.oneof(
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('mine' as const), blocks: fc.integer({ min: 1, max: 25 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('change' as const), factor: fc.constantFrom(0, 20_000, 34_000, 50_000), fee: fc.constantFrom(100, 210, 420) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('maintenance' as const) }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant(kind) }) },
  ), { minLength: 4, maxLength: 16 });
  /** Applies a chain op; false for the probe, which the property handles. */
  const applied = (o: ChainOp<'mark' | 'read'>, world: ReturnType<typeof periodWorld>): boolean => {
    if (o.kind === 'mine') world.mine(o.blocks);
    else if (o.kind === 'change') chain.setParams({ usdtEnergyFactor: o.factor, energyFee: o.fee });
    else if (o.kind === 'maintenance') world.toMaintenance();
    else return false;
    return true;
  };

  it('property: two equal maintenancePeriod marks, whatever happened between, bracket the same factor and prices on the chain', async () => {
    await fc.assert(fc.asyncProperty(chainOps('mark'), async (ops) => {
      const world = periodWorld();
      const seen = new Map<number, [number, bigint, bigint]>();
      for (const o of ops) {
        if (applied(o, world)) continue;
        const mark = await world.gateway.maintenancePeriod();
        if (mark === null) continue;
        // What a node one block behind answers too: the chain one block back (the margin's reason).
        const now = await world.read(world.plain);
        const earlier = seen.get(mark);
        if (earlier !== undefined) expect(now).toEqual(earlier);
        seen.set(mark, now);
      }
    }), { numRuns: runs(10), seed: 39_52 });
  });

  it('property: with factor and price changes at maintenances in between, every read answers what an uncached gateway answers then', async () => {
    await fc.assert(fc.asyncProperty(chainOps('read'), async (ops) => {
      const world = periodWorld();
      for (const o of ops) {
        if (!applied(o, world)) expect(await world.read(world.gateway)).toEqual(await world.read(world.plain));
      }
    }), { numRuns: runs(10), seed: 39_51 });
  });
});

