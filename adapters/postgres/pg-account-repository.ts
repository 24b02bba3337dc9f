import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Account, Millis, UserId } from '../../core/domain/model/index.js';
import type { AccountRepository } from '../../core/ports/account-repository.port.js';
import { ACCOUNT_RECORD } from '../records/account-record.js';
import { guarded, inTransaction, isUniqueViolation } from './pg-support.js';
import { PgTable } from './pg-table.js';

/** The unique index behind "one verified account per e-mail, case-insensitively" (migration 0012). */
export const ACCOUNT_EMAIL_CONSTRAINT = 'accounts_verified_email_unique';

/**
 * The e-mail as the unique rule compares it: folded here rather than by PostgreSQL's lower(), which follows the
 * database's locale (under C it leaves 'É' alone), so that every store and every server agree on which addresses clash.
 */
export function emailKey(email: string): string {
  return email.toLowerCase();
}

/** The first key of the advisory locks that serialize promotions of one e-mail (the second is the e-mail's hash). */
export const ACCOUNT_PROMOTE_LOCK_SPACE = 0x61636374; // "acct"

/** The `accounts` table, from the record's descriptor. */
const ACCOUNTS = new PgTable(ACCOUNT_RECORD);

/**
 * Accounts; the partial unique index on the folded e-mail of verified accounts makes "one owner per e-mail" hold
 * between processes, while pending registrations of an e-mail are many.
 */
export class PgAccountRepository implements AccountRepository {
  constructor(private readonly pool: pg.Pool) {}

  create(account: Account): Promise<boolean> {
    return guarded('account create', async () => {
      try {
        await ACCOUNTS.insert(this.pool, account);
        return true;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // The e-mail rule is the documented outcome; a clash on the id alone is a caller bug (id reuse). When both
        // clash the server may name either constraint, hence the second look.
        if (account.verified && (isUniqueViolation(error, ACCOUNT_EMAIL_CONSTRAINT) || (await this.findByEmail(account.email)) !== null)) return false;
        throw new ConcurrencyConflict('account', String(account.id));
      }
    });
  }

  findById(id: UserId): Promise<Account | null> {
    return guarded('account read', () => ACCOUNTS.get(this.pool, id));
  }

  findByEmail(email: string): Promise<Account | null> {
    return guarded('account read', () => ACCOUNTS.first(this.pool, 'email_key = $1 AND verified', [emailKey(email)]));
  }

  listPendingByEmail(email: string): Promise<Account[]> {
    return guarded('account read', () => ACCOUNTS.select(this.pool, 'email_key = $1 AND NOT verified', [emailKey(email)], 'created_at, id'));
  }

  update(account: Account): Promise<void> {
    return guarded('account update', async () => {
      try {
        const written = await ACCOUNTS.replace(this.pool, account);
        if (written) return;
      } catch (error) {
        // An e-mail change onto another account's address: refused like a lost race.
        if (!isUniqueViolation(error, ACCOUNT_EMAIL_CONSTRAINT)) throw error;
      }
      throw new ConcurrencyConflict('account', String(account.id));
    });
  }

  promote(account: Account): Promise<boolean> {
    return guarded('account promote', () => inTransaction(this.pool, async (client) => {
      // Promotions of one e-mail queue here: each deletes the others' rows, and two of them updating and deleting each
      // other's rows in opposite orders would deadlock. The loser then finds its row gone (a ConcurrencyConflict).
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ACCOUNT_PROMOTE_LOCK_SPACE, emailKey(account.email)]);
      try {
        await client.query('SAVEPOINT promote');
        const written = await ACCOUNTS.replace(client, account);
        if (!written) throw new ConcurrencyConflict('account', String(account.id));
      } catch (error) {
        // Someone verified the e-mail first: the unique index refuses a second owner.
        if (!isUniqueViolation(error, ACCOUNT_EMAIL_CONSTRAINT)) throw error;
        await client.query('ROLLBACK TO SAVEPOINT promote');
        return false;
      }
      await client.query('DELETE FROM accounts WHERE email_key = $1 AND NOT verified AND id <> $2', [emailKey(account.email), account.id]);
      return true;
    }));
  }

  deleteUnverifiedCreatedBefore(createdBefore: Millis): Promise<number> {
    return guarded('account expiry', async () => {
      // One statement: a row updated meanwhile (verified) is re-checked against
      // the condition on its newest version before it is deleted, so it is kept.
      const result = await this.pool.query('DELETE FROM accounts WHERE NOT verified AND created_at < $1', [createdBefore]);
      return result.rowCount ?? 0;
    });
  }
}
