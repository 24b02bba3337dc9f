/**
 * The balance scanner against the in-process devnet: real tronweb transfers, the TronBlockSource and the
 * TronWebChainGateway over HTTP, memory repositories and a ManualClock.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryAdapters, ManualClock, MemoryScanCursorStore, type MemoryAdapters } from '../../../adapters/memory/index.js';
import { createDevnetChainGateway } from '../../../adapters/tron/devnet-chain-gateway.js';
import { TronBlockSource } from '../../../adapters/tron/tron-block-source.js';
import type { Devnet } from '../../../adapters/tron-devnet/index.js';
import { solidify, startTestDevnet, trx, wallet, type Wallet } from '../../../adapters/tron-devnet/test-helpers.js';
import { createAssetRegistry } from '../../domain/assets.js';
import { REFRESH_SOURCE } from '../../domain/model/balance.js';
import { ADDRESS_STATUS, ADDRESS_TYPE, type WalletAddress } from '../../domain/model/wallet.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import type { WalletRepository } from '../../ports/wallet-repository.port.js';
import { BalanceScanner, type BalanceScannerOptions } from './balance-scanner.js';

let devnet: Devnet;
let payer: Wallet;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let usdt: any;
beforeAll(async () => {
  devnet = await startTestDevnet();
  payer = wallet(devnet, 'scanner-payer');
  devnet.fund(payer.address, trx(100_000));
  devnet.fundToken(payer.address, 900_000_000n);
  devnet.mine(1);
  usdt = await payer.tw.contract().at(devnet.usdtAddress);
});
afterAll(() => devnet.close());

let walletSeq = 0;
function managed(address: string): WalletAddress {
  walletSeq += 1;
  return {
    id: walletSeq, userId: 1, networkCode: 'TRON', address, addressType: ADDRESS_TYPE.SUB, label: null, status: ADDRESS_STATUS.ACTIVE,
    encryptedKey: { keyId: 'k', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' }, createdAt: 0, version: 1,
  };
}

/** Counts the scanner's wallet lookups (the cost per block must not depend on how many addresses are managed). */
function countingWallets(inner: WalletRepository): WalletRepository & { lookups: number } {
  const counted = Object.create(inner) as WalletRepository & { lookups: number };
  counted.lookups = 0;
  counted.findManaged = async (addresses) => {
    counted.lookups += 1;
    return inner.findManaged(addresses);
  };
  return counted;
}

interface Rig {
  mem: MemoryAdapters;
  clock: ManualClock;
  cursors: MemoryScanCursorStore;
  wallets: WalletRepository & { lookups: number };
  scanner(options?: BalanceScannerOptions, chain?: ChainGateway): BalanceScanner;
}

async function rig(addresses: readonly string[]): Promise<Rig> {
  const clock = new ManualClock();
  const mem = createMemoryAdapters({ clock });
  for (const address of addresses) await mem.wallets.insert(managed(address), { maxSubAddresses: -1 });
  const cursors = new MemoryScanCursorStore();
  const wallets = countingWallets(mem.wallets);
  const blocks = new TronBlockSource({ fullHost: devnet.url, timeoutMs: 5_000 });
  const realChain = createDevnetChainGateway(devnet);
  const assets = createAssetRegistry({ usdtContract: devnet.usdtAddress });
  return {
    mem, clock, cursors, wallets,
    scanner: (options = {}, chain = realChain) =>
      new BalanceScanner({ clock, blocks, cursors, wallets, balances: mem.balances, chain, assets }, options),
  };
}

