/**
 * TronBlockSource on the in-process devnet: the shared BlockSource contract (payments made in-process, so the
 * property stays fast), then what only this adapter has: the number of node calls per block, and failover between
 * nodes with backoff, Retry-After and a call budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBlockSourceContract } from '../../contracts-tests/block-source.contract.js';
import { ChainError } from '../../core/domain/errors.js';
import type { Devnet } from '../tron-devnet/index.js';
import { pay, solidify, startTestDevnet, trx, wallet, type Wallet } from '../tron-devnet/test-helpers.js';
import { TronBlockSource } from './tron-block-source.js';

let devnet: Devnet;
let payer: Wallet;
beforeAll(async () => {
  devnet = await startTestDevnet({ solidifyLag: 4, extraNodes: 1 });
  payer = wallet(devnet, 'block-source-payer');
  devnet.fund(payer.address, trx(1_000_000));
  devnet.fundToken(payer.address, 10n ** 15n);
  devnet.mine(6);
});
afterAll(() => devnet.close());

let labels = 0;
describeBlockSourceContract('TronBlockSource on the devnet', () => ({
  source: new TronBlockSource({ fullHost: devnet.url, timeoutMs: 5_000 }),
  token: devnet.usdtAddress,
  chain: {
    // A new suffix per subject: every test starts from addresses with no history.
    address: (label) => wallet(devnet, `${label}-${labels++}`).address,
    payTrx: async (to, sun) => pay.trx(devnet, payer.key, to, sun),
    payToken: async (to, amount) => pay.usdt(devnet, payer.key, to, amount),
    failingTokenPayment: async (to) => pay.usdt(devnet, payer.key, to, 10n ** 30n),
    payInternal: async (to, sun) => pay.viaRouter(devnet, payer.key, to, sun),
    mine: async (blocks) => devnet.mine(blocks),
    solidify: async () => solidify(devnet),
    reorg: async (depth) => void devnet.chain.reorg(depth, { keep: 'none' }),
  },
}), { internal: true, reorg: true });

/** Node calls `run` makes on the devnet's first endpoint. */
async function calls(run: () => Promise<unknown>): Promise<number> {
  const before = devnet.nodes[0]!.calls;
  await run();
  return devnet.nodes[0]!.calls - before;
}

describe('TronBlockSource node calls', () => {
  it('reads the head block in one call more than a head read, and an empty block in one', async () => {
    const source = new TronBlockSource({ fullHost: devnet.url, timeoutMs: 5_000 });
    pay.trx(devnet, payer.key, wallet(devnet, 'calls-a').address, 1);
    const n = devnet.mine(1);
    expect(await calls(async () => {
      await source.head('head');
      await source.block(n, 'head');
    })).toBe(2);
    const empty = devnet.mine(1);
    expect(await calls(() => source.block(empty, 'head'))).toBe(1);
    expect(await calls(() => source.block(n, 'head'))).toBe(2);
  });
});

describe('TronBlockSource failover', () => {
  const dead = 'http://127.0.0.1:9';

  it('moves to the next node when one is unreachable, and skips it for a backoff that doubles', async () => {
    let now = 1_000_000;
    const failed: string[] = [];
    const source = new TronBlockSource({
      nodes: [{ fullHost: `${dead}/` }, { fullHost: devnet.url }], timeoutMs: 2_000, backoff: { baseMs: 1_000, maxMs: 8_000 }, now: () => now,
      onNodeFailure: (node) => failed.push(node),
    });
    expect((await source.head('head')).number).toBe(devnet.info().head_number);
    expect(failed).toEqual([dead]);
    expect(source.nodes()[0]).toMatchObject({ consecutiveFailures: 1, coolingUntil: now + 1_000 });
    await source.head('head');
    expect(source.nodes()[0]!.consecutiveFailures).toBe(1);
    now += 1_000;
    await source.head('head');
    expect(source.nodes()[0]).toMatchObject({ consecutiveFailures: 2, coolingUntil: now + 2_000 });
  });

  it("honours a node's Retry-After, and fails transiently with the wait when every node is cooling", async () => {
    let now = 5_000_000;
    const source = new TronBlockSource({ nodes: [{ fullHost: devnet.url }, { fullHost: dead }], timeoutMs: 2_000, now: () => now });
    devnet.setFaults({ script: [{ path: 'wallet/getnowblock', kind: 'http_429', retry_after_s: 30 }] });
    const error = await source.head('head').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainError);
    expect(error).toMatchObject({ transient: true });
    expect((error as ChainError).retryAfterMs).toBe(1_000);
    expect(source.nodes()[0]!.coolingUntil).toBe(now + 30_000);
    now += 30_000;
    expect((await source.head('head')).number).toBe(devnet.info().head_number);
  });

  it('keeps a call budget per node: a spent node is skipped until its window ends', async () => {
    let now = 10_000_000;
    const source = new TronBlockSource({ nodes: [{ fullHost: devnet.url }, { fullHost: devnet.url }], budget: { calls: 2, windowMs: 60_000 }, now: () => now });
    for (let i = 0; i < 4; i += 1) await source.head('head');
    expect(source.nodes().map((n) => n.calls)).toEqual([2, 2]);
    await expect(source.head('head')).rejects.toMatchObject({ transient: true, retryAfterMs: 60_000 - (now % 60_000) });
    now += 60_000;
    await source.head('head');
    expect(source.nodes().map((n) => n.calls)).toEqual([1, 0]);
  });

  it('two endpoints of one chain with independent faults: chaos on the first, the second carries the reads', async () => {
    let now = 20_000_000;
    const [a, b] = devnet.nodes;
    const source = new TronBlockSource({ nodes: [{ fullHost: a!.url }, { fullHost: b!.url }], timeoutMs: 2_000, now: () => now });
    a!.setFaults({ chaos: { rate: 1, kinds: ['http_503', 'reset', 'error_body'], seed: 'failover' } });
    try {
      const n = devnet.mine(1);
      const before = b!.calls;
      expect((await source.head('head')).number).toBe(n);
      expect((await source.block(n, 'head'))?.number).toBe(n);
      // The head read failed over to the second node; the (empty) head block came with it, no further call.
      expect(b!.calls - before).toBe(1);
      expect(source.nodes()[0]!.consecutiveFailures).toBe(1);
      now += 60_000;
      a!.setFaults({ chaos: null });
      await source.head('head');
      expect(source.nodes()[0]!.consecutiveFailures).toBe(0);
    } finally {
      a!.setFaults({ chaos: null });
    }
  });

  it('reads final balances on one node, between two equal reads of the solidified head', async () => {
    const who = wallet(devnet, 'final-reader').address;
    pay.trx(devnet, payer.key, who, 5);
    solidify(devnet);
    const source = new TronBlockSource({ nodes: [{ fullHost: dead }, { fullHost: devnet.url }], timeoutMs: 2_000 });
    const read = await source.finalBalances([who], [null, devnet.usdtAddress]);
    expect(read.at.number).toBe(devnet.info().solidified_number);
    expect(read.balances.get(who)).toEqual(new Map([[null, 5n], [devnet.usdtAddress, 0n]]));
  });
});
