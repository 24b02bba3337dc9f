import type { Db } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Account, Millis, UserId } from '../../core/domain/model/index.js';
import type { AccountRepository } from '../../core/ports/account-repository.port.js';
import { ACCOUNT_RECORD } from '../records/account-record.js';
import { guarded, isDuplicateKey } from './mongo-support.js';
import { MongoTable, type MongoTableOf } from './mongo-table.js';

/**
 * Accounts; the unique index on `emailLower` of the verified ones (`verified_email_unique`) makes "one owner per
 * e-mail, case-insensitively" hold between processes, while pending registrations of an e-mail are many.
 */
export class MongoAccountRepository implements AccountRepository {
  private readonly table: MongoTableOf<typeof ACCOUNT_RECORD>;

  constructor(db: Db) {
    this.table = new MongoTable(db, ACCOUNT_RECORD);
  }

  create(account: Account): Promise<boolean> {
    return guarded('account create', async () => {
      try {
        await this.table.insert(account);
        return true;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // The email rule is the documented outcome; a clash on the id alone is a caller bug (id reuse).
        if (account.verified && (isDuplicateKey(error, 'emailLower') || (await this.findByEmail(account.email)) !== null)) return false;
        throw new ConcurrencyConflict('account', String(account.id));
      }
    });
  }

  findById(id: UserId): Promise<Account | null> {
    return guarded('account read', () => this.table.get(id));
  }

  findByEmail(email: string): Promise<Account | null> {
    return guarded('account read', () => this.table.first({ emailLower: email.toLowerCase(), verified: true }));
  }

  listPendingByEmail(email: string): Promise<Account[]> {
    return guarded('account read', () => this.table.find({ emailLower: email.toLowerCase(), verified: false }, { createdAt: 1, _id: 1 }));
  }

  update(account: Account): Promise<void> {
    return guarded('account update', async () => {
      try {
        if (await this.table.replace(account)) return;
      } catch (error) {
        // An email change onto another account's address: refused like a lost race.
        if (!isDuplicateKey(error)) throw error;
      }
      throw new ConcurrencyConflict('account', String(account.id));
    });
  }

  promote(account: Account): Promise<boolean> {
    return guarded('account promote', async () => {
      try {
        if (!(await this.table.replace(account))) throw new ConcurrencyConflict('account', String(account.id));
      } catch (error) {
        // The partial unique index refuses a second verified account of the e-mail: someone verified first.
        if (isDuplicateKey(error)) return false;
        throw error;
      }
      // Not one transaction with the write above: a registration left behind by a crash in between can never be
      // promoted (the unique index) and expires with the unverified ones.
      await this.table.collection.deleteMany({ emailLower: account.email.toLowerCase(), verified: false, _id: { $ne: account.id } });
      return true;
    });
  }

  deleteUnverifiedCreatedBefore(createdBefore: Millis): Promise<number> {
    return guarded('account expiry', async () => {
      // Each document is matched and deleted atomically: one verified meanwhile no longer matches.
      const result = await this.table.collection.deleteMany({ verified: false, createdAt: { $lt: createdBefore } });
      return result.deletedCount;
    });
  }
}
