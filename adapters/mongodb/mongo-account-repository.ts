import type { Collection, Db } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Account, Millis, UserId } from '../../core/domain/model/index.js';
import type { AccountRepository } from '../../core/ports/account-repository.port.js';
import { COLLECTIONS } from './collections.js';
import { fromAccountDocument, toAccountDocument, type AccountDocument } from './mongo-documents.js';
import { guarded, isDuplicateKey } from './mongo-support.js';

/** Accounts; the unique index on `emailLower` makes the case-insensitive email rule hold between processes. */
export class MongoAccountRepository implements AccountRepository {
  private readonly accounts: Collection<AccountDocument>;

  constructor(db: Db) {
    this.accounts = db.collection<AccountDocument>(COLLECTIONS.accounts);
  }

  create(account: Account): Promise<boolean> {
    return guarded('account create', async () => {
      try {
        await this.accounts.insertOne(toAccountDocument(account));
        return true;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // The email rule is the documented outcome; a clash on the id alone is a caller bug (id reuse).
        if (isDuplicateKey(error, 'emailLower') || (await this.findByEmail(account.email)) !== null) return false;
        throw new ConcurrencyConflict('account', String(account.id));
      }
    });
  }

  findById(id: UserId): Promise<Account | null> {
    return guarded('account read', async () => {
      const doc = await this.accounts.findOne({ _id: id });
      return doc === null ? null : fromAccountDocument(doc);
    });
  }

  findByEmail(email: string): Promise<Account | null> {
    return guarded('account read', async () => {
      const doc = await this.accounts.findOne({ emailLower: email.toLowerCase() });
      return doc === null ? null : fromAccountDocument(doc);
    });
  }

  update(account: Account): Promise<void> {
    return guarded('account update', async () => {
      const { _id, ...fields } = toAccountDocument(account);
      try {
        const result = await this.accounts.updateOne({ _id, version: account.version - 1 }, { $set: fields });
        if (result.matchedCount === 1) return;
      } catch (error) {
        // An email change onto another account's address: refused like a lost race.
        if (!isDuplicateKey(error)) throw error;
      }
      throw new ConcurrencyConflict('account', String(account.id));
    });
  }

  deleteUnverifiedCreatedBefore(createdBefore: Millis): Promise<number> {
    return guarded('account expiry', async () => {
      // Each document is matched and deleted atomically: one verified or taken over meanwhile no longer matches.
      const result = await this.accounts.deleteMany({ verified: false, createdAt: { $lt: createdBefore } });
      return result.deletedCount;
    });
  }
}
