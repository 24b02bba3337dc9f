import type { Deposit, DepositStatus } from './model/deposit.js';

/**
 * What the scanner learns about a recorded transfer:
 * - `solidified`: the block that includes it is at the confirmed depth (the node's solidified block);
 * - `dropped`: a reorg replaced the block that included it, and the new branch does not (yet) include it;
 * - `included`: the transfer is in a block of the chain the scanner follows again (re-included on the new branch).
 */
export type DepositEvent = 'solidified' | 'dropped' | 'included';

/** A record is created `pending`, the first time the scanner sees the transfer; creation is not an event. */
export const INITIAL_DEPOSIT_STATUS: DepositStatus = 'pending';

/**
 * The deposit transitions. `confirmed` is terminal: a deposit is confirmed at the solidified block, which TRON never
 * reorganises (it is the block a supermajority of witnesses confirmed), so no `dropped` leaves it. A scanner that
 * sees a solidified block replaced is on a broken node and must not rewrite history on its word.
 * `reverted` is not terminal: the same transfer may be included again on the new branch (`included` -> `pending`).
 * A `pending` transfer seen `included` stays pending, in the block it was seen in (a reorg may have moved it).
 */
export const DEPOSIT_TRANSITIONS = [
  { from: 'pending', event: 'solidified', to: 'confirmed' },
  { from: 'pending', event: 'dropped', to: 'reverted' },
  { from: 'reverted', event: 'included', to: 'pending' },
  { from: 'pending', event: 'included', to: 'pending' },
] as const satisfies readonly { from: DepositStatus; event: DepositEvent; to: DepositStatus }[];

/** The next status for the event, or null when the table refuses it (nothing to change). */
export function depositTransition(from: DepositStatus, event: DepositEvent): DepositStatus | null {
  const row = DEPOSIT_TRANSITIONS.find((r) => r.from === from && r.event === event);
  return row === undefined ? null : row.to;
}

/**
 * The record after the event, version bumped and `confirmedAt` stamped on confirmation (and `blockNumber` moved to
 * `blockNumber` on an inclusion); null when the table refuses the event or nothing changes, so a caller writes nothing.
 */
export function advancedDeposit(deposit: Deposit, event: DepositEvent, at: { now: number; blockNumber?: number }): Deposit | null {
  const status = depositTransition(deposit.status, event);
  if (status === null) return null;
  const block = event === 'included' && at.blockNumber !== undefined ? at.blockNumber : deposit.blockNumber;
  if (status === deposit.status && block === deposit.blockNumber) return null;
  return {
    ...deposit,
    status,
    blockNumber: block,
    confirmedAt: status === 'confirmed' ? at.now : deposit.confirmedAt,
    version: deposit.version + 1,
  };
}
