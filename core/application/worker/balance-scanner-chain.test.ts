/**
 * The balance scanner when the node behind its URL starts following another chain (issue #34): a devnet restarted on
 * the same port under a running scanner, or under a cursor a restarted process resumes. Real devnets read through the
 * TronBlockSource over HTTP, memory stores.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryAdapters, ManualClock, MemoryScanCursorStore } from '../../../adapters/memory/index.js';
import { TronBlockSource } from '../../../adapters/tron/tron-block-source.js';
import { startDevnet, type Devnet } from '../../../adapters/tron-devnet/index.js';
import { pay, trx, wallet } from '../../../adapters/tron-devnet/test-helpers.js';
import { createAssetRegistry } from '../../domain/assets.js';
import type { BlockSource } from '../../ports/block-source.port.js';
import { BalanceScanner } from './balance-scanner.js';

const running: Devnet[] = [];
afterEach(async () => { await Promise.all(running.splice(0).map((d) => d.close().catch(() => undefined))); });

async function devnet(seed: string, port = 0): Promise<Devnet> {
  const d = await startDevnet({ port, blockMs: 0, seed });
  running.push(d);
  return d;
}

/** Stops the devnet and starts another on its port: what a restarted `npm run devnet` looks like to a scanner. */
async function restart(old: Devnet, seed: string): Promise<Devnet> {
  const port = Number(new URL(old.url).port);
  await old.close();
  running.splice(running.indexOf(old), 1);
  return devnet(seed, port);
}

/** A scanner (one process) on the devnet's URL and a shared cursor store; its error lines are kept. */
function scannerOn(url: string, cursors: MemoryScanCursorStore, usdt: string, blocks?: BlockSource): { scanner: BalanceScanner; errors: object[] } {
  const clock = new ManualClock();
  const mem = createMemoryAdapters({ clock });
  const errors: object[] = [];
  const scanner = new BalanceScanner({
    clock, blocks: blocks ?? new TronBlockSource({ fullHost: url, timeoutMs: 5_000 }), cursors, wallets: mem.wallets, balances: mem.balances,
    deposits: mem.deposits, uow: mem.uow, developerConfigs: mem.developerConfigs, ids: mem.ids, assets: createAssetRegistry({ usdtContract: usdt }),
    log: { warn: () => undefined, error: (fields, message) => errors.push({ ...fields, message }) },
  }, { owner: 'test', maxBlocksPerPass: 200, startAt: 1 });
  return { scanner, errors };
}

const storedGenesis = async (cursors: MemoryScanCursorStore): Promise<string | undefined> => {
  const claim = await cursors.claim('balance-scan:head', 'test', 0, 1);
  return claim.held ? claim.checkpoint?.genesis : undefined;
};

