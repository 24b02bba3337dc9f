/**
 * Adapter-only (issue #27): the gateway's per-block heads on the devnet, counted from the node client's own call
 * hook (what a provider would bill). With blockCacheMs the head is read at most once per interval, shared by every
 * caller, until a newer block is known: from the tip (the scanner read a newer block) or from a transaction found in
 * one. State reads are asked each time (once a block is CachingChainGateway's: caching-chain-gateway.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../memory/index.js';
import { startDevnet, type Devnet } from '../tron-devnet/index.js';
import { createDevnetChainGateway } from './devnet-chain-gateway.js';
import type { TronWebChainGateway, TronWebChainGatewayOptions } from './tronweb-chain-gateway.js';

const TRX = 1_000_000n;
let devnet: Devnet;

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'node-block-cache' });
});
afterAll(async () => {
  await devnet.close();
});

function counted(options: Pick<TronWebChainGatewayOptions, 'blockCacheMs' | 'tip' | 'recent'> = {}) {
  const clock = new ManualClock();
  const calls: string[] = [];
  const gateway: TronWebChainGateway = createDevnetChainGateway(devnet, { now: () => clock.now(), onCall: (path) => calls.push(path), ...options });
  const count = (path: string): number => calls.filter((c) => c === path).length;
  return { clock, calls, gateway, count };
}

describe('per-block heads (blockCacheMs)', () => {
  it('reads the head once per interval for every caller (state reads are asked each time)', async () => {
    const { clock, gateway, count } = counted({ blockCacheMs: 3_000 });
    const address = (await gateway.createAccount()).address;
    devnet.fund(address, 5n * TRX);
    devnet.mine(1);
    await Promise.all([gateway.head(), gateway.head()]);
    await gateway.getResources(address);
    await gateway.head();
    await gateway.getTrxBalance(address);
    await gateway.getTrxBalance(address);
    expect([count('wallet/getblock'), count('wallet/getaccount')]).toEqual([1, 3]);
    clock.advance(2_999);
    await gateway.head();
    expect(count('wallet/getblock')).toBe(1);
    clock.advance(1);
    await gateway.head();
    expect(count('wallet/getblock')).toBe(2);
  });

  it('a newer block from the tip or from a transaction found in it ends the cached head at once', async () => {
    let tip: number | null = null;
    const { gateway, count } = counted({ blockCacheMs: 3_000, tip: () => tip });
    const payerAccount = await gateway.createAccount();
    devnet.fund(payerAccount.address, 10n * TRX);
    devnet.mine(1);
    const first = await gateway.head();
    devnet.mine(1);
    tip = devnet.info().head_number;
    expect((await gateway.head()).number).toBe(first.number + 1);
    tip = null;
    const tx = await gateway.prepare({ address: payerAccount.address, privateKey: async () => payerAccount.privateKey },
      { kind: 'transfer-trx', to: devnet.info().rental_pool, amountSun: TRX });
    await gateway.broadcast(tx);
    devnet.mine(1);
    const before = count('wallet/getblock');
    expect((await gateway.getTransaction(tx.txid)).state).toBe('confirmed');
    expect((await gateway.head()).number).toBe(devnet.info().head_number);
    expect(count('wallet/getblock')).toBe(before + 1);
  });

  it('a head the scanner read (recent) serves as the head read while no newer block is known; builds reference it', async () => {
    let recent: { number: number; timestamp: number; id: string } | null = null;
    const { gateway, count } = counted({ blockCacheMs: 3_000, recent: () => recent });
    const payerAccount = await gateway.createAccount();
    devnet.fund(payerAccount.address, 10n * TRX);
    devnet.mine(1);
    const head = await gateway.head();
    expect(count('wallet/getblock')).toBe(1);
    devnet.mine(1);
    const block = await fetch(`${devnet.url}/wallet/getblock`, { method: 'POST', body: JSON.stringify({ detail: false }) })
      .then((r) => r.json()) as { blockID: string; block_header: { raw_data: { number: number; timestamp: number } } };
    recent = { number: block.block_header.raw_data.number, timestamp: block.block_header.raw_data.timestamp, id: block.blockID };
    expect(await gateway.head()).toEqual({ number: head.number + 1, timestamp: recent.timestamp });
    const tx = await gateway.prepare({ address: payerAccount.address, privateKey: async () => payerAccount.privateKey },
      { kind: 'transfer-trx', to: devnet.info().rental_pool, amountSun: TRX });
    expect(tx.expiresAt).toBe(recent.timestamp + 60_000);
    expect(count('wallet/getblock')).toBe(1);
    await gateway.broadcast(tx);
    devnet.mine(1);
    expect((await gateway.getTransaction(tx.txid)).state).toBe('confirmed');
  });

  it('without blockCacheMs every head is asked', async () => {
    const { gateway, count } = counted();
    await gateway.head();
    await gateway.head();
    expect(count('wallet/getblock')).toBe(2);
  });
});
