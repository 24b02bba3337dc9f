import { hostname } from 'node:os';
import type { AssetRegistry } from '../../domain/assets.js';
import { ChainError } from '../../domain/errors.js';
import { REFRESH_SOURCE, type BalanceItem, type BalanceSnapshot } from '../../domain/model/balance.js';
import type { NetworkCode } from '../../domain/model/common.js';
import type { BalanceRepository } from '../../ports/balance-repository.port.js';
import type { BlockId, BlockSource, BlockTransfer, ChainBlock, ChainLevel } from '../../ports/block-source.port.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { DepositRepository } from '../../ports/deposit-repository.port.js';
import type { DeveloperConfigRepository } from '../../ports/developer-config-repository.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { ScanCheckpoint, ScanCursorStore } from '../../ports/scan-cursor-store.port.js';
import type { UnitOfWork } from '../../ports/unit-of-work.port.js';
import type { WalletRepository } from '../../ports/wallet-repository.port.js';
import {
  anchor, applyBlock, dueForFinalRead, freshState, fromCheckpoint, recordedHash, rollback, settle, shown, toCheckpoint, unanchor, type ScanState,
} from './balance-scanner-state.js';
import type { BlockReceipts } from './block-receipts.js';
import { chainMismatch, chainMismatchMessage, type ChainMismatch } from './chain-identity.js';
import { DepositRecorder, type DepositObservation } from './deposit-recorder.js';
import type { Ledger } from '../../ports/ledger.port.js';

/** The ports the scanner reads and writes. */
export interface BalanceScannerDeps {
  readonly clock: Clock;
  readonly blocks: BlockSource;
  readonly cursors: ScanCursorStore;
  readonly wallets: WalletRepository;
  readonly balances: BalanceRepository;
  /** Where deposit records go (one per incoming transfer; see DepositRecorder); `ids` names new ones. */
  readonly deposits: DepositRepository;
  /** Where a deposit's status change and its deposit.* event are committed together (see DepositRecorder). */
  readonly uow: UnitOfWork;
  /** Whose config.event_types says which deposit.* events a user receives. */
  readonly developerConfigs: DeveloperConfigRepository;
  readonly ids: IdGenerator;
  readonly assets: AssetRegistry;
  /** Not used: balances come from the block source at the configured depth. Accepted so older wiring compiles. */
  readonly chain?: ChainGateway;
  readonly log?: ScannerLog;
  /**
   * Where the receipts of the blocks read go, for the workflows of this process (issue #27). Fed at head level only:
   * a solidified-level scanner runs ~19 blocks behind the head the workflows follow.
   */
  readonly receipts?: BlockReceipts;
  /** The books a confirmed deposit is booked in (DepositRecorder); absent: none are kept. */
  readonly ledger?: Ledger;
}

/** Where the scanner reports gaps, reorgs and lost leases; a pino logger fits. */
export interface ScannerLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Tunables; every one has a default. */
export interface BalanceScannerOptions {
  /** The depth at which funds are credited: the head (default; reorgs are rolled back) or the solidified block. */
  readonly level?: ChainLevel;
  /** Cursor name (one per scanner; two scanners on different levels need different names). */
  readonly name?: string;
  /** Blocks processed per `scan` call at most, so one pass stays short while catching up (default 100). */
  readonly maxBlocksPerPass?: number;
  /**
   * Where a scanner without a cursor starts: 'head' (default: at head level the solidified block, so the blocks a
   * reorg could still replace are scanned too; at solidified level the solidified block) or a block number (a new
   * deployment that must see deposits made since then). Ignored once a cursor exists: a restart resumes after it.
   */
  readonly startAt?: 'head' | 'latest' | number;
  /** Lease holder name; default `<hostname>#<pid>#<n>`, so two scanners (in one process or two) never share it. */
  readonly owner?: string;
  /** How long a pass may hold the cursor (default 60 s); another process takes over after it. */
  readonly leaseMs?: number;
  /** Recent block ids kept to find a reorg's fork point (default 64; TRON solidifies ~19 blocks behind the head). */
  readonly reorgWindow?: number;
  /** Head-to-solidified distance after which the scanner asks whether its unfinal blocks are final (default 19). */
  readonly finalityHint?: number;
  /** Addresses per final-balance read (default 8): one read must fit inside one solidified block (3 s). */
  readonly readBatch?: number;
  /** Final balances kept in the checkpoint for recently active addresses, sparing a read on their next deposit (default 1000). */
  readonly maxAnchors?: number;
  readonly network?: NetworkCode;
}

