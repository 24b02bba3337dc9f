import type { Collection, Db } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Account, Millis, UserId } from '../../core/domain/model/index.js';
import type { AccountRepository } from '../../core/ports/account-repository.port.js';
import { COLLECTIONS } from './collections.js';
import { fromAccountDocument, toAccountDocument, type AccountDocument } from './mongo-documents.js';
import { guarded, isDuplicateKey } from './mongo-support.js';

/**
 * Accounts; the unique index on `emailLower` of the verified ones (`verified_email_unique`) makes "one owner per
 * e-mail, case-insensitively" hold between processes, while pending registrations of an e-mail are many.
 */
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
        if (account.verified && (isDuplicateKey(error, 'emailLower') || (await this.findByEmail(account.email)) !== null)) return false;
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
      const doc = await this.accounts.findOne({ emailLower: email.toLowerCase(), verified: true });
      return doc === null ? null : fromAccountDocument(doc);
    });
  }

  listPendingByEmail(email: string): Promise<Account[]> {
    return guarded('account read', async () => {
      const docs = await this.accounts.find({ emailLower: email.toLowerCase(), verified: false }).sort({ createdAt: 1, _id: 1 }).toArray();
      return docs.map(fromAccountDocument);
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

  promote(account: Account): Promise<boolean> {
    return guarded('account promote', async () => {
      const { _id, ...fields } = toAccountDocument(account);
      try {
        const result = await this.accounts.updateOne({ _id, version: account.version - 1 }, { $set: fields });
        if (result.matchedCount !== 1) throw new ConcurrencyConflict('account', String(account.id));
      } catch (error) {
        // The partial unique index refuses a second verified account of the e-mail: someone verified first.
        if (isDuplicateKey(error)) return false;
        throw error;
      }
      // Not one transaction with the write above: a registration left behind by a crash in between can never be
      // promoted (the unique index) and expires with the unverified ones.
      await this.accounts.deleteMany({ emailLower: account.email.toLowerCase(), verified: false, _id: { $ne: _id } });
      return true;
    });
  }

  deleteUnverifiedCreatedBefore(createdBefore: Millis): Promise<number> {
    return guarded('account expiry', async () => {
      // Each document is matched and deleted atomically: one verified meanwhile no longer matches.
      const result = await this.accounts.deleteMany({ verified: false, createdAt: { $lt: createdBefore } });
      return result.deletedCount;
    });
  }
}
