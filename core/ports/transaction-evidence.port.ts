import type { TransactionState } from '../domain/model/chain.js';

/** A transaction's receipt as read from its block: confirmed (with its depth so far) or failed. */
export type IncludedState = Extract<TransactionState, { readonly state: 'confirmed' | 'failed' }>;

/**
 * What blocks already read say about a transaction:
 * - `included`: a block of the reader's chain holds it, with its receipt (confirmations counted up to the newest
 *   block the reader holds, so never more than a node would say; `solidified` is never claimed);
 * - `absent`: no block the reader holds has it, up to `throughBlock`, the newest it read; `blocksWatched` blocks were
 *   read since this transaction was first asked about (it may be in a node's pool, or lost: only the node can tell,
 *   so a caller asks it after a while).
 */
export type EvidenceAnswer =
  | { readonly kind: 'included'; readonly state: IncludedState }
  | { readonly kind: 'absent'; readonly blocksWatched: number; readonly throughBlock: number };

/**
 * The workflows' view of the blocks the balance scanner reads (issue #27): every block is read once for deposits
 * with every receipt in it (`gettransactioninfobyblocknum`), so a workflow following its own transaction needs no
 * lookup of its own. A receipt read from a block is chain evidence like a node's answer to a lookup.
 */
export interface TransactionEvidence {
  /**
   * What the blocks read say about `txid`, or null when the reader cannot answer for the current chain (it reads
   * the solidified level, has not read a block for a while, runs behind the head, or runs in another process): the
   * caller then asks a node directly.
   */
  find(txid: string): EvidenceAnswer | null;
}
