import { COMMAND_STATUS, COMMAND_TYPE, type Command } from '../domain/model/command.js';
import type { ChainGateway } from '../ports/chain-gateway.port.js';
import type { CommandRepository } from '../ports/command-repository.port.js';
import type { IdGenerator } from '../ports/id-generator.port.js';
import type { Ledger } from '../ports/ledger.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';
import { withdrawalBooking, withdrawalCauseType, type SettledReceipt } from './ledger-bookings.js';

export interface WithdrawalLedgerBookerDeps {
  readonly commands: Pick<CommandRepository, 'get' | 'listFinishedSince'>;
  readonly wallets: Pick<WalletRepository, 'findByAddress'>;
  readonly chain: Pick<ChainGateway, 'getTransaction'>;
  readonly ledger: Ledger;
  readonly ids: Pick<IdGenerator, 'uuid'>;
}

/**
 * What booking a withdrawal did: `booked` (this call wrote it), `already-booked` (an earlier call or another worker
 * did), `not-finished` (no such command, not a withdrawal, or not SUCCESS or FAILED yet), `receipts-pending` (a
 * transaction it needs has no receipt yet: try again later), `nothing-to-book` (a FAILED withdrawal that paid nothing
 * on chain).
 */
export type WithdrawalBookingOutcome = 'booked' | 'already-booked' | 'not-finished' | 'receipts-pending' | 'nothing-to-book';

/**
 * Books finished withdrawals (issue #36) as CollectionLedgerBooker books sweeps: after the fact, from the chain's
 * receipts, never inside the SUCCESS or FAILED unit of work, by the worker right after it and by a catch-up pass.
 * Idempotent by the cause (`withdrawal`, or `refund` for a refund of a payment request, and the command number): a redo, or several workers at once, book each withdrawal once.
 */
export class WithdrawalLedgerBooker {
  constructor(private readonly deps: WithdrawalLedgerBookerDeps) {}

  async book(commandNo: string): Promise<WithdrawalBookingOutcome> {
    const command = await this.deps.commands.get(commandNo);
    if (command === null || command.type !== COMMAND_TYPE.WITHDRAWAL || command.finishedAt === null || command.address === null
      || (command.status !== COMMAND_STATUS.SUCCESS && command.status !== COMMAND_STATUS.FAILED)) return 'not-finished';
    // Booked already: one probe of the withdrawal entries at the command's finish.
    const atEnd = await this.deps.ledger.entries(command.userId, { causeType: withdrawalCauseType(command), from: command.finishedAt, to: command.finishedAt }, { offset: 0, limit: 1_000 });
    if (atEnd.items.some((e) => e.cause.id === command.commandNo)) return 'already-booked';
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
    const finished = [
      ...await this.deps.commands.listFinishedSince(COMMAND_TYPE.WITHDRAWAL, COMMAND_STATUS.SUCCESS, since, limit),
      ...await this.deps.commands.listFinishedSince(COMMAND_TYPE.WITHDRAWAL, COMMAND_STATUS.FAILED, since, limit),
    ].sort((a, b) => a.finishedAt! - b.finishedAt! || (a.commandNo < b.commandNo ? -1 : a.commandNo > b.commandNo ? 1 : 0)).slice(0, limit);
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
