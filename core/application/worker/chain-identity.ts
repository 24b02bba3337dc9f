import type { BlockId } from '../../ports/block-source.port.js';

/**
 * Why a node is not on the chain a scanner's cursor was scanning (issue #34):
 * - `genesis`: its genesis block is another (a restarted devnet, another network);
 * - `behind`: its head is below the cursor and below every block the scanner keeps (a chain started over). A node
 *   lagging on the same chain answers a block the scanner recorded, and a reorg onto a shorter branch forks inside
 *   the kept blocks: neither is a mismatch (the scanner waits for the head to pass its cursor, then rolls back);
 * - `fork`: its chain shares no block with the blocks the scanner keeps (deeper than any reorg TRON makes).
 */
export type ChainMismatch = 'genesis' | 'behind' | 'fork';

/** What the scanner knows when it compares its cursor with the node. */
export interface ChainEvidence {
  /** The genesis id stored with the cursor; undefined for a cursor saved before it was recorded (nothing to compare). */
  readonly storedGenesis: string | undefined;
  /** The node's genesis id. */
  readonly nodeGenesis: string;
  /** The cursor: the last block processed. */
  readonly cursor: number;
  /** The node's head at the scanner's level. */
  readonly head: BlockId;
  /**
   * The hash the scanner recorded at the head's height: null when it keeps none there, '' when it recorded the block
   * without its hash (a legacy cursor: unknown, so not held against the node).
   */
  readonly recordedAtHead: string | null;
  /** The oldest block the scanner keeps (where a reorg's fork point can still be found); null when it keeps none. */
  readonly oldestKept: number | null;
  /** The walk back from a parent-hash mismatch found no common block among those kept. */
  readonly forkBeyondWindow: boolean;
}

/** The one rule that tells a node on another chain from a node on the cursor's chain; null when they agree. */
export function chainMismatch(e: ChainEvidence): ChainMismatch | null {
  if (e.storedGenesis !== undefined && e.storedGenesis !== e.nodeGenesis) return 'genesis';
  // Keeping no block (a start ahead of the head, a legacy cursor), the scanner has nothing to hold the head against.
  const belowKept = e.oldestKept !== null && e.head.number < e.oldestKept;
  if (e.head.number < e.cursor && belowKept && e.recordedAtHead !== '' && e.recordedAtHead !== e.head.hash) return 'behind';
  return e.forkBeyondWindow ? 'fork' : null;
}

/** The operator's line for a mismatch: what was seen, that scanning stopped, and what to do. */
export function chainMismatchMessage(reason: ChainMismatch, e: Pick<ChainEvidence, 'storedGenesis' | 'nodeGenesis' | 'cursor' | 'head'>): string {
  const seen = {
    genesis: `its genesis block is ${e.nodeGenesis}, the store's chain began with ${e.storedGenesis ?? 'another'}`,
    behind: `its head ${e.head.number} is below the scan cursor ${e.cursor} and every block this store still keeps`,
    fork: `its chain shares no block with the last blocks this store scanned (cursor ${e.cursor})`,
  }[reason];
  return `the node follows another chain than the one this store was scanning (${seen}): the balance scanner stopped and `
    + 'credits nothing. Point TRON_FULL_HOST at the chain of this store, or give the new chain an empty store '
    + '(a restarted devnet is a new chain); then restart';
}
