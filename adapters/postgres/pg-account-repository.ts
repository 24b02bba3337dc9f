import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Account, Millis, UserId } from '../../core/domain/model/index.js';
import type { AccountRepository } from '../../core/ports/account-repository.port.js';
import { fromStoredAccount, toStoredAccount, type StoredAccount } from '../records/account-record.js';
import { guarded, inTransaction, insertRow, isUniqueViolation, jsonb, versionedReplace, type Row } from './pg-support.js';

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

/** Record -> row of `accounts`. */
function toRow(record: StoredAccount): Row & { version: number } {
  return {
    id: record.id, email: record.email, email_key: emailKey(record.email), password_hash: record.passwordHash,
    verified: record.verified, verification_code_hash: record.verificationCodeHash,
    verification_expires_at: record.verificationExpiresAt, verification_attempts: record.verificationAttempts,
    created_at: record.createdAt, password_reset: jsonb(record.passwordReset), two_factor: jsonb(record.twoFactor ?? null),
    version: record.version,
  };
}

/** Row of `accounts` -> record. */
function fromRow(row: Row): StoredAccount {
  return {
    id: row['id'] as number, email: row['email'] as string, emailLower: row['email_key'] as string,
    passwordHash: row['password_hash'] as string,
    verified: row['verified'] as boolean, verificationCodeHash: row['verification_code_hash'] as string | null,
    verificationExpiresAt: row['verification_expires_at'] as number | null,
    verificationAttempts: row['verification_attempts'] as number, createdAt: row['created_at'] as number,
    passwordReset: row['password_reset'] as StoredAccount['passwordReset'], twoFactor: row['two_factor'] as StoredAccount['twoFactor'],
    version: row['version'] as number,
  };
}

/**
 * Accounts; the partial unique index on the folded e-mail of verified accounts makes "one owner per e-mail" hold
 * between processes, while pending registrations of an e-mail are many.
 */
export class PgAccountRepository implements AccountRepository {
  constructor(private readonly pool: pg.Pool) {}

  create(account: Account): Promise<boolean> {
    return guarded('account create', async () => {
      try {
        await insertRow(this.pool, 'accounts', toRow(toStoredAccount(account)));
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
    return guarded('account read', () => this.findOne('id', id));
  }

  findByEmail(email: string): Promise<Account | null> {
    return guarded('account read', async () => {
      const { rows } = await this.pool.query('SELECT * FROM accounts WHERE email_key = $1 AND verified', [emailKey(email)]);
      return rows.length === 0 ? null : fromStoredAccount(fromRow(rows[0] as Row));
    });
  }

  listPendingByEmail(email: string): Promise<Account[]> {
    return guarded('account read', async () => {
      const { rows } = await this.pool.query(
        'SELECT * FROM accounts WHERE email_key = $1 AND NOT verified ORDER BY created_at, id', [emailKey(email)],
      );
      return rows.map((row) => fromStoredAccount(fromRow(row as Row)));
    });
  }

  update(account: Account): Promise<void> {
    return guarded('account update', async () => {
      try {
        const written = await versionedReplace(this.pool, 'accounts', { column: 'id', value: account.id }, toRow(toStoredAccount(account)));
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
        const written = await versionedReplace(client, 'accounts', { column: 'id', value: account.id }, toRow(toStoredAccount(account)));
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

  private async findOne(column: 'id' | 'email_key', value: unknown): Promise<Account | null> {
    const { rows } = await this.pool.query(`SELECT * FROM accounts WHERE ${column} = $1`, [value]);
    return rows.length === 0 ? null : fromStoredAccount(fromRow(rows[0] as Row));
  }
}
