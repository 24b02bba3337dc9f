import { ChainError, InfrastructureError } from '../../domain/errors.js';
import type { PreparedTransaction } from '../../domain/model/command.js';
import type { SignedTransaction, TransactionState } from '../../domain/model/chain.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import type { TransactionEvidence } from '../../ports/transaction-evidence.port.js';

/** How deep a transaction must be before the next step starts: a block count, or the solidified view (default). */
export type Confirmations = number | 'solidified';

/**
 * How long after a workflow started a balance read that says "not enough" (nothing to collect, less than the
 * withdrawal) is read again instead of failing the workflow: 30 s, ten blocks. A state read can come from a node some
 * blocks behind the one that reported the deposit (a provider's load-balanced backends; the devnet's `stale_reads`),
 * and failing on its answer would fail a payment the chain can make. A "not enough" that lasts past it is final.
 */
export const STALE_READ_GRACE_MS = 30_000;

/** When a step's transaction completes it: once a node has accepted it (spec §6 withdrawals), or at a depth. */
export type Completion = 'accepted' | Confirmations;

/**
 * Where a persisted transaction stands, read from the chain, as the money policy's evidence (money-policy.ts). Only
 * three kinds can end its step, and each is chain evidence (the money rule, docs/decisions.md):
 * - `confirmed`: included with a successful receipt, deep enough (or accepted, for a step that completes on
 *   acceptance: then without a receipt unless it is in a block);
 * - `reverted`: included, and its receipt failed (REVERT, OUT_OF_ENERGY …): it moved nothing but its fee;
 * - `dead`: the solidified head is past its expiration and no solidified block of its validity window holds it: it
 *   never landed and never can, so a new transaction may replace it; `dead-refused` when a node had refused the
 *   operation itself (the record's refusal is a validation refusal).
 * Everything else waits: `waiting` in the pool, in a block not deep enough, or rebroadcast just now; `refused`, a
 * (re)send the node refused or whose reply was lost (`refusal`; `error`, what the first send threw). Errors of the
 * lookups themselves propagate: the caller keeps waiting on them too.
 */
export type Followed =
  | { readonly evidence: 'confirmed'; readonly receipt: TransactionState | null }
  | { readonly evidence: 'waiting' }
  | { readonly evidence: 'refused'; readonly refusal: string; readonly error?: unknown }
  | { readonly evidence: 'reverted'; readonly reason: string; readonly receipt: TransactionState }
  | { readonly evidence: 'dead' | 'dead-refused' };

/**
 * The write-ahead record of a freshly signed transaction. `broadcastAt` is stamped here, in the record that is
 * persisted before the first send: from that write on the transaction may be on the network.
 */
export function writeAheadRecord(tx: SignedTransaction, now: number): PreparedTransaction {
  return { txid: tx.txid, signedJson: tx.signedJson, expiresAt: tx.expiresAt, broadcastAt: now, refusal: null };
}

/** The persisted form of a freshly prepared transaction, not yet stamped as handed to a node. */
export function toPrepared(tx: SignedTransaction): PreparedTransaction {
  return { txid: tx.txid, signedJson: tx.signedJson, expiresAt: tx.expiresAt, broadcastAt: null };
}

function toSigned(tx: PreparedTransaction): SignedTransaction {
  return { txid: tx.txid, signedJson: tx.signedJson, expiresAt: tx.expiresAt };
}

/** Sends exactly the persisted bytes (a duplicate of an accepted transaction counts as accepted). */
async function broadcastPrepared(chain: ChainGateway, tx: PreparedTransaction): Promise<void> {
  await chain.broadcast(toSigned(tx));
}

/**
 * The first send of a transaction whose write-ahead record is stored, as evidence: accepted, which completes a
 * step that completes on acceptance (`confirmed`, no receipt yet) and else leaves it `waiting`; or `refused` (the
 * node refused it, or the reply was lost) with what the send threw: the transaction stays open and is followed.
 */
export async function sendPrepared(
  chain: ChainGateway, tx: PreparedTransaction, completion: Completion,
): Promise<Extract<Followed, { readonly evidence: 'confirmed' | 'waiting' | 'refused' }>> {
  try {
    await broadcastPrepared(chain, tx);
  } catch (error) {
    return { evidence: 'refused', refusal: describeRefusal(error), error };
  }
  return completion === 'accepted' ? { evidence: 'confirmed', receipt: null } : { evidence: 'waiting' };
}

/**
 * `CODE: message` of a refused or failed send, for the record (CODE is the node's own refusal code when it gave
 * one, else the port's error code); never a key or a whole transaction.
 */
export function describeRefusal(error: unknown): string {
  if (error instanceof ChainError && error.nodeCode !== null) return `${error.nodeCode}: ${error.message}`.slice(0, 500);
  if (error instanceof InfrastructureError) return `${error.code}: ${error.message}`.slice(0, 500);
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}

