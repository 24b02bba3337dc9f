/**
 * Node calls per sweep (issue #27), per energy path, for a first sweep (new sub-addresses) and a repeat sweep (the
 * same sub-addresses a day later, activated, main a USDT holder): 10 sweeps at once through the real executor and
 * real tronweb on the devnet, with the worker's balance scanner reading every block (its receipts are where the
 * workflows learn about their transactions) and the gateway's per-block reads on, as `npm run worker` runs them.
 * Calls are the devnet's own counters (what a provider bills), less the scanner's calls (counted on its own), so
 * each figure is what the sweeps themselves cost. Printed beside:
 * - the floor: 3 planning reads (the sub's account and resources, one dry run; 2 for TRX) plus one broadcast per
 *   transaction the sweeps actually sent (read from their records);
 * - sweeps a day on one free TronGrid key (100,000 requests) after the scanner's 2 calls a block (57,600 a day).
 * Goal: ≤ 10 calls per repeat USDT sweep on every energy path, ≤ 14 per first sweep, for ten at once and for a lone
 * sweep (one sweep alone shares its per-block reads with no other, so it pays each of them itself; issue #39).
 */
import { BalanceScanner } from '../core/application/worker/balance-scanner.js';
import { BlockReceipts } from '../core/application/worker/block-receipts.js';
import { CollectionExecutor } from '../core/application/worker/collection-executor.js';
import { COLLECTION_STATUS, type CollectionTask } from '../core/domain/model/collection-task.js';
import type { EnergyProvider } from '../core/ports/energy-provider.port.js';
import { MemoryScanCursorStore } from '../adapters/memory/index.js';
import { CachingChainGateway, createDevnetChainGateway, SelfDelegationEnergyProvider } from '../adapters/tron/index.js';
import type { ChainGateway } from '../core/ports/chain-gateway.port.js';
import { TronBlockSource } from '../adapters/tron/tron-block-source.js';
import { devnetRentalProvider } from '../contracts-tests/harness/tron-devnet.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from '../hosts/worker/worker-test-fixture.js';

export type CallPath = 'self, main bandwidth staked' | 'self, no bandwidth stake' | 'rental: tronsave' | 'rental: itrx' | 'burn' | 'TRX sweep';
export const CALL_PATHS: readonly CallPath[] = ['self, main bandwidth staked', 'self, no bandwidth stake', 'rental: tronsave', 'rental: itrx', 'burn', 'TRX sweep'];

/** A free TronGrid key's daily requests, and what a scanner at 2 calls a block (3 s blocks) spends of them. */
const FREE_KEY_PER_DAY = 100_000;
const SCANNER_PER_DAY = 2 * 28_800;

/** What one batch of sweeps cost in node calls. */
export interface CallFigure {
  readonly path: CallPath;
  readonly sweep: 'first' | 'repeat';
  readonly sweeps: number;
  readonly blocks: number;
  /** Node calls per sweep (the scanner's excluded), and the top endpoints. */
  readonly perSweep: number;
  readonly byEndpoint: Readonly<Record<string, number>>;
  /** Planning reads plus the broadcasts the sweeps sent, per sweep. */
  readonly floor: number;
  /** Follows answered by a node rather than by the scanner's blocks (the fallback), per sweep. */
  readonly nodeFollows: number;
  readonly goal: number | null;
}

const SWEEPS = 10;

