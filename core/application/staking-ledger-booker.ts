import { COMMAND_STATUS, type Command } from '../domain/model/command.js';
import type { ChainGateway } from '../ports/chain-gateway.port.js';
import type { CommandRepository } from '../ports/command-repository.port.js';
import type { IdGenerator } from '../ports/id-generator.port.js';
import type { Ledger } from '../ports/ledger.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';
import { STAKING_COMMAND_TYPES, stakingBooking, stakingCauseType, type SettledReceipt } from './ledger-bookings.js';

export interface StakingLedgerBookerDeps {
  readonly commands: Pick<CommandRepository, 'get' | 'listFinishedSince'>;
  readonly wallets: Pick<WalletRepository, 'findByAddress'>;
  readonly chain: Pick<ChainGateway, 'getTransaction'>;
  readonly ledger: Ledger;
  readonly ids: Pick<IdGenerator, 'uuid'>;
}

/** What booking a staking command did: as WithdrawalBookingOutcome (`not-finished` also for a command of another type). */
export type StakingBookingOutcome = 'booked' | 'already-booked' | 'not-finished' | 'receipts-pending' | 'nothing-to-book';

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
    if (command === null || !STAKING_COMMAND_TYPES.includes(command.type) || command.finishedAt === null || command.address === null
      || (command.status !== COMMAND_STATUS.SUCCESS && command.status !== COMMAND_STATUS.FAILED)) return 'not-finished';
    // Booked already: one probe of the staking entries at the command's finish.
    const atEnd = await this.deps.ledger.entries(command.userId, { causeType: stakingCauseType(command), from: command.finishedAt, to: command.finishedAt }, { offset: 0, limit: 1_000 });
    if (atEnd.items.some((e) => e.cause.id === command.commandNo)) return 'already-booked';
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
    const finished = lists.flat()
      .sort((a, b) => a.finishedAt! - b.finishedAt! || (a.commandNo < b.commandNo ? -1 : a.commandNo > b.commandNo ? 1 : 0)).slice(0, limit);
    let booked = 0;
    let next = since;
    for (const command of finished) {
      const outcome = await this.book(command.commandNo);
      if (outcome === 'receipts-pending') return { booked, next: command.finishedAt! };
      if (outcome === 'booked') booked += 1;
      next = command.finishedAt!;
    }
    return { booked, next };
  }
}