/** A detected deposit: a transfer of a tracked asset to a managed address, and the block it is in. */
export interface Deposit extends BlockTransfer {
  readonly block: number;
}

/** What one `scan` call did. */
export interface ScanPass {
  /** First and last block processed in this pass (null when there was nothing new); after a reorg `from` restarts at the fork. */
  readonly from: number | null;
  readonly to: number | null;
  /** Addresses whose cached balances were written, sorted. */
  readonly refreshed: readonly string[];
  /** Deposits credited at the configured depth in this pass (ids are unique on a chain; see BlockTransfer.id). */
  readonly credited: readonly Deposit[];
  /** Deposits credited earlier whose blocks a reorg replaced (they may be credited again from the new branch). */
  readonly reverted: readonly Deposit[];
  /** Newest block at the scanner's level when the pass started; `to < latest` means it is still catching up. */
  readonly latest: number;
  /** Blocks between the cursor and `latest` after the pass. */
  readonly lag: number;
  /** Reorgs rolled back in this pass. */
  readonly reorgs: number;
  /** A block the node lacks below its own head (the pass stopped before it; nothing is skipped), else null. */
  readonly gap: number | null;
  /** Set when another process holds the cursor's lease: this pass did nothing. */
  readonly heldBy?: string;
  /** The chain time (ms) of block `to`, the newest block this pass processed; null when it processed none. */
  readonly toTimestamp?: number | null;
  /** Set when the node follows another chain than the cursor's: the scanner stopped (see chain-identity.ts). */
  readonly chainMismatch?: ChainMismatch;
}

/** The scanner's running figures, for the worker's metrics. */
export interface ScannerStatus {
  readonly level: ChainLevel;
  /** Last block whose balances are written (null before the first pass). */
  readonly cursor: number | null;
  /** Newest block at the level when the last pass started. */
  readonly tip: number | null;
  /** Blocks behind the tip (null before the first pass). */
  readonly lag: number | null;
  readonly lastPassAt: number | null;
  readonly blocksScanned: number;
  readonly depositsCredited: number;
  readonly reorgs: number;
  readonly blocksRolledBack: number;
  /** Times a block below the node's head was missing. */
  readonly gaps: number;
  readonly finalReads: number;
  readonly failedPasses: number;
  /** Why the scanner stopped for good in this process: the node follows another chain than the cursor's; else null. */
  readonly chainMismatch: ChainMismatch | null;
  /** Times it stopped so (0 or 1 per process: a stop lasts until a restart). */
  readonly chainMismatches: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Automatic balance refresh (refresh_source 1) and deposit detection. Follows the chain block by block at the
 * configured level; each block is read once (its transfers and per-account balance changes) and matched against the
 * managed addresses with one `findManaged` lookup of the addresses it touched, whatever the number managed. A cached
 * balance is the address's final balance (read from the solidified state when first seen, then carried forward by
 * the exact changes of blocks as they become final; read again after a change the reader could not compute) plus
 * the changes of the processed blocks after it that are not final yet. So it equals the chain's balance at the
 * configured depth: at head level it includes the head block (never transactions still pending), at solidified
 * level only irreversible blocks. At head level a
 * block whose parent hash does not match the cursor is a reorg: the replaced blocks' changes and deposits are taken
 * back and the new branch is scanned. The checkpoint is saved after the balances are written, under a lease; a
 * failed pass changes nothing stored and the next pass redoes it.
 */
export class BalanceScanner {
  private readonly level: ChainLevel;
  private readonly name: string;
  private readonly owner: string;
  private readonly maxBlocks: number;
  private readonly startAt: 'head' | number;
  private readonly leaseMs: number;
  private readonly window: number;
  private readonly finalityHint: number;
  private readonly readBatch: number;
  private readonly maxAnchors: number;
  private readonly network: NetworkCode;
  private knownSolid = -1;
  /** The node's genesis id: read at the first pass, again whenever the node looks like another chain. */
  private nodeGenesis: string | null = null;
  private readonly recorder: DepositRecorder;
  private readonly receipts: BlockReceipts | undefined;
  private readonly figures: Mutable<ScannerStatus>;

