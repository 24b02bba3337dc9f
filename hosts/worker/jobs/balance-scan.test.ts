import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryAdapters, ManualClock, MemoryScanCursorStore } from '../../../adapters/memory/index.js';
import type { Devnet } from '../../../adapters/tron-devnet/index.js';
import { pay, startTestDevnet, trx, wallet } from '../../../adapters/tron-devnet/test-helpers.js';
import { BalanceScanner, type ScanPass } from '../../../core/application/worker/balance-scanner.js';
import { createAssetRegistry } from '../../../core/domain/assets.js';
import { ADDRESS_STATUS, ADDRESS_TYPE } from '../../../core/domain/model/wallet.js';
import { createBlockSource, parseScanLevel, parseScanStart, scannerOptionsFromEnv, startBalanceScanJob } from './balance-scan.js';

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
      balances: mem.balances, assets: createAssetRegistry({ usdtContract: devnet.usdtAddress }),
    }, { startAt: start, maxBlocksPerPass: 10, owner: 'job' });
    const passes: ScanPass[] = [];
    let caughtUp!: () => void;
    const done = new Promise<void>((resolve) => { caughtUp = resolve; });
    // A one-minute interval: reaching the head within the test proves passes over a backlog follow each other at once.
    const job = startBalanceScanJob(scanner, {
      intervalMs: 60_000,
      onPass: (pass) => {
        passes.push(pass);
        if (pass.to !== null && pass.to >= pass.latest) caughtUp();
      },
    });
    await done;
    await job.stop();
    expect(passes.map((p) => [p.from, p.to])).toEqual([[start, start + 9], [start + 10, start + 19], [start + 20, start + 27]]);
    expect(scanner.lag()).toBe(0);
    expect((await mem.balances.get(target))!.items[0]!.available).toBe(5_000_000n);
  });
});
