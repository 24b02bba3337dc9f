import type pg from 'pg';
import { DomainError } from '../../core/domain/errors.js';
import { COMMAND_STATUS, COMMAND_TYPE, type AllowListEntry, type UserId, type WithdrawalPolicy } from '../../core/domain/model/index.js';
import {
  VELOCITY_AMOUNT_WINDOW_MS, VELOCITY_COUNT_WINDOW_MS, velocityRefusal, type VelocityCharge,
} from '../../core/domain/withdrawal-policy-rules.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import type { WithdrawalPolicyRepository } from '../../core/ports/withdrawal-policy-repository.port.js';
import { ALLOW_LIST_ENTRY_RECORD, WITHDRAWAL_POLICY_RECORD } from '../records/withdrawal-policy-record.js';
import { guarded, inTransaction, type Queryable } from './pg-support.js';
import { PgTable } from './pg-table.js';

/** Advisory-lock classes (two-key form, apart from the migrator's one-key lock): one account's allow-list, its velocity. */
const ALLOW_LIST_LOCK = 2601;
const VELOCITY_LOCK = 2602;

/** The `withdrawal_policies` and `allow_list_entries` tables, from the records' descriptors. */
const POLICIES = new PgTable(WITHDRAWAL_POLICY_RECORD);
const ENTRIES = new PgTable(ALLOW_LIST_ENTRY_RECORD);

/**
 * ChangeSet.velocity inside the unit of work's transaction: a transaction-scoped advisory lock of the user makes
 * parallel commits of that user (in any process) judge one after the other; under READ COMMITTED the totals query,
 * run after the lock is granted, sees every withdrawal committed before it (the lock holder's included). The totals
 * equal withdrawal-policy-rules.ts velocityTotals.
 */
export async function checkVelocity(q: Queryable, charge: VelocityCharge): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock($1, hashtext($2::text))', [VELOCITY_LOCK, String(charge.userId)]);
  const { rows } = await q.query<{ amount: string; count: string }>(
    `SELECT coalesce(sum(locked_amount), 0)::text AS amount, count(*) FILTER (WHERE created_at > $4)::text AS count
       FROM commands
      WHERE user_id = $1 AND asset_symbol = $2 AND type = ${COMMAND_TYPE.WITHDRAWAL}
        AND status NOT IN (${COMMAND_STATUS.REJECTED}, ${COMMAND_STATUS.CANCELLED}) AND created_at > $3`,
    [charge.userId, charge.assetSymbol, charge.at - VELOCITY_AMOUNT_WINDOW_MS, charge.at - VELOCITY_COUNT_WINDOW_MS],
  );
  const totals = { amount24h: BigInt(rows[0]!.amount), count1h: Number(rows[0]!.count) };
  const refusal = velocityRefusal(totals, charge);
  if (refusal !== null) throw new DomainError(refusal);
}

/** Withdrawal policies (optimistic versions) and allow-lists on PostgreSQL. */
export class PgWithdrawalPolicyRepository implements WithdrawalPolicyRepository {
  constructor(private readonly pool: pg.Pool) {}

  get(userId: UserId): Promise<WithdrawalPolicy | null> {
    return guarded('withdrawal policy read', () => POLICIES.get(this.pool, userId));
  }

  save(policy: WithdrawalPolicy): Promise<void> {
    return guarded('withdrawal policy save', () => POLICIES.save(this.pool, policy));
  }

  listPendingApprovalUrls(): Promise<WithdrawalPolicy[]> {
    return guarded('withdrawal policy list', () => POLICIES.select(this.pool, 'approval_pending_url IS NOT NULL', [],
      'approval_pending_since NULLS FIRST, inserted_seq'));
  }

  addAllowListEntry(entry: AllowListEntry, maxEntries: number): Promise<'created' | 'exists' | 'full'> {
    return guarded('allow-list add', () => inTransaction(this.pool, async (client) => {
      // One account's adds are judged one at a time, so the cap holds under racing adds.
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2::text))', [ALLOW_LIST_LOCK, String(entry.userId)]);
      const { rows } = await client.query<{ n: number; listed: boolean }>(
        'SELECT count(*)::int AS n, bool_or(address = $2) AS listed FROM allow_list_entries WHERE user_id = $1', [entry.userId, entry.address],
      );
      if (rows[0]!.listed === true) return 'exists';
      if (rows[0]!.n >= maxEntries) return 'full';
      return (await ENTRIES.insertOnce(client, entry, `(${ENTRIES.key})`)) ? 'created' : 'exists';
    }));
  }

  findAllowListEntry(userId: UserId, address: string): Promise<AllowListEntry | null> {
    return guarded('allow-list read', () => ENTRIES.get(this.pool, { userId, address }));
  }

  listAllowList(userId: UserId, page: PageRequest): Promise<Page<AllowListEntry>> {
    return guarded('allow-list list', () => ENTRIES.page(this.pool, { where: 'user_id = $1', order: 'created_at, address', params: [userId] }, page));
  }

  removeAllowListEntry(userId: UserId, address: string): Promise<boolean> {
    return guarded('allow-list remove', () => ENTRIES.delete(this.pool, { userId, address }));
  }
}
