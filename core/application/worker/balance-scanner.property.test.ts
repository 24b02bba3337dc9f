/**
 * The scanner's promise as properties, on a hostile devnet: random schedules of deposits (TRX, USDT, TRX paid from
 * inside a contract, several in one block), outflows, reorgs (payments re-included or dropped), chaos on either of
 * two node endpoints, crashes mid-pass and restarts (same process, or another process after the lease), at head and
 * at solidified depth. After every pass that reached the tip, every watched address's cached balance equals the
 * chain's at the configured depth; at the end, the deposits credited minus those reverted are exactly the chain's
 * deposits to watched addresses, each once. The outbox agrees with the records: a user who opted into the deposit.*
 * events has, per transfer, pending (reverted pending)* and then its final status — so exactly one deposit.confirmed per
 * confirmed transfer and none for a reverted one — and a user who never opted in has none. The opted-in user also has
 * an automatic-collection rule for USDT (issue #24): after every pass 1-3 collectors judge the due triggers at once
 * (their commits crash with the scanner's), and at the end there is exactly one collection per started trigger, none
 * while the quoted fee is above the cap, none for less than the rule's minimum, and no trigger for the other user.
 * Bounded: a fixed seed and a few dozen schedules.
 */
import { runs } from '../../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryAdapters, ManualClock, MemoryScanCursorStore } from '../../../adapters/memory/index.js';
import { TronBlockSource } from '../../../adapters/tron/tron-block-source.js';
import { TxError, type Devnet } from '../../../adapters/tron-devnet/index.js';
import { pay, startTestDevnet, trx, wallet, type Wallet } from '../../../adapters/tron-devnet/test-helpers.js';
import { createAssetRegistry } from '../../domain/assets.js';
import { ADDRESS_STATUS, ADDRESS_TYPE } from '../../domain/model/wallet.js';
import { OPT_IN_EVENT_TYPES } from '../../domain/model/webhook.js';
import { emptyDeveloperConfig } from '../developer-config.js';
import type { ChainLevel } from '../../ports/block-source.port.js';
import { BalanceScanner, type Deposit } from './balance-scanner.js';
import { MemoryAddressLock } from '../../../adapters/memory/index.js';
import { COMMAND_TYPE } from '../../domain/model/command.js';
import { DEFAULT_CORE_SETTINGS } from '../deps.js';
import { AutoCollector } from './auto-collector.js';

const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const WATCHED = 3;
/** The last watched address belongs to this user, who never opted into deposit events; the others to user 1, who did. */
const SILENT_USER = 2;

