import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import {
  assertBookable, bookedEntries, ledgerAccountKey, type LedgerBalance, type LedgerEntry, type LedgerTransaction,
} from '../../core/domain/ledger.js';
import type { UserId } from '../../core/domain/model/common.js';
import type { Ledger, LedgerEntryFilter, LedgerPosting } from '../../core/ports/ledger.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { fromStoredLedgerEntry, toStoredLedgerEntry, type StoredLedgerEntry } from '../records/ledger-record.js';
import { guarded, inTransaction, pageOf, type Queryable, type Row } from './pg-support.js';

const COLUMNS = [
  'entry_id', 'transaction_id', 'user_id', 'occurred_at', 'account_key', 'kind', 'network_code', 'asset_symbol', 'address', 'amount',
  'balance_after', 'cause_type', 'cause_id', 'cause_txid', 'reverses',
] as const;

/** Record -> the row's values, in COLUMNS order (money as decimal strings: NUMERIC takes them exactly). */
function rowValues(r: StoredLedgerEntry): unknown[] {
  return [r.id, r.transactionId, r.userId, r.occurredAt, r.accountKey, r.kind, r.networkCode, r.assetSymbol, r.address, r.amount,
    r.balanceAfter, r.causeType, r.causeId, r.causeTxid, r.reverses];
}

/** Row of `ledger_entries` -> domain value (NUMERIC arrives as a string, BIGINT as a number). */
function entryFromRow(row: Row): LedgerEntry {
  return fromStoredLedgerEntry({
    id: row['entry_id'] as string, transactionId: row['transaction_id'] as string, userId: Number(row['user_id']),
    occurredAt: Number(row['occurred_at']), accountKey: row['account_key'] as string, kind: row['kind'] as StoredLedgerEntry['kind'],
    networkCode: row['network_code'] as string, assetSymbol: row['asset_symbol'] as string, address: row['address'] as string | null,
    amount: row['amount'] as string, balanceAfter: row['balance_after'] as string, causeType: row['cause_type'] as string,
    causeId: row['cause_id'] as string, causeTxid: row['cause_txid'] as string | null, reverses: row['reverses'] as string | null,
    seq: Number(row['seq']),
  });
}

