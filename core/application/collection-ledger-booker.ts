import { COLLECTION_STATUS } from '../domain/model/collection-task.js';
import type { UserId } from '../domain/model/common.js';
import type { ChainGateway } from '../ports/chain-gateway.port.js';
import type { CollectionTaskRepository } from '../ports/collection-task-repository.port.js';
import type { IdGenerator } from '../ports/id-generator.port.js';
import type { Ledger } from '../ports/ledger.port.js';
import { COLLECTION_CAUSE, collectionBooking, type SettledReceipt } from './ledger-bookings.js';

export interface CollectionLedgerBookerDeps {
  readonly tasks: Pick<CollectionTaskRepository, 'get' | 'listByUser'>;
  readonly chain: Pick<ChainGateway, 'getTransaction'>;
  readonly ledger: Ledger;
  readonly ids: Pick<IdGenerator, 'uuid'>;
}

/**
 * What booking a collection did: `booked` (this call wrote it), `already-booked` (an earlier call or another worker
 * did; nothing written), `not-done` (no such task, or not DONE: nothing to book yet), `receipts-pending` (a step's
 * transaction has no receipt yet and is not proven dead: try again later).
 */
export type CollectionBookingOutcome = 'booked' | 'already-booked' | 'not-done' | 'receipts-pending';

/**
 * Books DONE collections (issue #36) from a pass after the fact, not in the DONE transition's unit of work: the
 * booking needs each transaction's receipt with its payer, which the task's cost record sums without keeping, so the
 * pass reads them again from the chain (never inside a store transaction). Idempotent by construction: the booking's
 * cause is the task (`collection`, task number), so a pass redone after a crash, or run by several workers at once,
 * books each task exactly once (Ledger.post answers the stored booking).
 */
export class CollectionLedgerBooker {
  constructor(private readonly deps: CollectionLedgerBookerDeps) {}

  /** Books the task if it is DONE and every step's transaction is settled. */
  async book(taskNo: string): Promise<CollectionBookingOutcome> {
    const task = await this.deps.tasks.get(taskNo);
    if (task === null || task.status !== COLLECTION_STATUS.DONE || task.finishedAt === null) return 'not-done';
    // Booked already: nothing to read from the chain. The booking happens at the task's finishedAt, so one probe of
    // that instant's collection entries finds it.
    const atEnd = await this.deps.ledger.entries(task.userId, { causeType: COLLECTION_CAUSE, from: task.finishedAt, to: task.finishedAt }, { offset: 0, limit: 1_000 });
    if (atEnd.items.some((e) => e.cause.id === task.taskNo)) return 'already-booked';
    const receipts = new Map<string, SettledReceipt>();
    for (const step of task.steps) {
      if (step.transaction === null) continue;
      const state = await this.deps.chain.getTransaction(step.transaction.txid);
      if (state.state === 'confirmed' || state.state === 'failed') receipts.set(step.transaction.txid, state);
      // Not on chain: settled as never included when the cost record counts it, else not yet known.
      else if (!(task.cost?.txids ?? []).includes(step.transaction.txid)) return 'receipts-pending';
    }
    const posting = await this.deps.ledger.post(collectionBooking(task, receipts, this.deps.ids.uuid()));
    return posting.created ? 'booked' : 'already-booked';
  }

  /** One pass over the user's DONE collections: books each not yet booked; answers how many this pass booked. */
  async bookUser(userId: UserId): Promise<number> {
    let booked = 0;
    for (let offset = 0; ; offset += 100) {
      const page = await this.deps.tasks.listByUser(userId, { status: COLLECTION_STATUS.DONE }, { offset, limit: 100 });
      for (const task of page.items) if (await this.book(task.taskNo) === 'booked') booked += 1;
      if (page.items.length < 100) return booked;
    }
  }
}