  constructor(private readonly deps: BalanceScannerDeps, options: BalanceScannerOptions = {}) {
    this.level = options.level ?? 'head';
    this.name = options.name ?? `balance-scan:${this.level}`;
    this.owner = options.owner ?? `${hostname()}#${process.pid}#${(instances += 1)}`;
    this.maxBlocks = positive(options.maxBlocksPerPass ?? 100, 'maxBlocksPerPass');
    this.startAt = options.startAt === undefined || options.startAt === 'latest' ? 'head' : options.startAt;
    if (this.startAt !== 'head' && (!Number.isSafeInteger(this.startAt) || this.startAt < 0)) throw new RangeError('startAt must be a block number');
    this.leaseMs = positive(options.leaseMs ?? 60_000, 'leaseMs');
    this.window = positive(options.reorgWindow ?? 64, 'reorgWindow');
    this.finalityHint = positive(options.finalityHint ?? 19, 'finalityHint');
    this.readBatch = positive(options.readBatch ?? 8, 'readBatch');
    this.maxAnchors = positive(options.maxAnchors ?? 1_000, 'maxAnchors');
    this.network = options.network ?? 'TRON';
    this.recorder = new DepositRecorder(deps, this.network);
    this.receipts = this.level === 'head' ? deps.receipts : undefined;
    this.figures = {
      level: this.level, cursor: null, tip: null, lag: null, lastPassAt: null, blocksScanned: 0, depositsCredited: 0, reorgs: 0,
      blocksRolledBack: 0, gaps: 0, finalReads: 0, failedPasses: 0, chainMismatch: null, chainMismatches: 0,
    };
  }

  /** The running figures (lag included) as of the last pass. */
  status(): ScannerStatus {
    return { ...this.figures };
  }

  /** Blocks the scanner is behind the tip of its level, as of the last pass (null before the first). */
  lag(): number | null {
    return this.figures.lag;
  }

  /** One pass: the blocks after the cursor up to the tip (at most maxBlocksPerPass), then final reads and writes. */
  async scan(): Promise<ScanPass> {
    // Stopped for another chain: nothing is read or written until a restart (an operator must choose the chain).
    const stopped = this.figures.chainMismatch;
    if (stopped !== null) return { ...EMPTY, latest: this.figures.tip ?? 0, lag: this.figures.lag ?? 0, chainMismatch: stopped };
    try {
      return await this.pass();
    } catch (error) {
      this.figures.failedPasses += 1;
      throw error;
    }
  }

