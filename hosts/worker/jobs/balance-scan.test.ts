import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { ChainError } from '../../../core/domain/errors.js';
import { createMemoryAdapters, ManualClock, MemoryScanCursorStore } from '../../../adapters/memory/index.js';
import type { Devnet } from '../../../adapters/tron-devnet/index.js';
import { pay, startTestDevnet, trx, wallet } from '../../../adapters/tron-devnet/testing/devnet-helpers.js';
import { BalanceScanner, type ScanPass } from '../../../core/application/worker/balance-scanner.js';
import { createAssetRegistry } from '../../../core/domain/assets.js';
import { ADDRESS_STATUS, ADDRESS_TYPE } from '../../../core/domain/model/wallet.js';
import { createBlockSource, nextPassIn, parseScanLevel, parseScanStart, scannerOptionsFromEnv, startBalanceScanJob } from './balance-scan.js';

let devnet: Devnet;
beforeAll(async () => {
  devnet = await startTestDevnet();
});
afterAll(() => devnet.close());

describe('balance scan job', () => {
  it('parses BALANCE_SCAN_LEVEL and BALANCE_SCAN_START strictly', () => {
    expect(parseScanLevel(undefined)).toBe('head');
    expect(parseScanLevel('solidified')).toBe('solidified');
    expect(() => parseScanLevel('latest')).toThrow(/BALANCE_SCAN_LEVEL/);
    expect(parseScanStart(undefined)).toBe('head');
    expect(parseScanStart('61000000')).toBe(61_000_000);
    for (const bad of ['-1', '1.5', 'x', '007']) expect(() => parseScanStart(bad)).toThrow(/BALANCE_SCAN_START/);
    expect(scannerOptionsFromEnv({ BALANCE_SCAN_LEVEL: 'solidified', BALANCE_SCAN_START: '5' })).toEqual({ level: 'solidified', startAt: 5 });
  });

  it('catches up over a backlog without waiting the interval between full passes, then stops cleanly', async () => {
    const payer = wallet(devnet, 'job-payer');
    const target = wallet(devnet, 'job-target').address;
    devnet.fund(payer.address, trx(100));
    const clock = new ManualClock();
    const mem = createMemoryAdapters({ clock });
    await mem.wallets.insert({
      id: 1, userId: 1, networkCode: 'TRON', address: target, addressType: ADDRESS_TYPE.SUB, label: null, status: ADDRESS_STATUS.ACTIVE,
      encryptedKey: { keyId: 'k', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' }, createdAt: 0, version: 1,
    }, { maxSubAddresses: -1 });
    const start = devnet.mine(1);
    pay.trx(devnet, payer.key, target, trx(5));
    devnet.mine(1);
    devnet.mine(6);
    devnet.mine(20);
    const scanner = new BalanceScanner({
      clock, blocks: createBlockSource({ fullHost: devnet.url }), cursors: new MemoryScanCursorStore(), wallets: mem.wallets,
      balances: mem.balances, deposits: mem.deposits, uow: mem.uow, developerConfigs: mem.developerConfigs, ids: mem.ids, assets: createAssetRegistry({ usdtContract: devnet.usdtAddress }),
    }, { startAt: start, maxBlocksPerPass: 10, owner: 'job' });
    const passes: ScanPass[] = [];
    let caughtUp!: () => void;
    const done = new Promise<void>((resolve) => { caughtUp = resolve; });
    // A one-minute interval: reaching the head within the test proves passes over a backlog follow each other at once.
    const warnings: unknown[] = [];
    const job = startBalanceScanJob(scanner, {
      intervalMs: 60_000,
      log: { warn: (fields) => warnings.push(fields), error: (fields) => warnings.push(fields) },
      onPass: (pass) => {
        passes.push(pass);
        if (pass.to !== null && pass.to >= pass.latest) caughtUp();
      },
    });
    await done;
    await job.stop();
    expect(warnings).toEqual([]);
    expect(passes.map((p) => [p.from, p.to])).toEqual([[start, start + 9], [start + 10, start + 19], [start + 20, start + 27]]);
    expect(scanner.lag()).toBe(0);
    expect((await mem.balances.get(target))!.items[0]!.available).toBe(5_000_000n);
  });

  it('logs a reorg the scanner rolled back', async () => {
    const payer = wallet(devnet, 'job-reorg-payer');
    const target = wallet(devnet, 'job-reorg-target').address;
    devnet.fund(payer.address, trx(100));
    const clock = new ManualClock();
    const mem = createMemoryAdapters({ clock });
    await mem.wallets.insert({
      id: 1, userId: 1, networkCode: 'TRON', address: target, addressType: ADDRESS_TYPE.SUB, label: null, status: ADDRESS_STATUS.ACTIVE,
      encryptedKey: { keyId: 'k', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' }, createdAt: 0, version: 1,
    }, { maxSubAddresses: -1 });
    devnet.mine(25);
    const scanner = new BalanceScanner({
      clock, blocks: createBlockSource({ fullHost: devnet.url }), cursors: new MemoryScanCursorStore(), wallets: mem.wallets,
      balances: mem.balances, deposits: mem.deposits, uow: mem.uow, developerConfigs: mem.developerConfigs, ids: mem.ids, assets: createAssetRegistry({ usdtContract: devnet.usdtAddress }),
    }, { owner: 'job-reorg' });
    await scanner.scan();
    const txid = pay.trx(devnet, payer.key, target, trx(1));
    devnet.mine(1);
    await scanner.scan();
    devnet.reorg(1, { keep: 'none' });
    const warnings: Array<Record<string, unknown>> = [];
    let passes = 0;
    let stopped!: () => void;
    const done = new Promise<void>((resolve) => { stopped = resolve; });
    const job = startBalanceScanJob(scanner, {
      intervalMs: 60_000,
      log: { warn: (fields) => warnings.push(fields as Record<string, unknown>), error: () => undefined },
      onPass: () => {
        passes += 1;
        stopped();
      },
    });
    await done;
    await job.stop();
    expect(passes).toBe(1);
    expect(warnings).toEqual([expect.objectContaining({ reorgs: 1, reverted: [txid] })]);
  });

  it("after a failed pass waits the nodes' Retry-After (at least the interval, at most the cap)", async () => {
    vi.useFakeTimers();
    try {
      let calls = 0;
      const stub = {
        lag: () => 0,
        scan: async (): Promise<ScanPass> => {
          calls += 1;
          if (calls === 1) throw new ChainError('CHAIN-NODE-UNAVAILABLE', 'every node is cooling', { transient: true, retryAfterMs: 20_000 });
          return { from: null, to: null, refreshed: [], credited: [], reverted: [], latest: 1, lag: 0, reorgs: 0, gap: null };
        },
      } as unknown as BalanceScanner;
      const job = startBalanceScanJob(stub, { intervalMs: 3_000, maxRetryWaitMs: 60_000 });
      await vi.advanceTimersByTimeAsync(19_999);
      expect(calls).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(calls).toBe(2);
      await vi.advanceTimersByTimeAsync(3_000);
      expect(calls).toBe(3);
      await job.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('nextPassIn: a caught-up scanner reads each block a moment after its slot (issue #27)', () => {
  it('waits until the next slot plus a margin, from the newest block read; a late block is asked for again a second later', () => {
    fc.assert(fc.property(fc.integer({ min: 100, max: 3_000 }), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 1_000, max: 1e12 }), (slot, age, at) => {
      const max = 3_000;
      const wait = nextPassIn({ to: 7, toTimestamp: at }, slot, max, at + age);
      const margin = Math.min(500, slot / 2);
      if (age <= slot + margin) expect(wait).toBe(Math.min(slot + margin - age, max));
      else expect(wait).toBe(max);
      expect(wait).toBeGreaterThanOrEqual(0);
      expect(wait).toBeLessThanOrEqual(max);
    }));
    expect(nextPassIn({ to: null, toTimestamp: null }, 3_000, 3_000, 5_000)).toBe(1_000);
    // Chain time ahead of the wall clock (a devnet on virtual time): the plain interval.
    expect(nextPassIn({ to: 7, toTimestamp: 60_000 }, 3_000, 3_000, 5_000)).toBe(3_000);
  });
});