type Step =
  | { kind: 'pay'; asset: 'trx' | 'usdt' | 'internal' | 'split'; to: number; amount: number }
  | { kind: 'outflow'; from: number; amount: number }
  | { kind: 'mine'; blocks: number }
  | { kind: 'reorg'; depth: number; keep: boolean }
  | { kind: 'scan' }
  | { kind: 'restart'; otherProcess: boolean }
  | { kind: 'chaos'; node: number; on: boolean }
  | { kind: 'crash'; afterWrites: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('pay' as const), asset: fc.constantFrom('trx' as const, 'usdt' as const, 'internal' as const, 'split' as const), to: fc.nat({ max: WATCHED }), amount: fc.integer({ min: 1, max: 9_000_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('outflow' as const), from: fc.nat({ max: WATCHED - 1 }), amount: fc.integer({ min: 1, max: 4_000_000 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('mine' as const), blocks: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reorg' as const), depth: fc.integer({ min: 1, max: 3 }), keep: fc.boolean() }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'scan' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), otherProcess: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('chaos' as const), node: fc.nat({ max: 1 }), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), afterWrites: fc.nat({ max: 2 }) }) },
);

/** The deposits to `watched` (41-hex) in the devnet's own records of blocks 1..upTo: id → amount. */
function chainDeposits(devnet: Devnet, watched: ReadonlySet<string>, upTo: number): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const block of devnet.chain.blocks.slice(1, upTo + 1)) {
    for (const txid of block.txIds) {
      const r = devnet.chain.txs.get(txid)!;
      if (r.contractRet !== 'SUCCESS') continue;
      const value = r.tx.raw_data.contract[0]!.parameter.value;
      if (r.tx.type === 'TransferContract' && watched.has(String(value['to_address']))) out.set(txid, BigInt(Number(value['amount'])));
      (r.info.log ?? []).forEach((log, i) => {
        if (log.topics[0] === TRANSFER_TOPIC && watched.has(`41${log.topics[2]!.slice(-40)}`)) out.set(`${txid}:log:${i}`, BigInt(`0x${log.data}`));
      });
      (r.info.internal_transactions ?? []).forEach((it, i) => {
        // A call that carries no value (the odd half of a 1-sun split) moves nothing: not a deposit.
        const value = it.callValueInfo[0]?.callValue ?? 0;
        if (!it.rejected && value > 0 && watched.has(it.transferTo_address)) out.set(`${txid}:internal:${i}`, BigInt(value));
      });
    }
  }
  return out;
}

/** The automatic-collection side of a schedule: collectors judging at once, the rule, and the fee every quote gives. */
interface Auto {
  readonly collectors: number;
  readonly minAmount: bigint;
  readonly capSun: bigint;
  readonly feeSun: bigint;
}

const autoArb: fc.Arbitrary<Auto> = fc.record({
  collectors: fc.integer({ min: 1, max: 3 }),
  minAmount: fc.bigInt({ min: 1n, max: 8_000_000n }),
  capSun: fc.constantFrom(2_000_000n, 3_000_000n),
  feeSun: fc.constantFrom(1_000_000n, 2_500_000n),
});

async function schedule(level: ChainLevel, steps: readonly Step[], auto: Auto): Promise<void> {
  const devnet = await startTestDevnet({ solidifyLag: 3, extraNodes: 1 });
  try {
    const payer = wallet(devnet, 'prop-payer');
    devnet.fund(payer.address, trx(1_000_000));
    devnet.fundToken(payer.address, 10n ** 15n);
    devnet.mine(5);
    const people: Wallet[] = Array.from({ length: WATCHED + 1 }, (_, i) => wallet(devnet, `prop-${level}-${i}`));
    const watched = people.slice(0, WATCHED);
    const clock = new ManualClock(1_700_000_000_000);
    const mem = createMemoryAdapters({ clock });
    for (const [i, w] of watched.entries()) {
      await mem.wallets.insert({
        id: i + 1, userId: i === WATCHED - 1 ? SILENT_USER : 1, networkCode: 'TRON', address: w.address, addressType: ADDRESS_TYPE.SUB, label: null, status: ADDRESS_STATUS.ACTIVE,
        encryptedKey: { keyId: 'k', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' }, createdAt: 0, version: 1,
      }, { maxSubAddresses: -1 });
    }
    await mem.developerConfigs.save({
      ...emptyDeveloperConfig(1), optInEventTypes: [...OPT_IN_EVENT_TYPES], version: 1,
      autoCollect: { USDT: { minAmount: auto.minAmount, maxFeeSun: auto.capSun } },
    });
    // The opted-in user's main address, where its collections would sweep to.
    await mem.wallets.insert({
      id: WATCHED + 10, userId: 1, networkCode: 'TRON', address: wallet(devnet, `prop-${level}-main`).address, addressType: ADDRESS_TYPE.MAIN, label: null,
      status: ADDRESS_STATUS.ACTIVE, encryptedKey: { keyId: 'k', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' }, createdAt: 0, version: 1,
    }, { maxSubAddresses: -1 });
    let writesLeft = Number.POSITIVE_INFINITY;
    const balances = Object.create(mem.balances) as typeof mem.balances;
    balances.put = async (snapshot) => {
      if (writesLeft <= 0) throw new Error('crash: the process died mid-pass');
      writesLeft -= 1;
      return mem.balances.put(snapshot);
    };
    // Deposit writes (a record and its event, one commit) crash like balance writes: a pass that dies between them is
    // redone from the last checkpoint.
    const uow = Object.create(mem.uow) as typeof mem.uow;
    uow.commit = async (changes) => {
      if (writesLeft <= 0) throw new Error('crash: the process died mid-pass');
      writesLeft -= 1;
      return mem.uow.commit(changes);
    };
    const cursors = new MemoryScanCursorStore();
    const source = new TronBlockSource({ nodes: devnet.nodes.map((n) => ({ fullHost: n.url })), timeoutMs: 5_000, backoff: { baseMs: 1_000, maxMs: 4_000 }, now: () => clock.now() });
    const assets = createAssetRegistry({ usdtContract: devnet.usdtAddress });
    let process = 0;
    // The deployment starts before the first payment: every payment of the schedule is after its start height.
    const startAt = devnet.info().head_number + 1;
    const start = (): BalanceScanner => new BalanceScanner({
      clock, blocks: source, cursors, wallets: mem.wallets, balances, deposits: mem.deposits, uow, developerConfigs: mem.developerConfigs, ids: mem.ids, assets,
    },
      { level, owner: `process-${process}`, finalityHint: 3, maxBlocksPerPass: 4, leaseMs: 30_000, startAt });
    let scanner = start();
    const addressLock = new MemoryAddressLock({ clock });
    // Collectors of the worker processes: each judges the due triggers after a pass; a commit that crashes is a
    // process dying at it (the trigger stays due for the next pass).
    const collect = async (): Promise<void> => {
      const quotes = async () => auto.feeSun;
      const collector = () => new AutoCollector({
        risk: mem.risk, commands: mem.commands, clock, ids: mem.ids, addressLock, settings: DEFAULT_CORE_SETTINGS, balances: mem.balances,
        wallets: mem.wallets, uow, deposits: mem.deposits, developerConfigs: mem.developerConfigs, assets, sweepFee: quotes, tasks: mem.tasks,
      }, 'TRON', () => undefined, 0);
      const runs = await Promise.allSettled(Array.from({ length: auto.collectors }, () => collector().pass()));
      for (const r of runs) {
        if (r.status === 'rejected' && !(r.reason as Error).message.startsWith('crash')) throw r.reason;
      }
    };
    const credits = new Map<string, number>();
    const amounts = new Map<string, bigint>();
    const record = (ds: readonly Deposit[], sign: 1 | -1): void => {
      for (const d of ds) {
        credits.set(d.id, (credits.get(d.id) ?? 0) + sign);
        amounts.set(d.id, d.amount);
      }
    };
    const expectCachedAtDepth = async (tip: number): Promise<void> => {
      const state = devnet.chain.stateAt(tip)!;
      for (const w of watched) {
        const snap = await mem.balances.get(w.address);
        const cached = snap === null ? [0n, 0n] : [snap.items[0]!.available, snap.items[1]!.available];
        expect(cached, `${w.address} at block ${tip}`).toEqual([BigInt(state.accounts.get(w.hex)?.balance ?? 0), state.usdt.get(w.hex) ?? 0n]);
      }
    };
    const pass = async (): Promise<boolean> => {
      clock.advance(3_000);
      try {
        const p = await scanner.scan();
        record(p.credited, 1);
        record(p.reverted, -1);
        if (p.heldBy === undefined && p.lag === 0 && p.gap === null) await expectCachedAtDepth(p.latest);
        await collect();
        return p.heldBy === undefined && p.lag === 0;
      } catch (error) {
        if ((error as Error).message.startsWith('crash')) {
          writesLeft = Number.POSITIVE_INFINITY;
          scanner = start();
        } else if (!(error instanceof Error && 'transient' in error && (error as { transient: boolean }).transient)) throw error;
        return false;
      }
    };
    for (const s of steps) {
      try {
        if (s.kind === 'pay') {
          const to = people[s.to]!.address;
          if (s.asset === 'trx') pay.trx(devnet, payer.key, to, s.amount);
          else if (s.asset === 'usdt') pay.usdt(devnet, payer.key, to, BigInt(s.amount));
          else if (s.asset === 'internal') pay.viaRouter(devnet, payer.key, to, s.amount);
          else pay.viaRouter(devnet, payer.key, [to, people[(s.to + 1) % people.length]!.address], s.amount);
        } else if (s.kind === 'outflow') pay.trx(devnet, watched[s.from]!.key, people[WATCHED]!.address, s.amount);
        else if (s.kind === 'mine') devnet.mine(s.blocks);
        else if (s.kind === 'reorg') {
          // Never below the deployment's start: a payment re-mined before it would be history the scanner never reads.
          const depth = Math.min(s.depth, devnet.chain.head.number - devnet.chain.solidNumber, devnet.chain.head.number - startAt + 1);
          if (depth > 0) devnet.reorg(depth, { keep: s.keep ? 'all' : 'none' });
        } else if (s.kind === 'scan') await pass();
        else if (s.kind === 'restart') {
          if (s.otherProcess) {
            process += 1;
            clock.advance(30_000);
          }
          scanner = start();
        } else if (s.kind === 'chaos') {
          devnet.nodes[s.node]!.setFaults({ chaos: s.on ? { rate: 0.3, kinds: ['http_503', 'reset', 'error_body', 'http_429'], seed: `c${s.node}` } : null });
        } else writesLeft = s.afterWrites;
      } catch (error) {
        // A payment the chain refuses (an outflow larger than the balance) is simply not made.
        if (!(error instanceof TxError)) throw error;
      }
    }
    // Settle: nodes healthy, everything final, the scanner caught up.
    for (const node of devnet.nodes) node.setFaults({ chaos: null });
    writesLeft = Number.POSITIVE_INFINITY;
    devnet.mine(6);
    let caughtUp = false;
    for (let i = 0; i < 40 && !caughtUp; i += 1) caughtUp = await pass();
    expect(caughtUp).toBe(true);
    const cursor = scanner.status().cursor!;
    const expected = chainDeposits(devnet, new Set(watched.map((w) => w.hex)), cursor);
    for (const [id, net] of credits) expect(net, `deposit ${id}`).toBe(expected.has(id) ? 1 : 0);
    for (const [id, amount] of expected) {
      expect(credits.get(id), `deposit ${id} credited`).toBe(1);
      expect(amounts.get(id)).toBe(amount);
    }
    // Deposit records: a few more passes let the last blocks' deposits reach the solidified depth (all are below it now).
    for (let i = 0; i < 5; i += 1) await pass();
    const records = [...mem.store.deposits.values()];
    expect(new Set(records.map((r) => r.transferId)).size, 'one record per transfer').toBe(records.length);
    for (const [id, amount] of expected) {
      const r = records.find((d) => d.transferId === id);
      expect(r, `deposit ${id} recorded`).toBeDefined();
      expect(r!.amount).toBe(amount);
      expect(r!.status, `deposit ${id} on the final chain below the solidified block`).toBe('confirmed');
    }
    for (const r of records) {
      if (!expected.has(r.transferId)) expect(r.status, `deposit ${r.transferId} dropped by a reorg`).toBe('reverted');
    }
    // Events: written with the status changes, so they replay each record's history and end at its final status.
    const events = [...mem.store.events.values()];
    const history = new Map<string, string[]>();
    for (const e of events) {
      const id = String(e.payload['deposit_id']);
      history.set(id, [...(history.get(id) ?? []), e.eventType]);
    }
    for (const r of records) {
      const seen = history.get(r.depositId) ?? [];
      if (r.userId === SILENT_USER) {
        expect(seen, `deposit ${r.transferId} of a user who never opted in`).toEqual([]);
        continue;
      }
      expect(seen.join(' '), `events of deposit ${r.transferId}`).toMatch(/^deposit\.pending( deposit\.reverted deposit\.pending)*( deposit\.(confirmed|reverted))?$/);
      expect(seen.at(-1), `last event of deposit ${r.transferId}`).toBe(`deposit.${r.status}`);
      expect(seen.filter((t) => t === 'deposit.confirmed'), `deposit.confirmed of ${r.transferId}`).toHaveLength(r.status === 'confirmed' ? 1 : 0);
      const last = events.filter((e) => e.payload['deposit_id'] === r.depositId).at(-1)!;
      expect(last.payload).toMatchObject({ txid: r.txid, amount: r.amount.toString(), address: r.address, block_number: r.blockNumber });
    }
    expect(events.every((e) => e.eventType.startsWith('collection.') || records.some((r) => r.depositId === e.payload['deposit_id'])),
      'every deposit event names a record').toBe(true);

    // Automatic collection: exactly one collection per started trigger (none of them ends here, so a started one
    // holds its sub-address and later triggers there are skipped), none while the fee is above the cap, none for less
    // than the minimum, and no trigger at all where no rule covers the deposit.
    const collections = [...mem.store.commands.values()].filter((c) => c.type === COMMAND_TYPE.COLLECTION);
    const started = records.filter((r) => r.autoCollect === 'started');
    expect(collections.length, 'one collection per started trigger').toBe(started.length);
    expect(new Set(collections.map((c) => c.address)).size, 'at most one collection per sub-address').toBe(collections.length);
    for (const r of started) expect(collections.some((c) => c.address === r.address), `the collection of ${r.transferId}`).toBe(true);
    for (const c of collections) expect(c.lockedAmount, `collection of ${c.address} below the minimum`).toBeGreaterThanOrEqual(auto.minAmount);
    if (auto.feeSun > auto.capSun) expect(collections, 'a collection above the fee cap').toEqual([]);
    for (const r of records) {
      const covered = r.userId === 1 && r.assetSymbol === 'USDT' && r.status === 'confirmed';
      if (!covered) expect(r.autoCollect, `trigger of ${r.transferId} (not covered by a rule)`).toBeUndefined();
      else expect(['due', 'started', 'skipped'], `trigger of ${r.transferId}`).toContain(r.autoCollect);
      if (covered && auto.feeSun > auto.capSun) expect(r.autoCollect, `trigger of ${r.transferId} above the fee cap`).not.toBe('started');
    }
  } finally {
    await devnet.close();
  }
}

describe('BalanceScanner properties on a hostile devnet', () => {
  for (const level of ['head', 'solidified'] as const) {
    it(`${level}: cached balances equal the chain's at that depth after every caught-up pass; every deposit credited exactly once, recorded once, confirmed iff on the final chain and reverted iff dropped, its events matching; one collection per started auto-collect trigger`, async () => {
      await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 36 }), autoArb, (steps, auto) => schedule(level, steps, auto)),
        { numRuns: runs(60), seed: 1_100 + level.length });
    }, 120_000);
  }
});