  private async pass(): Promise<ScanPass> {
    const { clock, blocks, cursors } = this.deps;
    const claim = await cursors.claim(this.name, this.owner, clock.now(), clock.now() + this.leaseMs);
    if (!claim.held) return { ...EMPTY, latest: this.figures.tip ?? 0, lag: this.figures.lag ?? 0, heldBy: claim.owner };
    const tip = await blocks.head(this.level);
    const s = claim.checkpoint !== null ? fromCheckpoint(claim.checkpoint) : freshState(await this.startBlock(tip.number));
    const stop = await this.checkChain(claim.checkpoint, s, tip, null);
    if (stop !== null) return stop;
    if (this.level === 'solidified') this.knownSolid = Math.max(this.knownSolid, tip.number);
    const tracked = new Set(this.deps.assets.list(this.network).map((a) => a.contractAddress));
    const touched = new Set<string>();
    const credited: Deposit[] = [];
    const reverted: Deposit[] = [];
    const observed: DepositObservation[] = [];
    let from: number | null = null;
    let toTimestamp: number | null = null;
    let processed = 0;
    let reorgs = 0;
    let gap: number | null = null;
    // A node flapping between branches could roll back forever: a few reorgs per pass, then the next pass goes on.
    while (s.block.number < tip.number && processed < this.maxBlocks && reorgs < MAX_REORGS_PER_PASS) {
      const n = s.block.number + 1;
      const block = await blocks.block(n, this.level);
      if (block === null) {
        // Either way the pass stops here; only a block well below the head is a gap (a load-balanced provider's
        // backends may trail the one that answered the head by a block or two).
        if (n < tip.number - GAP_SLACK) {
          gap = n;
          this.figures.gaps += 1;
          this.deps.log?.warn({ scanner: this.name, block: n, tip: tip.number }, 'block missing below the node head: stopping here, nothing skipped');
        }
        break;
      }
      if (s.block.hash !== '' && block.parentHash !== s.block.hash) {
        const { at: fork, shared } = await this.forkPoint(s, block);
        if (!shared) {
          // No kept block is on the node's chain: another chain, unless it only forks below a young scanner's start.
          const stop = await this.checkChain(claim.checkpoint, s, tip, s.recent.length >= this.window ? 'window' : 'start');
          if (stop !== null) return stop;
          this.deps.log?.warn({ scanner: this.name, block: fork }, 'reorg below the first block scanned: rescanning from there');
        }
        const undone = rollback(s, fork);
        for (const u of undone.replaced) reverted.push(...u.deposits.map((d) => ({ ...d, block: u.number })));
        for (const u of undone.replaced) observed.push(...u.deposits.map((d) => ({ kind: 'dropped' as const, transferId: d.id })));
        for (const a of undone.addresses) touched.add(a);
        this.receipts?.rollback(fork);
        reorgs += 1;
        this.figures.reorgs += 1;
        this.figures.blocksRolledBack += undone.replaced.length;
        this.deps.log?.warn({ scanner: this.name, fork, replaced: undone.replaced.length, at: n }, 'reorg: blocks after the fork point rolled back');
        from = from === null ? fork + 1 : Math.min(from, fork + 1);
        continue;
      }
      const { changes, deposits, uncertain, incoming } = await this.managed(block, tracked);
      observed.push(...incoming.map((o) => ({ ...o, block: n })));
      applyBlock(s, block, changes, deposits, uncertain);
      this.receipts?.onBlock(block);
      for (const c of changes) touched.add(c.address);
      credited.push(...deposits.map((d) => ({ ...d, block: n })));
      from ??= n;
      toTimestamp = block.timestamp;
      processed += 1;
    }
    // Every deposit still in an unfinal block is confirmed once the solidified block reaches it (settle, in
    // readFinal, may then let go of its block: the list is taken before).
    const awaiting = s.unfinal.flatMap((u) => u.deposits.map((d) => ({ id: d.id, block: u.number })));
    const read = await this.readFinal(s, touched, tip.number);
    for (const d of awaiting) if (d.block <= this.knownSolid) observed.push({ kind: 'solidified', transferId: d.id });
    observed.push(...await this.orphans(s, new Set(awaiting.map((d) => d.id))));
    // Before the balances and the checkpoint: a failed write fails the pass, and the next one redoes it.
    await this.recorder.record(observed, s.block.number);
    const refreshed = await this.write(s, new Set([...touched, ...read]));
    const checkpoint = { ...toCheckpoint(s, this.window, this.maxAnchors), ...(this.nodeGenesis === null ? {} : { genesis: this.nodeGenesis }) };
    const saved = await cursors.save(this.name, this.owner, claim.version, checkpoint, clock.now() + this.leaseMs);
    if (saved === null) {
      this.deps.log?.error({ scanner: this.name, owner: this.owner }, 'scan cursor lease lost during the pass: progress not saved');
      throw new ChainError('CHAIN-NODE-UNAVAILABLE', `${this.name}: the cursor's lease was lost during the pass`, { transient: true });
    }
    this.receipts?.onPass(tip.number);
    Object.assign(this.figures, {
      cursor: s.block.number, tip: tip.number, lag: Math.max(0, tip.number - s.block.number), lastPassAt: clock.now(),
      blocksScanned: this.figures.blocksScanned + processed, depositsCredited: this.figures.depositsCredited + credited.length,
    });
    return {
      from, to: from === null ? null : s.block.number, refreshed, credited, reverted, latest: tip.number,
      lag: Math.max(0, tip.number - s.block.number), reorgs, gap, toTimestamp,
    };
  }

  /** Head level starts at the solidified block (what a reorg could replace is scanned too), unless told a height. */
  private async startBlock(tip: number): Promise<number> {
    if (this.startAt !== 'head') return this.startAt;
    if (this.level === 'solidified') return tip;
    return (await this.deps.blocks.head('solidified')).number;
  }

