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
    expect(count('wallet/getaccountresource')).toBe(1);
    expect([count('wallet/getchainparameters'), count('wallet/getcontractinfo'), count('wallet/getcandelegatedmaxsize')]).toEqual([1, 1, 1]);
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

  it('a failed read is not remembered: asked again, it is sent again', async () => {
    const { gateway } = world();
    const a = await funded(gateway, TRX);
    devnet.setFaults({ script: [{ path: 'wallet/getaccount', kind: 'http_500', times: 1 }] });
    const first = await gateway.getTrxBalance(a.address).then(() => 'ok', () => 'failed');
    expect([first, await gateway.getTrxBalance(a.address)]).toEqual(['failed', TRX]);
  });

  it('energyFactor reads getcontractinfo\'s energy_factor (0 when java-tron omits it), and a new factor is seen in a new block', async () => {
    const { gateway } = world();
    const before = devnet.chain.params.usdtEnergyFactor;
    try {
      devnet.setParams({ usdtEnergyFactor: 0 });
      devnet.mine(1);
      expect(await gateway.energyFactor(devnet.usdtAddress)).toBe(0);
      devnet.setParams({ usdtEnergyFactor: 36_000 });
      devnet.mine(1);
      expect(await gateway.energyFactor(devnet.usdtAddress)).toBe(36_000);
    } finally {
      devnet.setParams({ usdtEnergyFactor: before });
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
