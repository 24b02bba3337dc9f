import { COMMAND_STATUS, type Command } from '../domain/model/command.js';
import { bookedAlready, catchUpCommands, finishedWithAddress, type CommandBookingOutcome, type CommandLedgerBookerDeps } from './command-ledger-booking.js';
import { STAKING_COMMAND_TYPES, stakingBooking, stakingCauseType, type SettledReceipt } from './ledger-bookings.js';

export type StakingLedgerBookerDeps = CommandLedgerBookerDeps;

/** What booking a staking command did: as WithdrawalBookingOutcome (`not-finished` also for a command of another type). */
export type StakingBookingOutcome = CommandBookingOutcome;

/**
 * Books finished staking commands (stake, unstake, withdraw-unstaked, vote, withdraw-reward; issue #36) exactly as
 * WithdrawalLedgerBooker books withdrawals: after the fact, from the chain's receipt, never inside the SUCCESS or FAILED
 * unit of work, by the worker right after the tick that finished it and by a catch-up pass over finished commands.
 * Idempotent by the cause (`staking` or `staking_reward`, and the command number): a redo, or several workers at once,
 * book each command once.
 */
export class StakingLedgerBooker {
  constructor(private readonly deps: StakingLedgerBookerDeps) {}

  async book(commandNo: string): Promise<StakingBookingOutcome> {
    const command = await this.deps.commands.get(commandNo);
    if (!finishedWithAddress(command) || !STAKING_COMMAND_TYPES.includes(command.type)) return 'not-finished';
    if (await bookedAlready(this.deps.ledger, command, stakingCauseType(command))) return 'already-booked';
    const receipt = await this.receipt(command);
    if (receipt === null) return 'receipts-pending';
    const wallet = await this.deps.wallets.findByAddress(command.address);
    const booking = stakingBooking(command, receipt, { networkCode: wallet?.networkCode ?? 'TRON' }, this.deps.ids.uuid());
    if (booking === null) return 'nothing-to-book';
    return (await this.deps.ledger.post(booking)).created ? 'booked' : 'already-booked';
  }

  /**
   * The receipt of the command's transaction (undefined: it never landed, so it cost nothing); null while it is not
   * readable yet. A SUCCESS command's transaction must be on chain; a FAILED one's ended proven failed or dead.
   */
  private async receipt(command: Command): Promise<SettledReceipt | undefined | null> {
    if (command.transaction === null) return undefined;
    const state = await this.deps.chain.getTransaction(command.transaction.txid);
    if (state.state === 'confirmed' || state.state === 'failed') return state;
    return command.status === COMMAND_STATUS.SUCCESS ? null : undefined;
  }

  /**
   * One catch-up pass over every user's SUCCESS and FAILED staking commands finished at or after `since`, oldest first,
   * at most `limit`: books each not yet booked. Answers how many it booked and where the next pass starts, as
   * WithdrawalLedgerBooker.catchUp.
   */
  async catchUp(since: number, limit: number): Promise<{ readonly booked: number; readonly next: number }> {
    const lists = await Promise.all(STAKING_COMMAND_TYPES.flatMap((type) => [COMMAND_STATUS.SUCCESS, COMMAND_STATUS.FAILED]
      .map((status) => this.deps.commands.listFinishedSince(type, status, since, limit))));
    return catchUpCommands(lists, since, limit, (commandNo) => this.book(commandNo));
  }
}