  /** The block's changes and deposits that concern managed addresses and tracked assets (one wallet lookup). */
  private async managed(block: ChainBlock, tracked: ReadonlySet<string | null>): Promise<Managed> {
    const relevant = block.changes.filter((c) => tracked.has(c.contract));
    if (relevant.length === 0) return { changes: [], deposits: [], uncertain: [], incoming: [] };
    // Every party of a tracked transfer has a change listed, so the senders that are managed are found here too.
    const found = await this.deps.wallets.findManaged([...new Set(relevant.map((c) => c.address))]);
    const owners = new Map(found.map((w) => [w.address, w.userId]));
    const deposits = block.transfers.filter((t) => owners.has(t.to) && tracked.has(t.contract));
    const symbols = new Map(this.deps.assets.list(this.network).map((a) => [a.contractAddress, a.symbol]));
    return {
      changes: relevant.filter((c) => owners.has(c.address)),
      deposits,
      uncertain: block.uncertain.filter((a) => owners.has(a)),
      // Our own workflows move funds between one user's addresses (gas funding from main, the sweep, TRX recovery):
      // a transfer from a managed address of the receiver's owner is not a deposit.
      incoming: deposits.filter((t) => owners.get(t.from) !== owners.get(t.to)).map((t) => ({
        kind: 'seen' as const, transfer: t, userId: owners.get(t.to)!, assetSymbol: symbols.get(t.contract)!,
      })),
    };
  }

  /**
   * Pending records, at a final height the scanner has processed, of transfers its chain does not hold: a pass that
   * failed after writing them (before its checkpoint) saw a branch a reorg then replaced, so no rollback will ever
   * name them. They are dropped. A pending transfer the chain holds is in an unfinal block (`held`) until confirmed.
   */
  private async orphans(s: ScanState, held: ReadonlySet<string>): Promise<DepositObservation[]> {
    const height = Math.min(this.knownSolid, s.block.number);
    if (height < 0) return [];
    const pending = await this.deps.deposits.listPendingUpTo(this.network, height, ORPHAN_BATCH);
    return pending.filter((d) => !held.has(d.transferId)).map((d) => ({ kind: 'dropped' as const, transferId: d.transferId }));
  }

  /**
   * Compares the node with the chain the cursor was scanning (chainMismatch). The node's genesis is read at this
   * process's first pass, and again when the node looks like another chain: its head below the cursor, or a fork below
   * every kept block (`unshared`: below a full `window` of them, or below the `start` of a scanner that keeps fewer).
   * On a mismatch the scanner stops for good: logged once, counted, and this pass's answer.
   */
  private async checkChain(stored: ScanCheckpoint | null, s: ScanState, tip: BlockId, unshared: 'window' | 'start' | null): Promise<ScanPass | null> {
    const below = tip.number < s.block.number;
    if (this.nodeGenesis === null || below || unshared !== null) this.nodeGenesis = (await this.deps.blocks.genesis()).hash;
    // A first pass has no chain to compare with (a start ahead of the head, BALANCE_SCAN_START, only waits).
    if (stored === null) return null;
    const evidence = {
      storedGenesis: stored?.genesis, nodeGenesis: this.nodeGenesis, cursor: s.block.number, head: tip,
      recordedAtHead: below ? recordedHash(s, tip.number) : null, oldestKept: s.recent[0]?.number ?? null, forkBeyondWindow: unshared === 'window',
    };
    const reason = chainMismatch(evidence);
    if (reason === null) return null;
    this.figures.chainMismatch = reason;
    this.figures.chainMismatches += 1;
    this.deps.log?.error({
      scanner: this.name, reason, cursor: s.block.number, head: tip.number, stored_genesis: stored?.genesis ?? null, node_genesis: this.nodeGenesis,
    }, `${this.name}: ${chainMismatchMessage(reason, evidence)}`);
    return { ...EMPTY, latest: tip.number, lag: this.figures.lag ?? 0, chainMismatch: reason };
  }