async function batch(
  w: WorkerWorld, run: () => Promise<void>, subs: readonly string[], symbol: 'USDT' | 'TRX', scanCalls: () => number, follows: { node: number },
): Promise<{ blocks: number; calls: Record<string, number>; sent: number; nodeFollows: number }> {
  const before = { ...w.devnet.nodeCalls() };
  const scannerBefore = scanCalls();
  const followsBefore = follows.node;
  const tasks: CollectionTask[] = [];
  for (const sub of subs) tasks.push(await w.collect(sub, symbol));
  const start = w.devnet.info().head_number;
  for (let round = 0; ; round++) {
    if (round > 200) throw new Error('bench sweeps not done after 200 blocks');
    await run();
    const now = await Promise.all(tasks.map((t) => w.stores.tasks.get(t.taskNo)));
    if (now.every((t) => t!.finishedAt !== null)) {
      const failed = now.find((t) => t!.status !== COLLECTION_STATUS.DONE);
      if (failed !== undefined) throw new Error(`bench sweep ended ${failed!.status}: ${failed!.lastError ?? ''}`);
      const after = w.devnet.nodeCalls();
      const calls: Record<string, number> = {};
      for (const [name, n] of Object.entries(after)) if (n - (before[name] ?? 0) > 0) calls[name] = n - (before[name] ?? 0);
      // The scanner's reads are its own (2 a block whatever the sweeps do): taken out of the block endpoints.
      let scanner = scanCalls() - scannerBefore;
      for (const name of ['wallet/getblockbynum', 'wallet/gettransactioninfobyblocknum', 'wallet/getnowblock', 'walletsolidity/getnowblock',
        'walletsolidity/getaccount', 'walletsolidity/triggerconstantcontract']) {
        const take = Math.min(scanner, calls[name] ?? 0);
        if (take > 0) calls[name] = (calls[name] ?? 0) - take;
        scanner -= take;
        if (calls[name] === 0) delete calls[name];
      }
      const sent = now.reduce((n, t) => n + t!.steps.filter((s) => s.transaction !== null).length, 0);
      return { blocks: w.devnet.info().head_number - start, calls, sent, nodeFollows: follows.node - followsBefore };
    }
    w.devnet.mine(1);
    w.clock.advance(3_000);
  }
}

/** One path: 10 first sweeps of new sub-addresses, then 10 repeat sweeps of the same ones a day later. */
export async function measure(path: CallPath, baseline = false, sweeps = SWEEPS): Promise<CallFigure[]> {
  const self = path.startsWith('self');
  const w = await buildWorkerWorld({ seed: `bench-calls-${path}`, stakeTrx: self ? 200_000n : 0n, liquidTrx: 10_000n });
  try {
    const receipts = new BlockReceipts(w.clock);
    // The baseline: the same sweeps with neither the scanner's receipts nor the per-block reads (every look asks a node).
    const now = (): number => w.clock.now();
    const tip = (): number | null => receipts.newestBlock();
    const gateway: ChainGateway = baseline ? createDevnetChainGateway(w.devnet, { now })
      : new CachingChainGateway(createDevnetChainGateway(w.devnet, { now, blockCacheMs: 3_000, tip, recent: () => receipts.newestHead(3_000), referenceReuseMs: 30_000,
        solidified: () => receipts.newestSolidified() }),
        { blockMs: 3_000, now, tip, chainTime: () => receipts.newestHead(3_000)?.timestamp ?? null });
    let scannerCalls = 0;
    const scanner = new BalanceScanner({
      clock: w.clock, cursors: new MemoryScanCursorStore(), wallets: w.stores.wallets, balances: w.stores.balances, deposits: w.stores.deposits,
      uow: w.stores.uow, developerConfigs: w.stores.developerConfigs, ids: w.stores.ids, assets: w.assets, receipts,
      blocks: new TronBlockSource({ fullHost: w.devnet.url, timeoutMs: 5_000, onCall: () => { scannerCalls += 1; } }),
    });
    if (path === 'self, main bandwidth staked') {
      await w.gateway.broadcast(await w.gateway.prepare(w.main, { kind: 'freeze', resource: 'BANDWIDTH', amountSun: 5_000n * TRX }));
      w.devnet.mine(1);
    }
    const energy: { self?: EnergyProvider; rental?: EnergyProvider } = self ? { self: new SelfDelegationEnergyProvider(gateway) }
      : path === 'rental: tronsave' ? { rental: devnetRentalProvider(w.devnet, 'tronsave') }
        : path === 'rental: itrx' ? { rental: devnetRentalProvider(w.devnet, 'itrx') } : {};
    const follows = { node: 0 };
    const executor = new CollectionExecutor({
      ...w.stores, chain: gateway, cipher: w.cipher, assets: w.assets, energy, ...(baseline ? {} : { evidence: receipts }),
      hooks: { onFollow: (_w, source) => { if (source === 'node') follows.node += 1; } },
    }, { confirmations: 1, pollMs: 3_000, concurrency: 4, burnEnabled: path === 'burn' });
    const run = async (): Promise<void> => {
      await scanner.scan();
      await executor.runDue();
    };
    w.devnet.fundToken(w.main.address, 1n);
    const symbol = path === 'TRX sweep' ? 'TRX' : 'USDT';
    const subs = await Promise.all(Array.from({ length: sweeps }, () => w.addSub()));
    const fund = () => {
      for (const sub of subs) {
        if (symbol === 'TRX') w.devnet.fund(sub, 5n * TRX);
        else w.devnet.fundToken(sub, 5_000_000n);
      }
      w.devnet.mine(1);
    };
    await scanner.scan();
    const figures: CallFigure[] = [];
    for (const sweep of ['first', 'repeat'] as const) {
      if (sweep === 'repeat') {
        // A day later: the sub-addresses' free bandwidth is back (the floors assume a daily sweep).
        w.devnet.advance(24 * 3_600_000);
        w.clock.advance(24 * 3_600_000);
      }
      fund();
      await scanner.scan();
      const r = await batch(w, run, subs, symbol, () => scannerCalls, follows);
      const total = Object.values(r.calls).reduce((a, b) => a + b, 0);
      figures.push({
        path, sweep, sweeps, blocks: r.blocks, perSweep: total / sweeps,
        byEndpoint: Object.fromEntries(Object.entries(r.calls).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / sweeps])),
        floor: (symbol === 'TRX' ? 2 : 3) + r.sent / sweeps, nodeFollows: r.nodeFollows / sweeps,
        goal: symbol === 'TRX' ? null : sweep === 'first' ? 14 : 10,
      });
    }
    return figures;
  } finally {
    await w.close();
  }
}

