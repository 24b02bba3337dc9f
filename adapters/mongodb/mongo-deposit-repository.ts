import type { ClientSession, Collection, Db } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Deposit, UserId } from '../../core/domain/model/index.js';
import type { DepositFilter, DepositInsert, DepositRepository } from '../../core/ports/deposit-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { DEPOSIT_RECORD, type StoredDeposit } from '../records/deposit-record.js';
import { COLLECTIONS } from './collections.js';
import { guarded, insertionStamp, isDuplicateKey, pageFrom, type MongoDocument } from './mongo-support.js';
import { fromDocument as decodeDocument, replaceOf, toDocument as encodeDocument } from './mongo-table.js';

/** A deposit as stored: the shared record (`_id` = deposit id) plus the insertion stamp that orders equal times. */
export type DepositDocument = MongoDocument<StoredDeposit> & { insertedSeq: number };

function fromDocument(doc: DepositDocument): Deposit {
  return decodeDocument(DEPOSIT_RECORD, doc);
}

/** The document a new record is inserted as (stamped now, so equal detection times list the later first). */
export function depositInsertDocument(deposit: Deposit): DepositDocument {
  return { ...encodeDocument(DEPOSIT_RECORD, deposit), insertedSeq: insertionStamp() };
}

/**
 * The versioned replace: writes where the stored version is `version - 1` and the identity (id, transfer, network)
 * matches; the identity is matched, never written, and the insertion stamp keeps its first value. Returns whether a
 * record matched.
 */
export async function replaceDeposit(deposits: Collection<DepositDocument>, deposit: Deposit, session?: ClientSession): Promise<boolean> {
  // The descriptor's fixed fields are the identity; a followed task that ended is written as null (see replaceOf).
  const { filter, set } = replaceOf(DEPOSIT_RECORD, deposit);
  const result = await deposits.updateOne(filter, { $set: set }, session === undefined ? {} : { session });
  return result.matchedCount === 1;
}

/**
 * Deposit records. One per transfer is the unique index on (networkCode, transferId) (mongo-indexes.ts): a racing
 * or repeated insert gets a duplicate key, and the stored record is read back.
 */
export class MongoDepositRepository implements DepositRepository {
  private readonly deposits: Collection<DepositDocument>;

  constructor(db: Db) {
    this.deposits = db.collection<DepositDocument>(COLLECTIONS.deposits);
  }

  insert(deposit: Deposit): Promise<DepositInsert> {
    return guarded('deposit insert', async () => {
      try {
        await this.deposits.insertOne(depositInsertDocument(deposit));
        return { created: true, deposit };
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      const stored = await this.deposits.findOne({ networkCode: deposit.networkCode, transferId: deposit.transferId });
      // No record of the transfer: the duplicate was the deposit id, reused for another transfer.
      if (stored === null) throw new ConcurrencyConflict('deposit', deposit.depositId);
      return { created: false, deposit: fromDocument(stored) };
    });
  }

  findById(depositId: string): Promise<Deposit | null> {
    return guarded('deposit read', async () => {
      const doc = await this.deposits.findOne({ _id: depositId });
      return doc === null ? null : fromDocument(doc);
    });
  }

  findByTransfer(networkCode: string, transferId: string): Promise<Deposit | null> {
    return guarded('deposit read', async () => {
      const doc = await this.deposits.findOne({ networkCode: networkCode as DepositDocument['networkCode'], transferId });
      return doc === null ? null : fromDocument(doc);
    });
  }

  update(deposit: Deposit): Promise<void> {
    return guarded('deposit update', async () => {
      if (!(await replaceDeposit(this.deposits, deposit))) throw new ConcurrencyConflict('deposit', deposit.depositId);
    });
  }

  listByUser(userId: UserId, filter: DepositFilter, page: PageRequest): Promise<Page<Deposit>> {
    return guarded('deposit list', () => {
      const query = {
        userId,
        ...(filter.address === undefined ? {} : { address: filter.address }),
        ...(filter.assetSymbol === undefined ? {} : { assetSymbol: filter.assetSymbol }),
        ...(filter.status === undefined ? {} : { status: filter.status }),
      };
      return pageFrom(
        () => this.deposits.countDocuments(query),
        async (skip, limit) => (await this.deposits.find(query).sort({ detectedAt: -1, insertedSeq: -1, _id: -1 }).skip(skip).limit(limit)
          .toArray()).map(fromDocument),
        page,
      );
    });
  }

  listPendingUpTo(networkCode: string, blockNumber: number, limit: number): Promise<Deposit[]> {
    return guarded('deposit read', async () => {
      if (limit <= 0) return [];
      const docs = await this.deposits.find({ status: 'pending', networkCode: networkCode as DepositDocument['networkCode'], blockNumber: { $lte: blockNumber } })
        .sort({ blockNumber: 1, _id: 1 }).limit(limit).toArray();
      return docs.map(fromDocument);
    });
  }

  listAutoCollectDue(networkCode: string, limit: number): Promise<Deposit[]> {
    return guarded('deposit read', async () => {
      if (limit <= 0) return [];
      const docs = await this.deposits.find({
        $or: [{ autoCollect: 'due' }, { autoCollectTask: { $type: 'string' } }], networkCode: networkCode as DepositDocument['networkCode'],
      })
        .sort({ confirmedAt: 1, _id: 1 }).limit(limit).toArray();
      return docs.map(fromDocument);
    });
  }
}
