import type { ClientSession, Db } from 'mongodb';
import { DomainError } from '../../core/domain/errors.js';
import { COMMAND_STATUS, COMMAND_TYPE, type AllowListEntry, type UserId, type WithdrawalPolicy } from '../../core/domain/model/index.js';
import {
  VELOCITY_AMOUNT_WINDOW_MS, VELOCITY_COUNT_WINDOW_MS, velocityRefusal, type VelocityCharge,
} from '../../core/domain/withdrawal-policy-rules.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import type { WithdrawalPolicyRepository } from '../../core/ports/withdrawal-policy-repository.port.js';
import { decodeMoney } from '../records/record-support.js';
import { ALLOW_LIST_ENTRY_RECORD, WITHDRAWAL_POLICY_RECORD } from '../records/withdrawal-policy-record.js';
import { COLLECTIONS } from './collections.js';
import type { CommandDocument } from './mongo-documents.js';
import { guarded, insertionStamp } from './mongo-support.js';
import { MongoTable, type MongoTableOf } from './mongo-table.js';

/** One document per user whose update inside a transaction makes parallel transactions of that user conflict. */
interface UserLockDocument {
  _id: string;
  n: number;
}

/** Takes the user's lock document inside `session`'s transaction (a racing transaction hits a write conflict and retries). */
async function lockUser(db: Db, kind: string, userId: UserId, session?: ClientSession): Promise<void> {
  await db.collection<UserLockDocument>(COLLECTIONS.policyLocks)
    .updateOne({ _id: `${kind}:${userId}` }, { $inc: { n: 1 } }, { upsert: true, ...(session === undefined ? {} : { session }) });
}

/** ChangeSet.velocity inside the unit of work's transaction (see PostgreSQL's checkVelocity): lock, total, judge. */
export async function checkVelocity(db: Db, charge: VelocityCharge, session?: ClientSession): Promise<void> {
  await lockUser(db, 'velocity', charge.userId, session);
  const docs = await db.collection<CommandDocument>(COLLECTIONS.commands).find({
    userId: charge.userId, assetSymbol: charge.assetSymbol, type: COMMAND_TYPE.WITHDRAWAL,
    status: { $nin: [COMMAND_STATUS.REJECTED, COMMAND_STATUS.CANCELLED] }, createdAt: { $gt: charge.at - VELOCITY_AMOUNT_WINDOW_MS },
  }, { projection: { lockedAmount: 1, createdAt: 1 }, ...(session === undefined ? {} : { session }) }).toArray();
  let amount24h = 0n;
  let count1h = 0;
  for (const doc of docs) {
    amount24h += decodeMoney(doc.lockedAmount, 'command lockedAmount');
    if (doc.createdAt > charge.at - VELOCITY_COUNT_WINDOW_MS) count1h += 1;
  }
  const refusal = velocityRefusal({ amount24h, count1h }, charge);
  if (refusal !== null) throw new DomainError(refusal);
}

/** Withdrawal policies (`_id`: user id, optimistic versions) and allow-lists (`_id`: user id + address) on MongoDB. */
export class MongoWithdrawalPolicyRepository implements WithdrawalPolicyRepository {
  private readonly policies: MongoTableOf<typeof WITHDRAWAL_POLICY_RECORD>;
  private readonly entries: MongoTableOf<typeof ALLOW_LIST_ENTRY_RECORD>;

  constructor(private readonly db: Db) {
    this.policies = new MongoTable(db, WITHDRAWAL_POLICY_RECORD);
    this.entries = new MongoTable(db, ALLOW_LIST_ENTRY_RECORD);
  }

  get(userId: UserId): Promise<WithdrawalPolicy | null> {
    return guarded('withdrawal policy read', () => this.policies.get(userId));
  }

  save(policy: WithdrawalPolicy): Promise<void> {
    // insertedSeq orders the pending approval URLs of equal time by first insertion.
    return guarded('withdrawal policy save', () => this.policies.save(policy, { insertedSeq: insertionStamp() }));
  }

  listPendingApprovalUrls(): Promise<WithdrawalPolicy[]> {
    return guarded('withdrawal policy list', () =>
      this.policies.find({ approvalPendingUrl: { $ne: null } }, { approvalPendingSince: 1, insertedSeq: 1 }));
  }

  /**
   * Without a transaction, the cap is best effort under racing adds of one user (it may be passed by the racers'
   * number); the unique `_id` keeps one entry per address in every case.
   */
  addAllowListEntry(entry: AllowListEntry, maxEntries: number): Promise<'created' | 'exists' | 'full'> {
    return guarded('allow-list add', async () => {
      const entries = this.entries.collection;
      if ((await entries.countDocuments({ _id: this.entries.idOf(entry) })) > 0) return 'exists';
      if ((await entries.countDocuments({ userId: entry.userId })) >= maxEntries) return 'full';
      return (await this.entries.insertOnce(entry)) ? 'created' : 'exists';
    });
  }

  findAllowListEntry(userId: UserId, address: string): Promise<AllowListEntry | null> {
    return guarded('allow-list read', () => this.entries.get({ userId, address }));
  }

  listAllowList(userId: UserId, page: PageRequest): Promise<Page<AllowListEntry>> {
    return guarded('allow-list list', () => this.entries.page({ userId }, { createdAt: 1, address: 1 }, page));
  }

  removeAllowListEntry(userId: UserId, address: string): Promise<boolean> {
    return guarded('allow-list remove', () => this.entries.delete({ userId, address }));
  }
}
