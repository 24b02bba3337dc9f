import { COLLECTION_STATUS } from '../domain/model/collection-task.js';
import type { UserId } from '../domain/model/common.js';
import type { ChainGateway } from '../ports/chain-gateway.port.js';
import type { CollectionTaskRepository } from '../ports/collection-task-repository.port.js';
import type { IdGenerator } from '../ports/id-generator.port.js';
import type { Ledger } from '../ports/ledger.port.js';
import type { LedgerEntry } from '../domain/ledger.js';
import { COLLECTION_CAUSE, collectionBooking, collectionBookingTime, collectionSteps, type SettledReceipt } from './ledger-bookings.js';

export interface CollectionLedgerBookerDeps {
  readonly tasks: Pick<CollectionTaskRepository, 'get' | 'listByUser' | 'listFinishedSince'>;
  readonly chain: Pick<ChainGateway, 'getTransaction'>;
  readonly ledger: Ledger;
  readonly ids: Pick<IdGenerator, 'uuid'>;
  /** Told of each booking this booker wrote (not of those found booked): the worker's daily summary adds its fees. */
  readonly onBooked?: (entries: readonly LedgerEntry[]) => void;
}

/**
 * What booking a collection did: `booked` (this call wrote it), `already-booked` (an earlier call or another worker
 * did; nothing written), `not-done` (no such task, or not DONE: nothing to book yet), `receipts-pending` (a step's
 * transaction has no receipt yet and is not proven dead, or a FAILED task's reclaim is under way: try again later),
 * `nothing-to-book` (a FAILED task that paid and moved nothing on chain).
 */
export type CollectionBookingOutcome = 'booked' | 'already-booked' | 'not-done' | 'receipts-pending' | 'nothing-to-book';

/**
 * Books DONE collections (issue #36) from a pass after the fact, not in the DONE transition's unit of work: the
 * booking needs each transaction's receipt with its payer, which the task's cost record sums without keeping, so the
 * pass reads them again from the chain (never inside a store transaction). Idempotent by construction: the booking's
 * cause is the task (`collection`, task number), so a pass redone after a crash, or run by several workers at once,
 * books each task exactly once (Ledger.post answers the stored booking).
 */
export class CollectionLedgerBooker {
  constructor(private readonly deps: CollectionLedgerBookerDeps) {}

  /**
   * Books the task if it is DONE, or FAILED with its reclaim done (a failed sweep still burned TRX), and every step's
   * transaction is settled.
   */
  async book(taskNo: string): Promise<CollectionBookingOutcome> {
    const task = await this.deps.tasks.get(taskNo);
    if (task === null || (task.status !== COLLECTION_STATUS.DONE && task.status !== COLLECTION_STATUS.FAILED) || task.finishedAt === null) return 'not-done';
    const at = collectionBookingTime(task);
    if (at === null) return 'receipts-pending';
    // Booked already: nothing to read from the chain. The booking happens at collectionBookingTime, so one probe of
    // that instant's collection entries finds it.
    const atEnd = await this.deps.ledger.entries(task.userId, { causeType: COLLECTION_CAUSE, from: at, to: at }, { offset: 0, limit: 1_000 });
    if (atEnd.items.some((e) => e.cause.id === task.taskNo)) return 'already-booked';
    const receipts = new Map<string, SettledReceipt>();
    for (const step of collectionSteps(task)) {
      if (step.transaction === null) continue;
      const state = await this.deps.chain.getTransaction(step.transaction.txid);
      if (state.state === 'confirmed' || state.state === 'failed') receipts.set(step.transaction.txid, state);
      // Not on chain: settled as never included when the cost record counts it, else not yet known.
      else if (!(task.cost?.txids ?? []).includes(step.transaction.txid)) return 'receipts-pending';
    }
    const booking = collectionBooking(task, receipts, this.deps.ids.uuid());
    if (booking === null) return 'nothing-to-book';
    const posting = await this.deps.ledger.post(booking);
    if (posting.created) this.deps.onBooked?.(posting.entries);
    return posting.created ? 'booked' : 'already-booked';
  }

  /**
   * One catch-up pass over every user's DONE and FAILED collections finished at or after `since`, oldest first (then by
   * number), at most `limit`: books each not yet booked (one ledger probe for those that are). Answers how many it
   * booked and where the next pass starts: the finish of the first task whose receipts are not readable yet (or whose
   * reclaim is under way), else of the last task seen.
   */
  async catchUp(since: number, limit: number): Promise<{ readonly booked: number; readonly next: number }> {
    let booked = 0;
    let next = since;
    const finished = [
      ...await this.deps.tasks.listFinishedSince(COLLECTION_STATUS.DONE, since, limit),
      ...await this.deps.tasks.listFinishedSince(COLLECTION_STATUS.FAILED, since, limit),
    ].sort((a, b) => a.finishedAt! - b.finishedAt! || (a.taskNo < b.taskNo ? -1 : a.taskNo > b.taskNo ? 1 : 0)).slice(0, limit);
    for (const task of finished) {
      const outcome = await this.book(task.taskNo);
      if (outcome === 'receipts-pending') return { booked, next: task.finishedAt! };
      if (outcome === 'booked') booked += 1;
      next = task.finishedAt!;
    }
    return { booked, next };
  }

  /** One pass over the user's DONE and FAILED collections: books each not yet booked; answers how many this pass booked. */
  async bookUser(userId: UserId): Promise<number> {
    let booked = 0;
    for (const status of [COLLECTION_STATUS.DONE, COLLECTION_STATUS.FAILED]) {
      for (let offset = 0; ; offset += 100) {
        const page = await this.deps.tasks.listByUser(userId, { status }, { offset, limit: 100 });
        for (const task of page.items) if (await this.book(task.taskNo) === 'booked') booked += 1;
        if (page.items.length < 100) break;
      }
    }
    return booked;
  }
}

/**
 * The catch-up schedule of a worker (issue #36): the sweeps a worker books right after their DONE unit of work are lost
 * to a crash in between, or wait when their receipts are not readable yet; this pass books them. It starts `lookbackMs`
 * before the process started (a worker restarted within that window books what the crash left), runs at most every
 * `everyMs`, and moves its start forward as the tasks before it are booked. Idempotent like every booking.
 */
export class CollectionBookingCatchUp {
  private since: number;
  private nextRunAt: number;

  constructor(
    private readonly booker: Pick<CollectionLedgerBooker, 'catchUp'>,
    private readonly clock: { now(): number },
    private readonly options: { readonly lookbackMs: number; readonly everyMs: number; readonly limit: number },
  ) {
    this.since = clock.now() - options.lookbackMs;
    this.nextRunAt = clock.now();
  }

  /** Runs a pass when one is due; answers how many it booked (0 when none ran). */
  async maybeRun(): Promise<number> {
    const now = this.clock.now();
    if (now < this.nextRunAt) return 0;
    this.nextRunAt = now + this.options.everyMs;
    const { booked, next } = await this.booker.catchUp(this.since, this.options.limit);
    this.since = next;
    return booked;
  }
}
