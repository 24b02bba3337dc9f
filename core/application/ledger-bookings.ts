import { custodialAccount, holderAccount, type LedgerTransaction } from '../domain/ledger.js';
import type { Deposit } from '../domain/model/deposit.js';

/** The cause type of a confirmed deposit's transaction; its id is the deposit id, its txid the deposit's. */
export const DEPOSIT_CAUSE = 'deposit';

/** The cause type of a sweep's transactions (its transfer and its fees); its id is the collection task's number. */
export const COLLECTION_CAUSE = 'collection';

/** The cause types booked so far: an entry's `kind` on the wire, and the values GET /ledger/entries?kind= takes. */
export const LEDGER_ENTRY_KINDS = [DEPOSIT_CAUSE, COLLECTION_CAUSE] as const;

/**
 * The transaction a confirmed deposit books: its amount from `external_in` to the custodial address, at its
 * confirmation time. Keyed by the deposit (one per transfer), so a redo or a second scanner books it once.
 *
 * Only a confirmation books: a pending deposit is not yet the merchant's money, and a confirmed one never reverts
 * (deposit-machine.ts: confirmed is terminal, at the solidified block), so a reorg before confirmation books nothing
 * and needs no reversal.
 */
export function depositBooking(deposit: Deposit, transactionId: string): LedgerTransaction {
  if (deposit.status !== 'confirmed' || deposit.confirmedAt === null) throw new RangeError(`deposit ${deposit.depositId} is not confirmed`);
  return {
    transactionId, userId: deposit.userId, occurredAt: deposit.confirmedAt, reverses: null,
    cause: { type: DEPOSIT_CAUSE, id: deposit.depositId, txid: deposit.txid },
    lines: [
      { account: holderAccount('external_in', deposit.networkCode, deposit.assetSymbol), amount: -deposit.amount },
      { account: custodialAccount(deposit.networkCode, deposit.assetSymbol, deposit.address), amount: deposit.amount },
    ],
  };
}
