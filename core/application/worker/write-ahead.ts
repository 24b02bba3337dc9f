import type { PreparedTransaction } from '../../domain/model/command.js';
import type { SignedTransaction, TransactionState } from '../../domain/model/chain.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';

/** How deep a transaction must be before the next step starts: a block count, or the solidified view (default). */
export type Confirmations = number | 'solidified';

/**
 * What a persisted (write-ahead) transaction needs next, read from the chain:
 * - `confirmed`: deep enough, the step is complete;
 * - `waiting`: in the pool or in a block not yet deep enough, or rebroadcast just now (it was unknown but unexpired);
 * - `failed`: in a block and reverted (never retried: funds may have moved partly, a human looks);
 * - `rebuild`: unknown and expired, so it can never land: the step may prepare a new transaction.
 */
export type WriteAheadState =
  | { readonly kind: 'confirmed'; readonly state: TransactionState & { readonly state: 'confirmed' } }
  | { readonly kind: 'waiting' }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'rebuild' };

/** The persisted form of a freshly prepared transaction: not broadcast yet. */
export function toPrepared(tx: SignedTransaction): PreparedTransaction {
  return { txid: tx.txid, signedJson: tx.signedJson, expiresAt: tx.expiresAt, broadcastAt: null };
}

function toSigned(tx: PreparedTransaction): SignedTransaction {
  return { txid: tx.txid, signedJson: tx.signedJson, expiresAt: tx.expiresAt };
}

/** Sends exactly the persisted bytes (a duplicate of an accepted transaction counts as accepted). */
export async function broadcastPrepared(chain: ChainGateway, tx: PreparedTransaction): Promise<void> {
  await chain.broadcast(toSigned(tx));
}

/**
 * The resume rule of every step: look the txid up first. Unknown and unexpired (by the head block's time, the
 * chain's own clock) → rebroadcast the SAME signed bytes; unknown and expired → rebuild. Never a second transaction
 * while the first could still land.
 */
export async function followUp(chain: ChainGateway, tx: PreparedTransaction, needed: Confirmations): Promise<WriteAheadState> {
  const state = await chain.getTransaction(tx.txid);
  switch (state.state) {
    case 'confirmed': {
      const deep = needed === 'solidified' ? state.solidified : state.confirmations >= needed;
      return deep ? { kind: 'confirmed', state } : { kind: 'waiting' };
    }
    case 'pending':
      return { kind: 'waiting' };
    case 'failed':
      return { kind: 'failed', reason: state.reason };
    case 'unknown': {
      const head = await chain.head();
      if (tx.expiresAt <= head.timestamp) return { kind: 'rebuild' };
      await broadcastPrepared(chain, tx);
      return { kind: 'waiting' };
    }
  }
}
