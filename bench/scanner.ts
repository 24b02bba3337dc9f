/**
 * Deposit scanner bench (`npm run bench:scanner`), every figure measured in this run:
 *  1. node calls per block at head depth in steady state (a pass per block on the devnet, other people's traffic in
 *     every block), without deposits and with a deposit every 10 blocks, against the 3 calls a naive reader makes
 *     (getnowblock + getblockbynum + gettransactioninfobyblocknum) on the same blocks;
 *  2. scan cost per block with 1,000 and with 100,000 watched addresses: the same mainnet-sized blocks (300
 *     transactions, 2 paying watched addresses) served over loopback HTTP (bench/mainnet-blocks.ts) and read, parsed,
 *     matched and booked by the real block source, scanner and memory stores, in alternating slices; goal ≤ 1.2x;
 *  3. detection latency in blocks from a deposit's inclusion to the cached balance, at head and solidified depth
 *     (the devnet solidifies 19 blocks behind the head, as mainnet);
 *  4. catch-up speed after a 10,000-block outage, over loopback HTTP, in blocks/s and as a multiple of real time.
 * BENCH_REPLAY_BLOCKS (default 600 per side) and BENCH_OUTAGE_BLOCKS (default 10,000) bound the run.
 */
import { performance } from 'node:perf_hooks';
import { createMemoryAdapters, ManualClock, MemoryScanCursorStore, type MemoryAdapters } from '../adapters/memory/index.js';
import { TronBlockSource } from '../adapters/tron/tron-block-source.js';
import type { Devnet } from '../adapters/tron-devnet/index.js';
import { pay, startTestDevnet, trx, wallet } from '../adapters/tron-devnet/test-helpers.js';
import { BalanceScanner, type BalanceScannerOptions } from '../core/application/worker/balance-scanner.js';
import { createAssetRegistry } from '../core/domain/assets.js';
import { ADDRESS_STATUS, ADDRESS_TYPE, type WalletAddress } from '../core/domain/model/wallet.js';
import type { ChainLevel } from '../core/ports/block-source.port.js';
import { MainnetBlocks, syntheticAddress } from './mainnet-blocks.js';

const REPLAY_BLOCKS = Number(process.env['BENCH_REPLAY_BLOCKS'] ?? 600);
const OUTAGE_BLOCKS = Number(process.env['BENCH_OUTAGE_BLOCKS'] ?? 10_000);
const SLICES = 6;
const GOAL = 1.2;
const ACTIVE = 500;

const out = (line: string): void => void process.stdout.write(`${line}\n`);

