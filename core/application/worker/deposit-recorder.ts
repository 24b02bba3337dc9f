import { advancedDeposit, INITIAL_DEPOSIT_STATUS, type DepositEvent } from '../../domain/deposit-machine.js';
import type { NetworkCode, UserId } from '../../domain/model/common.js';
import type { Deposit } from '../../domain/model/deposit.js';
import type { BlockTransfer } from '../../ports/block-source.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { DepositRepository } from '../../ports/deposit-repository.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';

/** What the balance scanner saw of a transfer to a managed address, in the order it saw it. */
export type DepositObservation =
  /** In block `block` of the chain the scanner follows; `userId` owns the receiving address. */
  | { readonly kind: 'seen'; readonly transfer: BlockTransfer; readonly block: number; readonly userId: UserId; readonly assetSymbol: string }
  /** Its block was replaced by a reorg. */
  | { readonly kind: 'dropped'; readonly transferId: string }
  /** Its block is at the confirmed depth (at or below the solidified block). */
  | { readonly kind: 'solidified'; readonly transferId: string };

/** The ports the recorder writes through. */
export type DepositRecorderDeps = { readonly deposits: DepositRepository; readonly clock: Clock; readonly ids: IdGenerator };

/**
 * Turns the scanner's observations into deposit records, one per transfer. Every write is idempotent, so a pass
 * redone after a crash (or by a second scanner) changes nothing it already wrote: a transfer seen again finds its
 * record (insert once), and an event the transition table refuses (confirmed twice, dropped twice) writes nothing.
 * A failing write throws: the scanner's pass fails before its checkpoint is saved, and the next pass redoes it.
 */
export class DepositRecorder {
  constructor(private readonly deps: DepositRecorderDeps, private readonly network: NetworkCode) {}

  /** Applies the observations in order; returns how many records were created or changed. */
  async record(observations: readonly DepositObservation[]): Promise<number> {
    let written = 0;
    for (const o of observations) {
      if (await this.apply(o)) written += 1;
    }
    return written;
  }

  private async apply(o: DepositObservation): Promise<boolean> {
    const { deposits } = this.deps;
    if (o.kind === 'seen') {
      const known = await deposits.findByTransfer(this.network, o.transfer.id);
      if (known !== null) return this.advance(known, 'included', o.block);
      const inserted = await deposits.insert(this.fresh(o));
      return inserted.created || (await this.advance(inserted.deposit, 'included', o.block));
    }
    const known = await deposits.findByTransfer(this.network, o.transferId);
    // No record: a transfer the scanner does not record (one of our own workflows' transfers).
    if (known === null) return false;
    return this.advance(known, o.kind, undefined);
  }

  private async advance(deposit: Deposit, event: DepositEvent, blockNumber: number | undefined): Promise<boolean> {
    const next = advancedDeposit(deposit, event, { now: this.deps.clock.now(), ...(blockNumber === undefined ? {} : { blockNumber }) });
    if (next === null) return false;
    await this.deps.deposits.update(next);
    return true;
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
