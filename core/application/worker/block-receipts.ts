import type { BlockId, BlockReceipt, ChainBlock } from '../../ports/block-source.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { EvidenceAnswer, IncludedState, TransactionEvidence } from '../../ports/transaction-evidence.port.js';

/** Tunables of {@link BlockReceipts}; every one has a default. */
export interface BlockReceiptsOptions {
  /**
   * Clock time after the reader's last pass from which it no longer answers (default 10 s, three TRON blocks and a
   * bit): a scanner that stopped, lost its lease to another process, or fails its passes says nothing.
   */
  readonly staleAfterMs?: number;
  /** Newest blocks kept (default 64; a workflow follows its transaction to at most CHAIN_CONFIRMATIONS ≤ ~20 deep). */
  readonly keepBlocks?: number;
  /** Transactions whose first ask is remembered, to count the blocks watched since (default 100,000; oldest dropped). */
  readonly maxWatched?: number;
}

/** One kept block: its id, its time and its receipts by txid. */
interface KeptBlock {
  readonly hash: string;
  readonly timestamp: number;
  readonly receipts: ReadonlyMap<string, BlockReceipt>;
}

/**
 * The receipts of the newest blocks the balance scanner read at head level, for the workflows (TransactionEvidence):
 * a chain of consecutive blocks, each the child of the one before as the scanner checked, rolled back with the
 * scanner's reorgs. In memory, per process: the scanner that feeds it runs in the same process as the workflows it
 * serves; a workflow in a process without a live scanner gets null and asks a node (issue #27).
 *
 * It answers only for blocks it holds in an unbroken run up to the newest: a block without receipts, a gap in the
 * numbers, or a block whose parent is not the newest one held starts the run again from that block.
 */
export class BlockReceipts implements TransactionEvidence {
  private readonly staleAfterMs: number;
  private readonly keepBlocks: number;
  private readonly maxWatched: number;
  private readonly blocks = new Map<number, KeptBlock>();
  private readonly index = new Map<string, number>();
  /** Newest block held at the first ask of a transaction not found (blocksWatched counts from there). */
  private readonly firstAsked = new Map<string, number>();
  private newest: number | null = null;
  /** The head the scanner saw at its last pass, and when that pass ended (Clock ms). */
  private tip = -1;
  private passAt = Number.NEGATIVE_INFINITY;
  /** The newest solidified block the scanner read, and when (Clock ms). */
  private solid: { readonly number: number; readonly id: string; readonly at: number } | null = null;

  constructor(private readonly clock: Clock, options: BlockReceiptsOptions = {}) {
    this.staleAfterMs = options.staleAfterMs ?? 10_000;
    this.keepBlocks = Math.max(1, options.keepBlocks ?? 64);
    this.maxWatched = Math.max(1, options.maxWatched ?? 100_000);
  }

  /** The newest block held (null when none): no answer is ever based on a later one. */
  newestBlock(): number | null {
    return this.newest;
  }

  /**
   * The newest block held, with its id and time, when it is the head the scanner saw at a pass that ended less than
   * `maxAgeMs` ago: a head read another reader may use instead of its own (a gateway's once-a-block head).
   */
  newestHead(maxAgeMs: number): { readonly number: number; readonly id: string; readonly timestamp: number } | null {
    if (this.newest === null || this.newest !== this.tip || !(this.clock.now() - this.passAt < maxAgeMs)) return null;
    const kept = this.blocks.get(this.newest)!;
    return { number: this.newest, id: kept.hash, timestamp: kept.timestamp };
  }

  /**
   * A solidified head the scanner read (walletsolidity: final on every honest node of its network). The newest by
   * number is kept, with the time it was last read; a read of an older one (a node further behind) changes nothing.
   */
  onSolidified(block: BlockId): void {
    if (this.solid !== null && block.number < this.solid.number) return;
    this.solid = { number: block.number, id: block.hash, at: this.clock.now() };
  }

  /**
   * The newest solidified block the scanner read and when (Clock ms), for a reader that may use a solidified block
   * read a little while ago instead of its own read (a build's TaPoS reference: TronWebChainGateway
   * `referenceReuseMs`); null when none was read.
   */
  newestSolidified(): { readonly number: number; readonly id: string; readonly at: number } | null {
    return this.solid;
  }

