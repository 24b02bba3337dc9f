import { custodialAccount, holderAccount, ledgerAccountKey, type LedgerAccount, type LedgerTransaction } from '../domain/ledger.js';
import type { TransactionState } from '../domain/model/chain.js';
import { COLLECTION_STATUS, type CollectionTask, type StepRecord } from '../domain/model/collection-task.js';
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

/** A settled transaction's receipt (TransactionState), as a sweep's booking reads it. */
export type SettledReceipt = Extract<TransactionState, { state: 'confirmed' | 'failed' }>;

/** Who signed (and so paid the fees of) a step's transaction: the sub-address sends the sweep and the recovery. */
export function stepPayer(task: CollectionTask, step: StepRecord): string {
  return step.status === COLLECTION_STATUS.COLLECTING || step.status === COLLECTION_STATUS.RECOVER_TRX ? task.address : task.mainAddress;
}

/**
 * The transaction a DONE collection books, keyed by the task (cause `collection`, id = its number, txid = the sweep's):
 * - the sweep: `sweptAmount` of the asset from the sub-address to the main address;
 * - the funding (FUNDING_TRX, when its receipt is confirmed): its TRX from main to sub; the recovery (RECOVER_TRX that
 *   returns the float, when confirmed): its TRX from sub to main;
 * - each transaction's fees, paid in TRX by the address that signed it (stepPayer): `net_fee` to `fee_bandwidth`,
 *   `energy_fee` and the chain's other fees (an account's activation: burnt too) to `fee_trx_burned`. A failed
 *   transaction moves nothing and still pays its fees.
 * `receipts` holds the receipt of every step transaction that landed; one absent from it is one proven never included
 * (the cost record settled it as dead): it cost nothing. Lines on the same account are netted; zero lines dropped. The
 * rental price is paid off chain (the provider's account, not a custodial address) and is not booked here.
 */
export function collectionBooking(task: CollectionTask, receipts: ReadonlyMap<string, SettledReceipt>, transactionId: string): LedgerTransaction {
  if (task.status !== COLLECTION_STATUS.DONE || task.finishedAt === null) throw new RangeError(`collection ${task.taskNo} is not DONE`);
  const net = task.networkCode;
  const lines = new Map<string, { account: LedgerAccount; amount: bigint }>();
  const add = (account: LedgerAccount, amount: bigint): void => {
    const key = ledgerAccountKey(account);
    const line = lines.get(key);
    lines.set(key, { account, amount: (line?.amount ?? 0n) + amount });
  };
  const move = (asset: string, from: string, to: string, amount: bigint): void => {
    add(custodialAccount(net, asset, from), -amount);
    add(custodialAccount(net, asset, to), amount);
  };
  if (task.sweptAmount !== null && task.sweptAmount > 0n) move(task.assetSymbol, task.address, task.mainAddress, task.sweptAmount);
  for (const step of task.steps) {
    if (step.transaction === null) continue;
    const receipt = receipts.get(step.transaction.txid);
    if (receipt === undefined) continue;
    if (receipt.state === 'confirmed' && (step.amount ?? 0n) > 0n) {
      if (step.status === COLLECTION_STATUS.FUNDING_TRX) move('TRX', task.mainAddress, task.address, step.amount!);
      if (step.status === COLLECTION_STATUS.RECOVER_TRX && step.purpose === undefined) move('TRX', task.address, task.mainAddress, step.amount!);
    }
    const payer = custodialAccount(net, 'TRX', stepPayer(task, step));
    const bandwidth = receipt.netFeeSun ?? 0n;
    const burnt = receipt.feeSun - bandwidth;
    if (bandwidth > 0n) {
      add(payer, -bandwidth);
      add(holderAccount('fee_bandwidth', net, 'TRX'), bandwidth);
    }
    if (burnt > 0n) {
      add(payer, -burnt);
      add(holderAccount('fee_trx_burned', net, 'TRX'), burnt);
    }
  }
  return {
    transactionId, userId: task.userId, occurredAt: task.finishedAt, reverses: null,
    cause: { type: COLLECTION_CAUSE, id: task.taskNo, ...(task.sweepTxHash === null ? {} : { txid: task.sweepTxHash }) },
    lines: [...lines.values()].filter((l) => l.amount !== 0n),
  };
}