  /**
   * Walks back from the cursor until the node's chain and the recorded one share a block (the fork point, `shared`);
   * when none of the kept blocks is shared, the height below them (`shared` false: see checkChain).
   */
  private async forkPoint(s: ScanState, first: ChainBlock): Promise<{ at: number; shared: boolean }> {
    let parent = first.parentHash;
    let n = first.number - 1;
    for (;;) {
      const recorded = recordedHash(s, n);
      if (recorded === '' || recorded === parent) return { at: n, shared: true };
      if (recorded === null) return { at: n, shared: false };
      if (n <= s.final) this.deps.log?.error({ scanner: this.name, block: n, final: s.final }, 'reorg below a block taken as final');
      const block = await this.deps.blocks.block(n, this.level);
      if (block === null) throw new ChainError('CHAIN-NODE-UNAVAILABLE', `${this.name}: block ${n} vanished while looking for a fork point`, { transient: true });
      parent = block.parentHash;
      n -= 1;
    }
  }

  /** Reads final balances where due (see dueForFinalRead), lets go of the blocks they absorb; returns who was read. */
  private async readFinal(s: ScanState, touched: ReadonlySet<string>, tip: number): Promise<string[]> {
    const oldestChange = s.unfinal.find((u) => u.changes.length > 0)?.number;
    if (this.level === 'head' && oldestChange !== undefined && oldestChange > this.knownSolid && tip - oldestChange >= this.finalityHint) {
      const solid = await this.deps.blocks.head('solidified');
      this.receipts?.onSolidified(solid);
      this.knownSolid = Math.max(this.knownSolid, solid.number);
    }
    const due = dueForFinalRead(s, touched, this.knownSolid);
    const contracts = this.deps.assets.list(this.network).map((a) => a.contractAddress);
    // At solidified level the processed blocks must be inside the state read; at either level the changes after the
    // read must still be kept (`final`), else the read cannot be bridged to the cursor.
    const floor = this.level === 'solidified' ? Math.max(s.final, s.block.number) : s.final;
    for (let i = 0; i < due.length; i += this.readBatch) {
      const read = await this.deps.blocks.finalBalances(due.slice(i, i + this.readBatch), contracts);
      if (read.at.number < floor) {
        throw new ChainError('CHAIN-BALANCE-QUERY-FAILED', `${this.name}: the node's solidified block ${read.at.number} is behind ${floor}`, { transient: true });
      }
      this.knownSolid = Math.max(this.knownSolid, read.at.number);
      this.receipts?.onSolidified(read.at);
      for (const [address, balances] of read.balances) anchor(s, address, read.at.number, balances);
      this.figures.finalReads += 1;
    }
    settle(s, this.knownSolid);
    return due;
  }

  /** Writes the shown balances of every address this pass touched or read, in one write (BalanceRepository.putAll). */
  private async write(s: ScanState, touched: ReadonlySet<string>): Promise<string[]> {
    const assets = this.deps.assets.list(this.network);
    const now = this.deps.clock.now();
    const snapshots: BalanceSnapshot[] = [];
    for (const address of [...touched].sort()) {
      const values = shown(s, address, assets.map((a) => a.contractAddress));
      if (values === null) continue;
      if ([...values.values()].some((v) => v < 0n)) {
        this.deps.log?.warn({ scanner: this.name, address }, 'a balance came out below zero: its final read missed a credit; read again once final');
        unanchor(s, address);
        continue;
      }
      const items: BalanceItem[] = assets.map((a) => ({ symbol: a.symbol, available: values.get(a.contractAddress)!, updatedAt: now }));
      snapshots.push({ address, items, refreshSource: REFRESH_SOURCE.AUTO, updatedAt: now });
    }
    await this.deps.balances.putAll(snapshots);
    return snapshots.map((snapshot) => snapshot.address);
  }
}

/** The block's part that concerns managed addresses, and the deposits to record (the block number is added by the pass). */
interface Managed {
  readonly changes: ChainBlock['changes'];
  readonly deposits: BlockTransfer[];
  readonly uncertain: string[];
  readonly incoming: Omit<Extract<DepositObservation, { kind: 'seen' }>, 'block'>[];
}

const MAX_REORGS_PER_PASS = 3;
/** Pending records checked for orphans per pass (a backlog is worked off over the next passes). */
const ORPHAN_BATCH = 100;
/** Blocks below the head a missing block may be without counting as a gap. */
const GAP_SLACK = 2;

/** Scanners made in this process: two workers in one process (tests, `npm start`) must not share a lease owner. */
let instances = 0;

const EMPTY = { from: null, to: null, refreshed: [], credited: [], reverted: [], reorgs: 0, gap: null } as const;

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
