import { COMMAND_STATUS, type Command } from '../domain/model/command.js';
import type { ChainGateway } from '../ports/chain-gateway.port.js';
import type { CommandRepository } from '../ports/command-repository.port.js';
import type { IdGenerator } from '../ports/id-generator.port.js';
import type { Ledger } from '../ports/ledger.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';

/**
 * What the bookers of finished commands share (withdrawals and refunds, staking; issue #36): their ports, their
 * outcomes, the already-booked probe and the catch-up pass. Each booker keeps only what is its own: which commands it
 * books, which receipts it needs and the booking rule.
 */
export interface CommandLedgerBookerDeps {
  readonly commands: Pick<CommandRepository, 'get' | 'listFinishedSince'>;
  readonly wallets: Pick<WalletRepository, 'findByAddress'>;
  readonly chain: Pick<ChainGateway, 'getTransaction'>;
  readonly ledger: Ledger;
  readonly ids: Pick<IdGenerator, 'uuid'>;
}

/**
 * What booking a finished command did: `booked` (this call wrote it), `already-booked` (an earlier call or another
 * worker did), `not-finished` (no such command, not one this booker books, or not SUCCESS or FAILED yet),
 * `receipts-pending` (a transaction it needs has no receipt yet: try again later), `nothing-to-book` (a FAILED command
 * that paid nothing on chain).
 */
export type CommandBookingOutcome = 'booked' | 'already-booked' | 'not-finished' | 'receipts-pending' | 'nothing-to-book';

/** A command a booker may book: SUCCESS or FAILED, finished, with an address. */
export function finishedWithAddress(command: Command | null): command is Command & { finishedAt: number; address: string } {
  return command !== null && command.finishedAt !== null && command.address !== null
    && (command.status === COMMAND_STATUS.SUCCESS || command.status === COMMAND_STATUS.FAILED);
}

/** Booked already: one probe of the entries of the command's cause type at its finish. */
export async function bookedAlready(ledger: Ledger, command: Command & { finishedAt: number }, causeType: string): Promise<boolean> {
  const atEnd = await ledger.entries(command.userId, { causeType, from: command.finishedAt, to: command.finishedAt }, { offset: 0, limit: 1_000 });
  return atEnd.items.some((e) => e.cause.id === command.commandNo);
}

/**
 * One catch-up pass over finished commands (the lists the booker read, each oldest first): books the oldest `limit`
 * in order. Answers how many it booked and where the next pass starts: the finish of the first whose receipts are not
 * readable yet, else of the last seen.
 */
export async function catchUpCommands(
  lists: readonly (readonly Command[])[], since: number, limit: number, book: (commandNo: string) => Promise<CommandBookingOutcome>,
): Promise<{ readonly booked: number; readonly next: number }> {
  const finished = lists.flat()
    .sort((a, b) => a.finishedAt! - b.finishedAt! || (a.commandNo < b.commandNo ? -1 : a.commandNo > b.commandNo ? 1 : 0)).slice(0, limit);
  let booked = 0;
  let next = since;
  for (const command of finished) {
    const outcome = await book(command.commandNo);
    if (outcome === 'receipts-pending') return { booked, next: command.finishedAt! };
    if (outcome === 'booked') booked += 1;
    next = command.finishedAt!;
  }
  return { booked, next };
}