describe('BalanceScanner on the devnet', () => {
  it('refreshes exactly the managed addresses a block touches (TRX and USDT), as refresh_source 1', async () => {
    const alice = wallet(devnet, 'scan-alice').address;
    const bob = wallet(devnet, 'scan-bob').address;
    const stranger = wallet(devnet, 'scan-stranger').address;
    const quiet = wallet(devnet, 'scan-quiet').address;
    const r = await rig([alice, bob, quiet]);
    const scanner = r.scanner();
    const startPass = await scanner.scan();
    expect(startPass.to).toBe(devnet.info().head_number);
    await payer.tw.trx.sendTransaction(alice, trx(7));
    await usdt.methods.transfer(bob, 2_500_000).send({ feeLimit: trx(50) });
    await payer.tw.trx.sendTransaction(stranger, trx(1));
    const block = devnet.mine(1);
    r.clock.advance(3_000);
    const pass = await scanner.scan();
    expect(pass).toMatchObject({ from: block, to: block, refreshed: [alice, bob] });
    const a = await r.mem.balances.get(alice);
    expect(a).toMatchObject({ refreshSource: REFRESH_SOURCE.AUTO, updatedAt: r.clock.now() });
    expect(a!.items.map((i) => [i.symbol, i.available])).toEqual([['TRX', 7_000_000n], ['USDT', 0n]]);
    expect((await r.mem.balances.get(bob))!.items.map((i) => [i.symbol, i.available])).toEqual([['TRX', 0n], ['USDT', 2_500_000n]]);
    expect(await r.mem.balances.get(stranger)).toBeNull();
    expect(await r.mem.balances.get(quiet)).toBeNull();
    expect(await r.cursors.get('balance-scan:head')).toBe(block);
  });

  it('persists its cursor: a new scanner resumes after the last processed block, catching up across several', async () => {
    const dave = wallet(devnet, 'scan-dave').address;
    const r = await rig([dave]);
    await r.scanner().scan();
    const blocks: number[] = [];
    for (const amount of [1, 2, 3]) {
      await payer.tw.trx.sendTransaction(dave, trx(amount));
      blocks.push(devnet.mine(1));
    }
    const resumed = r.scanner({ maxBlocksPerPass: 2 });
    expect(await resumed.scan()).toMatchObject({ from: blocks[0], to: blocks[1], refreshed: [dave, dave], latest: blocks[2] });
    expect(await r.scanner().scan()).toMatchObject({ from: blocks[2], to: blocks[2], refreshed: [dave] });
    expect(await r.scanner().scan()).toMatchObject({ from: null, to: null, refreshed: [] });
    expect((await r.mem.balances.get(dave))!.items[0]!.available).toBe(6_000_000n);
  });

  it('does not advance the cursor past a block whose refresh failed; the next pass redoes that block', async () => {
    const erin = wallet(devnet, 'scan-erin').address;
    const r = await rig([erin]);
    const start = (await r.scanner().scan()).to!;
    const real = createDevnetChainGateway(devnet);
    let failures = 1;
    const flaky: ChainGateway = Object.create(real) as ChainGateway;
    flaky.getTokenBalance = async (address, contract) => {
      if (failures-- > 0) throw new Error('node hiccup');
      return real.getTokenBalance(address, contract);
    };
    await payer.tw.trx.sendTransaction(erin, trx(4));
    const block = devnet.mine(1);
    await expect(r.scanner({}, flaky).scan()).rejects.toThrow('node hiccup');
    expect(await r.cursors.get('balance-scan:head')).toBe(start);
    expect(await r.mem.balances.get(erin)).toBeNull();
    expect(await r.scanner({}, flaky).scan()).toMatchObject({ from: block, to: block, refreshed: [erin] });
    expect((await r.mem.balances.get(erin))!.items[0]!.available).toBe(4_000_000n);
  });

  it('following the solidified level, a transfer is picked up only once its block is solidified', async () => {
    const fay = wallet(devnet, 'scan-fay').address;
    const r = await rig([fay]);
    const scanner = r.scanner({ level: 'solidified' });
    await scanner.scan();
    await payer.tw.trx.sendTransaction(fay, trx(2));
    devnet.mine(1);
    expect((await scanner.scan()).refreshed).toEqual([]);
    solidify(devnet);
    const caught = await scanner.scan();
    expect(caught.refreshed).toEqual([fay]);
    expect(await r.cursors.get('balance-scan:solidified')).toBe(devnet.info().solidified_number);
  });

  it('property: one wallet lookup per block with transfers, however many addresses are managed', async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 3 }), async (extra, blocksWithTransfers) => {
      const target = wallet(devnet, `scan-prop-${extra}-${blocksWithTransfers}`).address;
      const others = Array.from({ length: extra }, (_, i) => `T${String(i).padStart(33, 'x')}`);
      const r = await rig([target, ...others]);
      const scanner = r.scanner();
      await scanner.scan();
      r.wallets.lookups = 0;
      for (let i = 0; i < blocksWithTransfers; i += 1) {
        await payer.tw.trx.sendTransaction(target, 1_000 + i);
        devnet.mine(1);
        devnet.mine(1); // an empty block: no lookup at all
      }
      const pass = await scanner.scan();
      expect(pass.refreshed).toEqual(Array(blocksWithTransfers).fill(target));
      expect(r.wallets.lookups).toBe(blocksWithTransfers);
    }), { numRuns: 6 });
  });
});