  /** A block the scanner read and accepted as the child of its previous one (or the first after a restart). */
  onBlock(block: ChainBlock): void {
    if (block.receipts === undefined) {
      this.reset();
      return;
    }
    const held = this.blocks.get(block.number);
    if (held !== undefined && held.hash === block.hash) return;
    if (this.newest !== null && block.number <= this.newest) this.rollback(block.number - 1);
    const parent = this.newest === null ? undefined : this.blocks.get(this.newest);
    if (this.newest !== null && (block.number !== this.newest + 1 || parent?.hash !== block.parentHash)) this.reset();
    this.blocks.set(block.number, { hash: block.hash, timestamp: block.timestamp, receipts: new Map(block.receipts.map((r) => [r.txid.toLowerCase(), r])) });
    for (const r of block.receipts) this.index.set(r.txid.toLowerCase(), block.number);
    this.newest = block.number;
    for (const [number, kept] of this.blocks) {
      if (number > block.number - this.keepBlocks) break;
      this.blocks.delete(number);
      for (const txid of kept.receipts.keys()) if (this.index.get(txid) === number) this.index.delete(txid);
    }
  }

  /** A reorg: the blocks after `fork` are replaced (the scanner reads the new branch next). */
  rollback(fork: number): void {
    if (this.newest === null || fork >= this.newest) return;
    const dropped = new Set<string>();
    for (let n = this.newest; n > fork; n -= 1) {
      const kept = this.blocks.get(n);
      if (kept === undefined) continue;
      this.blocks.delete(n);
      for (const txid of kept.receipts.keys()) if (this.index.get(txid) === n) dropped.add(txid);
    }
    this.newest = this.blocks.has(fork) ? fork : null;
    if (this.newest === null) {
      this.reset();
      return;
    }
    // A transaction of a replaced block may also be in a kept one (a chain never holds one twice; a feed may).
    for (const txid of dropped) {
      this.index.delete(txid);
      for (const [number, kept] of this.blocks) if (kept.receipts.has(txid)) this.index.set(txid, number);
    }
  }

  /** The scanner finished a pass that saw `tip` as the head: until staleAfterMs later, this reader answers. */
  onPass(tip: number): void {
    this.tip = tip;
    this.passAt = this.clock.now();
  }

  find(txid: string): EvidenceAnswer | null {
    if (this.newest === null || this.clock.now() - this.passAt > this.staleAfterMs) return null;
    const id = txid.toLowerCase();
    const number = this.index.get(id);
    if (number !== undefined) {
      this.firstAsked.delete(id);
      return { kind: 'included', state: stateOf(this.blocks.get(number)!.receipts.get(id)!, number, this.newest) };
    }
    // Behind the head it saw, the reader lacks the newest blocks: it cannot say a transaction is in none of them.
    if (this.tip - this.newest > 1) return null;
    let first = this.firstAsked.get(id);
    if (first === undefined) {
      first = this.newest;
      if (this.firstAsked.size >= this.maxWatched) this.firstAsked.delete(this.firstAsked.keys().next().value!);
      this.firstAsked.set(id, first);
    }
    return { kind: 'absent', blocksWatched: Math.max(0, this.newest - first), throughBlock: this.newest };
  }

  private reset(): void {
    this.blocks.clear();
    this.index.clear();
    this.firstAsked.clear();
    this.newest = null;
  }
}

/** A receipt as the port's state: depth counted to the newest block held; never claimed solidified. */
function stateOf(r: BlockReceipt, blockNumber: number, newest: number): IncludedState {
  const fees = { feeSun: r.feeSun, netFeeSun: r.netFeeSun, energyFeeSun: r.energyFeeSun };
  if (!r.success) return { state: 'failed', blockNumber, reason: r.reason ?? 'FAILED', ...fees };
  return { state: 'confirmed', blockNumber, confirmations: newest - blockNumber + 1, solidified: false, ...fees, energyUsed: r.energyUsed };
}