const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The Ledger port on PostgreSQL. A post is one transaction (a savepoint inside UnitOfWork.atomically): the cause's
 * row first (the unique (user, cause) constraint: a racing post of the same cause waits for the first's commit, then
 * writes nothing and reads the first's entries), then each account's balance row locked in key order (an upsert that
 * returns the balance: the row lock serialises posts to one account, and the order rules out deadlocks), then the
 * entries with their balances after, then the new balances. READ COMMITTED suffices: every value written is computed
 * from rows this transaction holds locked.
 */
export class PgLedger implements Ledger {
  constructor(private readonly pool: pg.Pool) {}

  async post(transaction: LedgerTransaction): Promise<LedgerPosting> {
    assertBookable(transaction);
    return guarded('ledger post', () => inTransaction(this.pool, async (client) => {
      const { userId, cause } = transaction;
      const claimed = await client.query(
        `INSERT INTO ledger_transactions (transaction_id, user_id, cause_type, cause_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
        [transaction.transactionId, userId, cause.type, cause.id],
      );
      if (claimed.rowCount !== 1) {
        const { rows } = await client.query<{ transaction_id: string }>(
          'SELECT transaction_id FROM ledger_transactions WHERE user_id = $1 AND cause_type = $2 AND cause_id = $3', [userId, cause.type, cause.id],
        );
        // Not the cause: the transaction id is another cause's.
        if (rows.length === 0) throw new ConcurrencyConflict('ledger transaction', transaction.transactionId);
        return { created: false, entries: await this.transactionEntries(client, rows[0]!.transaction_id) };
      }
      // Every account row created if new and locked, in key order (the rows are written in the SELECT's order), in one
      // statement that answers the balances as locked.
      const keys = [...new Set(transaction.lines.map((l) => ledgerAccountKey(l.account)))].sort(byKey);
      const locked = await client.query<{ account_key: string; balance: string }>(
        `INSERT INTO ledger_accounts (user_id, account_key, balance)
         SELECT $1, k, 0 FROM unnest($2::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n
         ON CONFLICT (user_id, account_key) DO UPDATE SET balance = ledger_accounts.balance RETURNING account_key, balance`, [userId, keys],
      );
      const balances = new Map(locked.rows.map((r) => [r.account_key, BigInt(r.balance)]));
      const { entries, balances: after } = bookedEntries(transaction, (key) => balances.get(key)!);
      const values = entries.flatMap((e) => rowValues(toStoredLedgerEntry(e, 0)));
      const tuples = entries.map((_, i) => `(${COLUMNS.map((__, j) => `$${i * COLUMNS.length + j + 1}`).join(', ')})`);
      await client.query(`INSERT INTO ledger_entries (${COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`, values);
      await client.query(
        `UPDATE ledger_accounts a SET balance = v.balance::numeric FROM unnest($2::text[], $3::text[]) AS v(k, balance)
         WHERE a.user_id = $1 AND a.account_key = v.k`,
        [userId, [...after.keys()], [...after.values()].map((b) => b.toString())],
      );
      return { created: true, entries };
    }));
  }

  entries(userId: UserId, filter: LedgerEntryFilter, page: PageRequest): Promise<Page<LedgerEntry>> {
    return guarded('ledger entries', () => {
      const params: unknown[] = [userId];
      let where = 'user_id = $1';
      if (filter.from !== undefined) where += ` AND occurred_at >= $${params.push(filter.from)}`;
      if (filter.to !== undefined) where += ` AND occurred_at <= $${params.push(filter.to)}`;
      if (filter.address !== undefined) where += ` AND address = $${params.push(filter.address)}`;
      if (filter.assetSymbol !== undefined) where += ` AND asset_symbol = $${params.push(filter.assetSymbol)}`;
      if (filter.kind !== undefined) where += ` AND kind = $${params.push(filter.kind)}`;
      if (filter.causeType !== undefined) where += ` AND cause_type = $${params.push(filter.causeType)}`;
      return pageOf(this.pool, { table: 'ledger_entries', where, order: 'seq', params }, entryFromRow, page);
    });
  }

  balancesAt(userId: UserId, at: number): Promise<LedgerBalance[]> {
    return guarded('ledger balances', async () => {
      // One probe of ledger_entries_by_account per account the user has (not a scan of the user's entries).
      const { rows } = await this.pool.query(
        `SELECT e.* FROM ledger_accounts a CROSS JOIN LATERAL (
           SELECT * FROM ledger_entries WHERE user_id = a.user_id AND account_key = a.account_key AND occurred_at <= $2
           ORDER BY occurred_at DESC, seq DESC LIMIT 1) e
         WHERE a.user_id = $1`,
        [userId, at],
      );
      return (rows as Row[]).map(entryFromRow).sort((a, b) => byKey(ledgerAccountKey(a.account), ledgerAccountKey(b.account)))
        .map((e) => ({ account: e.account, balance: e.balanceAfter }));
    });
  }

  usersWithBooks(after: UserId | null, limit: number): Promise<UserId[]> {
    return guarded('ledger users', async () => {
      // A skip scan over ledger_accounts' primary key (user_id first): one probe per user, not a scan of the accounts.
      const { rows } = await this.pool.query<{ user_id: string }>(
        `WITH RECURSIVE users AS (
           (SELECT user_id FROM ledger_accounts WHERE user_id > $1 ORDER BY user_id LIMIT 1)
           UNION ALL
           SELECT (SELECT a.user_id FROM ledger_accounts a WHERE a.user_id > u.user_id ORDER BY a.user_id LIMIT 1) FROM users u WHERE u.user_id IS NOT NULL
         )
         SELECT user_id FROM users WHERE user_id IS NOT NULL LIMIT $2`,
        [after ?? -1, limit],
      );
      return rows.map((r) => Number(r.user_id));
    });
  }

  private async transactionEntries(q: Queryable, transactionId: string): Promise<LedgerEntry[]> {
    const { rows } = await q.query('SELECT * FROM ledger_entries WHERE transaction_id = $1 ORDER BY seq', [transactionId]);
    return (rows as Row[]).map(entryFromRow);
  }
}