function sub(id: number, address: string): WalletAddress {
  return {
    id, userId: 1 + (id % 50), networkCode: 'TRON', address, addressType: ADDRESS_TYPE.SUB, label: null, status: ADDRESS_STATUS.ACTIVE,
    encryptedKey: { keyId: 'k', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' }, createdAt: 0, version: 1,
  };
}

async function watch(mem: MemoryAdapters, addresses: readonly string[]): Promise<void> {
  for (const [i, a] of addresses.entries()) await mem.wallets.insert(sub(i + 1, a), { maxSubAddresses: -1 });
}

function scannerOn(devnet: Devnet, mem: MemoryAdapters, clock: ManualClock, options: BalanceScannerOptions): BalanceScanner {
  return new BalanceScanner({
    clock, blocks: new TronBlockSource({ fullHost: devnet.url, timeoutMs: 5_000 }), cursors: new MemoryScanCursorStore(),
    wallets: mem.wallets, balances: mem.balances, deposits: mem.deposits, uow: mem.uow, developerConfigs: mem.developerConfigs, ids: mem.ids, assets: createAssetRegistry({ usdtContract: devnet.usdtAddress }),
  }, { owner: 'bench', ...options });
}

/** 1. Calls per block in steady state, with and without deposits, and the naive reader on the same blocks. */
async function callsPerBlock(): Promise<void> {
  const devnet = await startTestDevnet();
  try {
    const payer = wallet(devnet, 'bench-payer');
    devnet.fund(payer.address, trx(100_000_000));
    devnet.fundToken(payer.address, 10n ** 15n);
    devnet.mine(30);
    const clock = new ManualClock();
    const mem = createMemoryAdapters({ clock });
    const subs = Array.from({ length: 20 }, (_, i) => wallet(devnet, `bench-sub-${i}`).address);
    await watch(mem, subs);
    const scanner = scannerOn(devnet, mem, clock, { level: 'head' });
    await scanner.scan();
    const node = devnet.nodes[0]!;
    const run = async (blocks: number, depositEvery: number): Promise<number> => {
      const before = node.calls;
      for (let b = 1; b <= blocks; b += 1) {
        for (let i = 0; i < 3; i += 1) pay.trx(devnet, payer.key, wallet(devnet, `bench-other-${(b * 3 + i) % 500}`).address, 1_000 + i);
        if (depositEvery > 0 && b % depositEvery === 0) {
          const to = subs[(b / depositEvery) % subs.length]!;
          if (b % 3 === 0) pay.trx(devnet, payer.key, to, trx(5));
          else if (b % 3 === 1) pay.usdt(devnet, payer.key, to, 5_000_000n);
          else pay.viaRouter(devnet, payer.key, to, trx(5));
        }
        devnet.mine(1);
        clock.advance(3_000);
        await scanner.scan();
      }
      return (node.calls - before) / blocks;
    };
    const quiet = await run(300, 0);
    const busy = await run(300, 10);
    const naiveBefore = node.calls;
    const head = devnet.info().head_number;
    for (let n = head - 99; n <= head; n += 1) {
      for (const [path, body] of [['getnowblock', {}], ['getblockbynum', { num: n }], ['gettransactioninfobyblocknum', { num: n }]] as const) {
        await fetch(`${devnet.url}/wallet/${path}`, { method: 'POST', body: JSON.stringify(body) });
      }
    }
    const naive = (node.calls - naiveBefore) / 100;
    out(`calls/block    ${quiet.toFixed(2)} without deposits, ${busy.toFixed(2)} with a deposit every 10 blocks `
      + `(naive reader ${naive.toFixed(2)}: ${(quiet / naive).toFixed(2)}x and ${(busy / naive).toFixed(2)}x of it; `
      + `${Math.round(busy * 28_800).toLocaleString('en-US')} calls a day at one block every 3 s)`);
  } finally {
    await devnet.close();
  }
}

/** 2. Scan cost per block with 1k and 100k watched addresses: the same blocks, read over HTTP, in alternating slices. */
async function costPerBlock(): Promise<void> {
  const active = Array.from({ length: ACTIVE }, (_, i) => syntheticAddress(1, i));
  const node = new MainnetBlocks(active);
  const url = await node.listen();
  try {
    const side = async (watchedCount: number) => {
      const clock = new ManualClock();
      const mem = createMemoryAdapters({ clock });
      // The same active addresses on both sides; the rest are watched but idle.
      await watch(mem, [...active, ...Array.from({ length: watchedCount - ACTIVE }, (_, i) => syntheticAddress(2, i))]);
      const scanner = new BalanceScanner({
        clock, blocks: new TronBlockSource({ fullHost: url }), cursors: new MemoryScanCursorStore(), wallets: mem.wallets,
        balances: mem.balances, deposits: mem.deposits, uow: mem.uow, developerConfigs: mem.developerConfigs, ids: mem.ids, assets: createAssetRegistry({ usdtContract: syntheticAddress(3, 0) }),
      }, { owner: 'bench', level: 'solidified', startAt: 1, maxBlocksPerPass: 100 });
      let ms = 0;
      return {
        name: `${watchedCount.toLocaleString('en-US')} watched`,
        async catchUp(): Promise<void> {
          const started = performance.now();
          for (let done = false; !done;) done = (await scanner.scan()).lag === 0;
          ms += performance.now() - started;
        },
        spent: () => ms,
      };
    };
    const small = await side(1_000);
    const large = await side(100_000);
    node.tip = 100;
    await small.catchUp();
    await large.catchUp();
    const per = Math.max(1, Math.floor(REPLAY_BLOCKS / SLICES));
    const [s0, l0] = [small.spent(), large.spent()];
    for (let i = 0; i < SLICES; i += 1) {
      node.tip += per;
      // Alternate which side goes first, so neither always runs right after the other's garbage.
      for (const s of i % 2 === 0 ? [small, large] : [large, small]) await s.catchUp();
    }
    const blocks = per * SLICES;
    const [s, l] = [(small.spent() - s0) / blocks, (large.spent() - l0) / blocks];
    const ratio = l / s;
    out(`cost/block     ${s.toFixed(2)} ms with ${small.name}, ${l.toFixed(2)} ms with ${large.name}: ${ratio.toFixed(2)}x `
      + `(goal ≤ ${GOAL}x) ${ratio <= GOAL ? 'ok' : 'MISSED'}; blocks of 300 transactions read over HTTP, parsed, matched and booked, `
      + `${blocks} blocks each side in ${SLICES} alternating slices`);
  } finally {
    await node.close();
  }
}

/** 3. Blocks from inclusion to the cached balance. */
async function latency(level: ChainLevel): Promise<number> {
  const devnet = await startTestDevnet();
  try {
    const payer = wallet(devnet, 'bench-latency-payer');
    devnet.fund(payer.address, trx(1_000));
    devnet.mine(30);
    const clock = new ManualClock();
    const mem = createMemoryAdapters({ clock });
    const to = wallet(devnet, `bench-latency-${level}`).address;
    await watch(mem, [to]);
    const scanner = scannerOn(devnet, mem, clock, { level });
    await scanner.scan();
    pay.trx(devnet, payer.key, to, trx(3));
    const included = devnet.mine(1);
    for (let b = 0; b < 100; b += 1) {
      clock.advance(3_000);
      await scanner.scan();
      if ((await mem.balances.get(to))?.items[0]?.available === 3_000_000n) return devnet.info().head_number - included;
      devnet.mine(1);
    }
    throw new Error('deposit never seen');
  } finally {
    await devnet.close();
  }
}

/** 4. Catch-up after an outage of OUTAGE_BLOCKS blocks with traffic and deposits. */
async function catchUp(): Promise<void> {
  const devnet = await startTestDevnet();
  try {
    const payer = wallet(devnet, 'bench-outage-payer');
    devnet.fund(payer.address, trx(100_000_000));
    devnet.mine(30);
    const clock = new ManualClock();
    const mem = createMemoryAdapters({ clock });
    const subs = Array.from({ length: 50 }, (_, i) => wallet(devnet, `bench-outage-${i}`).address);
    await watch(mem, subs);
    const scanner = scannerOn(devnet, mem, clock, { level: 'head' });
    await scanner.scan();
    let deposits = 0;
    for (let b = 1; b <= OUTAGE_BLOCKS; b += 1) {
      if (b % 4 === 0) pay.trx(devnet, payer.key, wallet(devnet, `bench-outage-other-${b % 97}`).address, 1_000);
      if (b % 50 === 0) {
        pay.trx(devnet, payer.key, subs[(b / 50) % subs.length]!, trx(1));
        deposits += 1;
      }
      devnet.mine(1);
    }
    const node = devnet.nodes[0]!;
    const calls = node.calls;
    const started = performance.now();
    let credited = 0;
    let passes = 0;
    let failed = 0;
    for (let done = false; !done; passes += 1) {
      // As the job does: a failed pass is retried after the wait the node pool asks for.
      const pass = await scanner.scan().catch(async (error: unknown) => {
        failed += 1;
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, (error as { retryAfterMs?: number }).retryAfterMs ?? 100)));
        return null;
      });
      if (pass === null) continue;
      credited += pass.credited.length;
      done = pass.lag === 0;
    }
    const seconds = (performance.now() - started) / 1_000;
    const rate = OUTAGE_BLOCKS / seconds;
    out(`catch-up       ${Math.round(rate).toLocaleString('en-US')} blocks/s after a ${OUTAGE_BLOCKS.toLocaleString('en-US')}-block outage `
      + `(${Math.round(rate * 3).toLocaleString('en-US')}x real time; ${seconds.toFixed(1)} s, ${passes} passes, `
      + `${failed} failed and retried, ${((node.calls - calls) / OUTAGE_BLOCKS).toFixed(2)} calls/block, ${credited} of ${deposits} deposits credited)`);
  } finally {
    await devnet.close();
  }
}

await callsPerBlock();
await costPerBlock();
out(`latency        ${await latency('head')} blocks at head depth, ${await latency('solidified')} blocks at solidified depth (inclusion to cached balance)`);
await catchUp();
