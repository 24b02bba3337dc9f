import { COMMAND_STATUS, COMMAND_TYPE, type Command } from '../domain/model/command.js';
import { bookedAlready, catchUpCommands, finishedWithAddress, type CommandBookingOutcome, type CommandLedgerBookerDeps } from './command-ledger-booking.js';
import { withdrawalBooking, withdrawalCauseType, type SettledReceipt } from './ledger-bookings.js';

export type WithdrawalLedgerBookerDeps = CommandLedgerBookerDeps;

/** What booking a withdrawal did (CommandBookingOutcome; `nothing-to-book` is a FAILED withdrawal that paid nothing). */
export type WithdrawalBookingOutcome = CommandBookingOutcome;

/**
 * Books finished withdrawals (issue #36) as CollectionLedgerBooker books sweeps: after the fact, from the chain's
 * receipts, never inside the SUCCESS or FAILED unit of work, by the worker right after it and by a catch-up pass.
 * Idempotent by the cause (`withdrawal`, or `refund` for a refund of a payment request, and the command number): a redo, or several workers at once, book each withdrawal once.
 */
export class WithdrawalLedgerBooker {
  constructor(private readonly deps: WithdrawalLedgerBookerDeps) {}

  async book(commandNo: string): Promise<WithdrawalBookingOutcome> {
    const command = await this.deps.commands.get(commandNo);
    if (!finishedWithAddress(command) || command.type !== COMMAND_TYPE.WITHDRAWAL) return 'not-finished';
    if (await bookedAlready(this.deps.ledger, command, withdrawalCauseType(command))) return 'already-booked';
    const receipts = await this.receipts(command);
    if (receipts === null) return 'receipts-pending';
    const from = await this.deps.wallets.findByAddress(command.address);
    const to = await this.deps.wallets.findByAddress(command.params['to_address'] ?? '');
    const booking = withdrawalBooking(command, receipts, {
      networkCode: from?.networkCode ?? 'TRON', toOwnAddress: to !== null && to.userId === command.userId,
    }, this.deps.ids.uuid());
    if (booking === null) return 'nothing-to-book';
    return (await this.deps.ledger.post(booking)).created ? 'booked' : 'already-booked';
  }

  /**
   * The receipts of the command's transactions that landed; null while one is not readable yet. The transfer of a
   * SUCCESS withdrawal must be on chain (a withdrawal completing at broadcast waits here); a FAILED one's transfer ended
   * proven failed or dead, so one not on chain paid nothing. A funding step's transaction not on chain paid nothing
   * when the funding's cost record settled it as dead, else it is not known yet.
   */
  private async receipts(command: Command): Promise<Map<string, SettledReceipt> | null> {
    const receipts = new Map<string, SettledReceipt>();
    if (command.transaction !== null) {
      const state = await this.deps.chain.getTransaction(command.transaction.txid);
      if (state.state === 'confirmed' || state.state === 'failed') receipts.set(command.transaction.txid, state);
      else if (command.status === COMMAND_STATUS.SUCCESS) return null;
    }
    const funding = command.funding ?? null;
    for (const step of funding?.steps ?? []) {
      if (step.transaction === null) continue;
      const state = await this.deps.chain.getTransaction(step.transaction.txid);
      if (state.state === 'confirmed' || state.state === 'failed') receipts.set(step.transaction.txid, state);
      else if (!(funding!.cost?.txids ?? []).includes(step.transaction.txid)) return null;
    }
    return receipts;
  }

  /**
   * One catch-up pass over every user's SUCCESS and FAILED withdrawals finished at or after `since`, oldest first, at
   * most `limit`: books each not yet booked. Answers how many it booked and where the next pass starts (the finish of
   * the first whose receipts are not readable yet, else of the last seen), as CollectionLedgerBooker.catchUp.
   */
  async catchUp(since: number, limit: number): Promise<{ readonly booked: number; readonly next: number }> {
    return catchUpCommands([
      await this.deps.commands.listFinishedSince(COMMAND_TYPE.WITHDRAWAL, COMMAND_STATUS.SUCCESS, since, limit),
      await this.deps.commands.listFinishedSince(COMMAND_TYPE.WITHDRAWAL, COMMAND_STATUS.FAILED, since, limit),
    ], since, limit, (commandNo) => this.book(commandNo));
  }
}