/** Every path's figures, printed beside floor, goal and sweeps a day on a free key; sets the exit code on a missed goal. */
export async function nodeCallTable(): Promise<CallFigure[]> {
  console.log(`node calls per sweep (issue #27): ${SWEEPS} sweeps at once per row, the scanner reading every block (its own calls excluded),`
    + ' per-block reads on; floor = 3 planning reads (2 for TRX) + the broadcasts sent; baseline = the same sweeps in the same run'
    + ' with every look asking a node and no per-block reads; under each, the lone row: one sweep alone, which shares its'
    + ' per-block reads with no other (issue #39):');
  const all: CallFigure[] = [];
  for (const path of CALL_PATHS) {
    const baseline = await measure(path, true);
    const lone = await measure(path, false, 1);
    for (const f of await measure(path)) {
      all.push(f);
      const base = baseline.find((b) => b.sweep === f.sweep)!;
      const perDay = Math.floor((FREE_KEY_PER_DAY - SCANNER_PER_DAY) / f.perSweep);
      const ok = f.goal === null || f.perSweep <= f.goal;
      const blocksOk = f.blocks <= base.blocks;
      if (!ok || !blocksOk) process.exitCode = 1;
      console.log(`  ${`${f.path}, ${f.sweep}`.padEnd(38)} ${f.perSweep.toFixed(1).padStart(5)} calls (baseline ${base.perSweep.toFixed(1)},`
        + ` ${(f.perSweep / base.perSweep).toFixed(2)}x; floor ${f.floor.toFixed(1)}; goal ${goalText(f)});`
        + ` ${f.blocks} blocks (baseline ${base.blocks}${blocksOk ? '' : ', REGRESSED'}); node follows ${f.nodeFollows.toFixed(1)};`
        + ` ${perDay.toLocaleString('en-US')} sweeps/day on one free key after the scanner (baseline ${Math.floor((FREE_KEY_PER_DAY - SCANNER_PER_DAY) / base.perSweep).toLocaleString('en-US')});`
        + ` ${top(f)}`);
      const alone = lone.find((l) => l.sweep === f.sweep)!;
      all.push(alone);
      if (alone.goal !== null && alone.perSweep > alone.goal) process.exitCode = 1;
      console.log(`  ${'  lone'.padEnd(38)} ${alone.perSweep.toFixed(1).padStart(5)} calls (floor ${alone.floor.toFixed(1)}; goal ${goalText(alone)});`
        + ` ${alone.blocks} blocks; node follows ${alone.nodeFollows.toFixed(1)}; ${top(alone)}`);
    }
  }
  return all;
}

function goalText(f: CallFigure): string {
  if (f.goal === null) return '—';
  return `≤ ${f.goal} ${f.perSweep <= f.goal ? 'ok' : 'MISSED'}`;
}

/** The endpoints that cost most, per sweep. */
function top(f: CallFigure): string {
  return Object.entries(f.byEndpoint).slice(0, 6).map(([k, v]) => `${k.replace(/^wallet\//, '')} ${v.toFixed(1)}`).join(', ');
}

if (import.meta.url === `file://${process.argv[1]}`) await nodeCallTable();
