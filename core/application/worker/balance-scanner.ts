import type { AssetRegistry } from '../../domain/assets.js';
import { REFRESH_SOURCE, type BalanceItem } from '../../domain/model/balance.js';
import type { NetworkCode } from '../../domain/model/common.js';
import type { WalletAddress } from '../../domain/model/wallet.js';
import type { BalanceRepository } from '../../ports/balance-repository.port.js';
import type { BlockSource, ChainBlock, ChainLevel } from '../../ports/block-source.port.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { ScanCursorStore } from '../../ports/scan-cursor-store.port.js';
import type { WalletRepository } from '../../ports/wallet-repository.port.js';

/** The ports the scanner reads and writes. */
export interface BalanceScannerDeps {
  readonly clock: Clock;
  readonly blocks: BlockSource;
  readonly cursors: ScanCursorStore;
  readonly wallets: WalletRepository;
  readonly balances: BalanceRepository;
  readonly chain: ChainGateway;
  readonly assets: AssetRegistry;
}

/** Tunables; every one has a default. */
export interface BalanceScannerOptions {
  /** Follow the head (default: balances move as soon as a block has them) or the solidified block (no reorgs). */
  readonly level?: ChainLevel;
  /** Cursor name (one per scanner; two scanners on different levels need different names). */
  readonly name?: string;
  /** Blocks processed per `scan` call at most, so one pass stays short while catching up. */
  readonly maxBlocksPerPass?: number;
  /**
   * Where a scanner without a cursor starts: 'latest' (default: the current block; history is not replayed, a
   * first manual refresh covers it) or an explicit block number.
   */
  readonly startAt?: 'latest' | number;
  readonly network?: NetworkCode;
}

/** What one `scan` call did. */
export interface ScanPass {
  /** First and last block fully processed in this pass (null when there was nothing new). */
  readonly from: number | null;
  readonly to: number | null;
  /** Addresses whose balances were refreshed, in order of processing (an address appears once per block). */
  readonly refreshed: readonly string[];
  /** Newest block at the scanner's level when the pass started; `to < latest` means it is still catching up. */
  readonly latest: number;
}

/**
 * Automatic balance refresh (refresh_source 1): follows the chain block by block, finds the transfers touching
 * managed addresses (one `findManaged` lookup per block, so the cost per block does not grow with the number of
 * managed addresses) and re-reads only those balances. The cursor is advanced after each block is fully
 * processed; a failure stops the pass and the same block is retried next time (a re-read balance is idempotent).
 */
export class BalanceScanner {
  private readonly level: ChainLevel;
  private readonly name: string;
  private readonly maxBlocks: number;
  private readonly startAt: 'latest' | number;
  private readonly network: NetworkCode;

  constructor(private readonly deps: BalanceScannerDeps, options: BalanceScannerOptions = {}) {
    this.level = options.level ?? 'head';
    this.name = options.name ?? `balance-scan:${this.level}`;
    this.maxBlocks = options.maxBlocksPerPass ?? 100;
    if (!Number.isSafeInteger(this.maxBlocks) || this.maxBlocks < 1) throw new RangeError('maxBlocksPerPass must be a positive integer');
    this.startAt = options.startAt ?? 'latest';
    this.network = options.network ?? 'TRON';
  }

  /** Processes the blocks after the cursor up to the latest at the configured level (at most maxBlocksPerPass). */
  async scan(): Promise<ScanPass> {
    const latest = await this.deps.blocks.latest(this.level);
    const cursor = await this.deps.cursors.get(this.name);
    const first = cursor !== null ? cursor + 1 : this.startAt === 'latest' ? latest : this.startAt;
    const last = Math.min(latest, first + this.maxBlocks - 1);
    const refreshed: string[] = [];
    let done: number | null = null;
    for (let n = first; n <= last; n += 1) {
      const block = await this.deps.blocks.block(n, this.level);
      if (block === null) break;
      refreshed.push(...await this.process(block));
      await this.deps.cursors.advance(this.name, n);
      done = n;
    }
    return { from: done === null ? null : first, to: done, refreshed, latest };
  }

  /** Refreshes the managed addresses the block's transfers touch (receivers, and senders whose balance fell). */
  private async process(block: ChainBlock): Promise<string[]> {
    const tracked = new Set(this.deps.assets.list(this.network).map((a) => a.contractAddress));
    const touched = new Set<string>();
    for (const t of block.transfers) {
      // Tokens the service does not hold (airdropped spam) move no cached balance: skip them.
      if (!tracked.has(t.contract)) continue;
      touched.add(t.to);
      touched.add(t.from);
    }
    if (touched.size === 0) return [];
    const managed = await this.deps.wallets.findManaged([...touched]);
    const ordered = [...managed].sort((a, b) => a.id - b.id);
    for (const wallet of ordered) await this.refresh(wallet);
    return ordered.map((w) => w.address);
  }

  private async refresh(wallet: WalletAddress): Promise<void> {
    const now = this.deps.clock.now();
    const items: BalanceItem[] = [];
    for (const asset of this.deps.assets.list(wallet.networkCode)) {
      const available = asset.contractAddress === null
        ? await this.deps.chain.getTrxBalance(wallet.address)
        : await this.deps.chain.getTokenBalance(wallet.address, asset.contractAddress);
      items.push({ symbol: asset.symbol, available, updatedAt: now });
    }
    await this.deps.balances.put({ address: wallet.address, items, refreshSource: REFRESH_SOURCE.AUTO, updatedAt: now });
  }
}