/**
 * java-tron refusal codes that judge the operation itself (the contract's validation, the signature, the size),
 * not the moment or these bytes' freshness (TAPOS_ERROR, TRANSACTION_EXPIRATION_ERROR, SERVER_BUSY, a lost reply).
 */
const VALIDATION_REFUSALS = ['CONTRACT_VALIDATE_ERROR', 'CONTRACT_EXE_ERROR', 'SIGERROR', 'BANDWITH_ERROR', 'TOO_BIG_TRANSACTION_ERROR'];

/** Whether a recorded refusal says the operation cannot be done (a dead transaction so refused ends its step). */
export function isValidationRefusal(refusal: string | null | undefined): boolean {
  return refusal != null && VALIDATION_REFUSALS.some((code) => refusal.startsWith(`${code}:`));
}

/**
 * The resume rule of every step, and the money rule: look the txid up first.
 * - In a block: confirmed when deep enough, reverted when its receipt failed.
 * - In the pool: waiting (or confirmed, for a step that completes on acceptance).
 * - Unknown: dead only when the solidified head's timestamp is past the expiration (nothing can include it any
 *   more) and no solidified block of its validity window holds it (ChainGateway.findInSolidified). Otherwise the
 *   SAME signed bytes are sent again: accepted → waiting (confirmed on acceptance); refused, or no reply → waiting
 *   with the refusal. Never a second transaction while the first could still land.
 */
export async function followOperation(
  chain: ChainGateway, tx: PreparedTransaction, completion: Completion, evidence?: TransactionEvidence | null,
  onSource?: (source: FollowSource) => void,
): Promise<Followed> {
  const seen = evidence?.find(tx.txid) ?? null;
  // A receipt read from a block is chain evidence like a lookup's answer (issue #27). Solidification is the
  // solidity endpoint's to say, and a transaction still in a node's pool (which completes an 'accepted' step) or
  // lost (which is resent) only a node can tell: those are asked.
  if (seen?.kind === 'included' && completion !== 'solidified') {
    onSource?.('blocks');
    return classify(chain, tx, completion, seen.state);
  }
  // Absent from every block up to the head (the head as this process last read it: one read a block, shared): not
  // in a block yet. A head newer than the scanner's last block may hold it: the node is asked, as the scanner would
  // only say so later.
  if (seen?.kind === 'absent' && seen.blocksWatched < ABSENT_PATIENCE_BLOCKS && completion !== 'accepted'
    && (await chain.head()).number <= seen.throughBlock) {
    onSource?.('blocks');
    return { evidence: 'waiting' };
  }
  onSource?.('node');
  return classify(chain, tx, completion, await chain.getTransaction(tx.txid));
}

/** Where followOperation learnt what it returned: the blocks the scanner read, or a node asked directly. */
export type FollowSource = 'blocks' | 'node';

/**
 * Blocks read without a transaction before its follower asks a node: a transaction sent is normally in the next
 * block; one missing from two is in a node's pool or lost, and a lost one must be sent again (or proven dead).
 */
export const ABSENT_PATIENCE_BLOCKS = 2;

async function classify(chain: ChainGateway, tx: PreparedTransaction, completion: Completion, state: TransactionState): Promise<Followed> {
  switch (state.state) {
    case 'confirmed': {
      if (completion === 'accepted') return { evidence: 'confirmed', receipt: state };
      const deep = completion === 'solidified' ? state.solidified : state.confirmations >= completion;
      return deep ? { evidence: 'confirmed', receipt: state } : { evidence: 'waiting' };
    }
    case 'failed':
      return { evidence: 'reverted', reason: state.reason, receipt: state };
    case 'pending':
      return completion === 'accepted' ? { evidence: 'confirmed', receipt: null } : { evidence: 'waiting' };
    case 'unknown': {
      const solid = await chain.solidifiedHead();
      if (tx.expiresAt < solid.timestamp) {
        // Dead needs proof, not a lookup: a node behind (a provider's backend that fell minutes behind) answers
        // "unknown" for a transaction that landed. The solidified blocks of its validity window, read one by one,
        // are final: a node behind lacks a block instead of hiding a transaction (decision 83).
        const found = await chain.findInSolidified(toSigned(tx));
        // Dead: after a node refused the operation itself (its validation, signature, size), sending it again cannot help.
        if (found === 'absent') return { evidence: isValidationRefusal(tx.refusal) ? 'dead-refused' : 'dead' };
        return { evidence: 'refused', refusal: found === 'included'
          ? 'in a solidified block that the node has not shown yet'
          : 'the solidified blocks of its validity window could not all be read yet' };
      }
      try {
        await broadcastPrepared(chain, tx);
      } catch (error) {
        return { evidence: 'refused', refusal: describeRefusal(error) };
      }
      return completion === 'accepted' ? { evidence: 'confirmed', receipt: null } : { evidence: 'waiting' };
    }
  }
}