describe('BalanceScanner: a node on another chain stops it (issue #34)', () => {
  it('records the genesis with its cursor; a devnet restarted under it (another genesis) stops it for good, logged once, cursor kept', async () => {
    const a = await devnet('chain-a');
    a.mine(5);
    const cursors = new MemoryScanCursorStore();
    const { scanner, errors } = scannerOn(a.url, cursors, a.usdtAddress);
    expect((await scanner.scan()).chainMismatch).toBeUndefined();
    const genesisA = (await new TronBlockSource({ fullHost: a.url }).genesis()).hash;
    expect(await storedGenesis(cursors)).toBe(genesisA);
    const cursor = scanner.status().cursor!;

    const b = await restart(a, 'chain-b');
    b.mine(20);
    // The running scanner sees a parent hash it never recorded, walks back through its window, and finds another genesis.
    expect(await scanner.scan()).toMatchObject({ chainMismatch: 'genesis', to: null, credited: [] });
    expect(scanner.status()).toMatchObject({ chainMismatch: 'genesis', chainMismatches: 1, cursor });
    expect(errors).toEqual([expect.objectContaining({ reason: 'genesis', stored_genesis: genesisA, message: expect.stringContaining('the balance scanner stopped') })]);
    // Stopped: further passes read and write nothing, and log nothing more.
    await b.close();
    expect(await scanner.scan()).toMatchObject({ chainMismatch: 'genesis' });
    expect(errors).toHaveLength(1);
    expect(scanner.status().failedPasses).toBe(0);
    expect(await storedGenesis(cursors)).toBe(genesisA);
  });

  it('a restarted process on the new chain stops at its first pass, whether the head is below the cursor or past it', async () => {
    const a = await devnet('chain-c');
    a.mine(5);
    const cursors = new MemoryScanCursorStore();
    await scannerOn(a.url, cursors, a.usdtAddress).scanner.scan();
    const b = await restart(a, 'chain-d');
    const below = scannerOn(b.url, cursors, b.usdtAddress);
    expect(await below.scanner.scan()).toMatchObject({ chainMismatch: 'genesis' });
    b.mine(30);
    const past = scannerOn(b.url, cursors, b.usdtAddress);
    expect(await past.scanner.scan()).toMatchObject({ chainMismatch: 'genesis' });
  });

  it('the same genesis (a devnet restarted with a fixed seed and time): a head below every scanned block is "behind"; blocks that share none are "fork"', async () => {
    const a = await devnet('same-seed');
    a.mine(80);
    const cursors = new MemoryScanCursorStore();
    await scannerOn(a.url, cursors, a.usdtAddress).scanner.scan();
    const b = await restart(a, 'same-seed');
    const behind = scannerOn(b.url, cursors, b.usdtAddress);
    expect(await behind.scanner.scan()).toMatchObject({ chainMismatch: 'behind' });
    expect(behind.errors).toEqual([expect.objectContaining({ reason: 'behind', message: expect.stringContaining('below the scan cursor') })]);
    // The same seed and genesis, but a transaction A never had in its block 2: past the cursor it shares no block in the window.
    const payer = wallet(b, 'fork-payer');
    b.fund(payer.address, trx(10));
    pay.trx(b, payer.key, wallet(b, 'fork-payee').address, trx(1));
    b.mine(100);
    const fork = scannerOn(b.url, cursors, b.usdtAddress);
    expect(await fork.scanner.scan()).toMatchObject({ chainMismatch: 'fork' });
  });

  it('a new deployment starting ahead of the head (BALANCE_SCAN_START) waits for it: nothing to compare with yet', async () => {
    const a = await devnet('ahead');
    a.mine(3);
    const clock = new ManualClock();
    const mem = createMemoryAdapters({ clock });
    const scanner = new BalanceScanner({
      clock, blocks: new TronBlockSource({ fullHost: a.url, timeoutMs: 5_000 }), cursors: new MemoryScanCursorStore(), wallets: mem.wallets,
      balances: mem.balances, deposits: mem.deposits, uow: mem.uow, developerConfigs: mem.developerConfigs, ids: mem.ids,
      assets: createAssetRegistry({ usdtContract: a.usdtAddress }),
    }, { owner: 'test', startAt: 50 });
    expect(await scanner.scan()).toMatchObject({ to: null });
    a.mine(5);
    expect(await scanner.scan()).toMatchObject({ to: null });
    expect(scanner.status().chainMismatch).toBeNull();
    a.mine(60);
    expect(await scanner.scan()).toMatchObject({ from: 50 });
  });

  it('a node merely lagging on the same chain (its head a block the scanner recorded) is no mismatch: the pass waits', async () => {
    const a = await devnet('lagging');
    a.mine(10);
    const cursors = new MemoryScanCursorStore();
    const source = new TronBlockSource({ fullHost: a.url, timeoutMs: 5_000 });
    await scannerOn(a.url, cursors, a.usdtAddress).scanner.scan();
    const lagging: BlockSource = {
      head: async (level) => { const h = await source.head(level); const b = await source.block(h.number - 3, level); return { number: b!.number, hash: b!.hash }; },
      genesis: () => source.genesis(), block: (n, level) => source.block(n, level), finalBalances: (x, c) => source.finalBalances(x, c),
    };
    const { scanner, errors } = scannerOn(a.url, cursors, a.usdtAddress, lagging);
    expect(await scanner.scan()).toMatchObject({ to: null });
    expect(scanner.status().chainMismatch).toBeNull();
    expect(errors).toEqual([]);
  });
});
