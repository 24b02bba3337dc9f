import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Account, Millis, UserId } from '../../core/domain/model/index.js';
import type { AccountRepository } from '../../core/ports/account-repository.port.js';
import { fromStoredAccount, toStoredAccount, type StoredAccount } from '../records/account-record.js';
import { guarded, insertRow, isUniqueViolation, jsonb, versionedReplace, type Row } from './pg-support.js';

/** The unique constraint behind "one account per e-mail, case-insensitively". */
export const ACCOUNT_EMAIL_CONSTRAINT = 'accounts_email_key_unique';

/**
 * The e-mail as the unique rule compares it: folded here rather than by PostgreSQL's lower(), which follows the
 * database's locale (under C it leaves 'É' alone), so that every store and every server agree on which addresses clash.
 */
export function emailKey(email: string): string {
  return email.toLowerCase();
}

/** Record -> row of `accounts`. */
function toRow(record: StoredAccount): Row & { version: number } {
  return {
    id: record.id, email: record.email, email_key: emailKey(record.email), password_hash: record.passwordHash,
    verified: record.verified, verification_code_hash: record.verificationCodeHash,
    verification_expires_at: record.verificationExpiresAt, verification_attempts: record.verificationAttempts,
    created_at: record.createdAt, password_reset: jsonb(record.passwordReset), version: record.version,
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
    passwordReset: row['password_reset'] as StoredAccount['passwordReset'], version: row['version'] as number,
  };
}

/** Accounts; the unique constraint on the folded e-mail makes the case-insensitive rule hold between processes. */
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
        if (isUniqueViolation(error, ACCOUNT_EMAIL_CONSTRAINT) || (await this.findByEmail(account.email)) !== null) return false;
        throw new ConcurrencyConflict('account', String(account.id));
      }
    });
  }

  findById(id: UserId): Promise<Account | null> {
    return guarded('account read', () => this.findOne('id', id));
  }

  findByEmail(email: string): Promise<Account | null> {
    return guarded('account read', () => this.findOne('email_key', emailKey(email)));
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

  deleteUnverifiedCreatedBefore(createdBefore: Millis): Promise<number> {
    return guarded('account expiry', async () => {
      // One statement: a row updated meanwhile (verified, or taken over with a new createdAt) is re-checked against
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
