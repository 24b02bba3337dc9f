import { advancedDeposit, INITIAL_DEPOSIT_STATUS, type DepositEvent } from '../../domain/deposit-machine.js';
import { ConcurrencyConflict } from '../../domain/errors.js';
import type { NetworkCode, UserId } from '../../domain/model/common.js';
import type { Deposit } from '../../domain/model/deposit.js';
import type { DeveloperConfig, OptInEventType, WebhookEvent } from '../../domain/model/webhook.js';
import type { BlockTransfer } from '../../ports/block-source.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { DepositRepository } from '../../ports/deposit-repository.port.js';
import type { DeveloperConfigRepository } from '../../ports/developer-config-repository.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { Ledger } from '../../ports/ledger.port.js';
import type { UnitOfWork } from '../../ports/unit-of-work.port.js';
import { depositBooking } from '../ledger-bookings.js';
import { depositEvent } from '../webhook-events.js';

/** What the balance scanner saw of a transfer to a managed address, in the order it saw it. */
export type DepositObservation =
  /** In block `block` of the chain the scanner follows; `userId` owns the receiving address. */
  | { readonly kind: 'seen'; readonly transfer: BlockTransfer; readonly block: number; readonly userId: UserId; readonly assetSymbol: string }
  /** Its block was replaced by a reorg. */
  | { readonly kind: 'dropped'; readonly transferId: string }
  /** Its block is at the confirmed depth (at or below the solidified block). */
  | { readonly kind: 'solidified'; readonly transferId: string };

/** The ports the recorder reads and writes through. */
export type DepositRecorderDeps = {
  readonly deposits: DepositRepository;
  readonly uow: UnitOfWork;
  /** Whose config.event_types says which deposit.* events the owner receives. */
  readonly developerConfigs: DeveloperConfigRepository;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /**
   * The books (issue #36): a confirmation books its deposit (ledger-bookings.ts) in the same atomic scope as the status
   * change. Absent: no books are kept (tests and benches that do not read them).
   */
  readonly ledger?: Ledger;
};

/**
 * Turns the scanner's observations into deposit records, one per transfer, and each status change into its deposit.*
 * event when the owner opted into that type. The record and its event are one UnitOfWork commit, so a crash leaves
 * both or neither; a pass redone after a crash (or by a second scanner) finds the record created or its status
 * changed and writes nothing: a transfer seen again finds its record (insert once), and an event the transition table
 * refuses (confirmed twice, dropped twice) writes nothing. So each status change has exactly one event, or none when
 * the owner had not opted in as it happened (an event is never written for a type nobody asked for, and none is
 * written later on opting in). A failing write throws: the scanner's pass fails before its checkpoint is saved, and
 * the next pass redoes it.
 */
export class DepositRecorder {
  constructor(private readonly deps: DepositRecorderDeps, private readonly network: NetworkCode) {}

  /**
   * Applies the observations in order; `head` is the scanner's height as it writes them (for `confirmations`).
   * Returns how many records were created or changed.
   */
  async record(observations: readonly DepositObservation[], head: number): Promise<number> {
    const configs = new Map<UserId, DeveloperConfig | null>();
    let written = 0;
    for (const o of observations) {
      if (await this.apply(o, { head, configs })) written += 1;
    }
    return written;
  }

  private async apply(o: DepositObservation, pass: Pass): Promise<boolean> {
    const { deposits } = this.deps;
    if (o.kind === 'seen') {
      const known = await deposits.findByTransfer(this.network, o.transfer.id);
      if (known !== null) return this.advance(known, 'included', o.block, pass);
      const fresh = this.fresh(o);
      try {
        await this.deps.uow.commit({ newDeposits: [fresh], events: await this.eventsFor(fresh, pass) });
        return true;
      } catch (error) {
        if (!(error instanceof ConcurrencyConflict)) throw error;
      }
      // Another scanner recorded the transfer meanwhile (with its own event); a clash of deposit ids stays a conflict.
      const raced = await deposits.findByTransfer(this.network, o.transfer.id);
      if (raced === null) throw new ConcurrencyConflict('deposit', fresh.depositId);
      return this.advance(raced, 'included', o.block, pass);
    }
    const known = await deposits.findByTransfer(this.network, o.transferId);
    // No record: a transfer the scanner does not record (one of our own workflows' transfers).
    if (known === null) return false;
    return this.advance(known, o.kind, undefined, pass);
  }

  private async advance(deposit: Deposit, event: DepositEvent, blockNumber: number | undefined, pass: Pass): Promise<boolean> {
    let next = advancedDeposit(deposit, event, { now: this.deps.clock.now(), ...(blockNumber === undefined ? {} : { blockNumber }) });
    if (next === null) return false;
    // The automatic collection trigger is written with the confirmation, so a crash leaves both or neither (issue #24
    // item 4); the AutoCollector judges it after the pass, once the balances include the deposit.
    if (next.status === 'confirmed' && (await this.configOf(deposit.userId, pass))?.autoCollect?.[deposit.assetSymbol] !== undefined) {
      next = { ...next, autoCollect: 'due' };
    }
    // A pending transfer moved to another block keeps its status: a new block number, no event.
    const events = next.status === deposit.status ? [] : await this.eventsFor(next, pass);
    const { ledger, uow } = this.deps;
    if (next.status !== 'confirmed' || ledger === undefined) {
      await uow.commit({ deposits: [next], events });
      return true;
    }
    // The confirmation and its booking are one atomic scope: a crash leaves both or neither, and a redo finds the
    // deposit confirmed and books nothing (the booking is keyed by the deposit, so a racing scanner books it once too).
    const booking = depositBooking(next, this.deps.ids.uuid());
    await uow.atomically(async () => {
      await uow.commit({ deposits: [next], events });
      await ledger.post(booking);
    });
    return true;
  }

  /** The event of the deposit's (new) status, when its owner opted into that type; none otherwise. */
  private async eventsFor(deposit: Deposit, pass: Pass): Promise<WebhookEvent[]> {
    const optIns: readonly OptInEventType[] = (await this.configOf(deposit.userId, pass))?.optInEventTypes ?? [];
    const event = depositEvent(deposit, this.deps.ids.uuid(), this.deps.clock.now(), pass.head);
    return optIns.includes(event.eventType as OptInEventType) ? [event] : [];
  }

  /** The owner's developer config, read once per pass. */
  private async configOf(userId: UserId, pass: Pass): Promise<DeveloperConfig | null> {
    if (!pass.configs.has(userId)) pass.configs.set(userId, await this.deps.developerConfigs.get(userId));
    return pass.configs.get(userId) ?? null;
  }

  private fresh(o: Extract<DepositObservation, { kind: 'seen' }>): Deposit {
    const t = o.transfer;
    return {
      depositId: this.deps.ids.uuid(), transferId: t.id, userId: o.userId, address: t.to, networkCode: this.network,
      assetSymbol: o.assetSymbol, amount: t.amount, fromAddress: t.from, txid: t.txid, blockNumber: o.block,
      status: INITIAL_DEPOSIT_STATUS, detectedAt: this.deps.clock.now(), confirmedAt: null, version: 1,
    };
  }
}

/** What one `record` call shares: the scanner's height, and each owner's config (opt-ins, auto_collect) read once. */
interface Pass {
  readonly head: number;
  readonly configs: Map<UserId, DeveloperConfig | null>;
}
