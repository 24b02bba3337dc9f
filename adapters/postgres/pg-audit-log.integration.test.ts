import { expect, it } from 'vitest';
import { describeAuditLogContract } from '../../contracts-tests/audit-log.contract.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { sealAuditEntry } from '../../core/domain/audit-chain.js';
import { StoreError } from '../../core/domain/errors.js';
import { ManualClock } from '../memory/manual-clock.js';
import { PgAuditLog } from './pg-audit-log.js';
import { usePgTestStore } from './testing/pg-test-store.js';

describeWithPostgres('PostgreSQL store: audit log', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'audit');

  const fresh = async () => {
    await open().clear();
    return { auditLog: new PgAuditLog(open().connection.pool), clock: new ManualClock() };
  };

  describeAuditLogContract('postgres', fresh, { concurrency: 30 });

  // Adapter-only: append-only is a trigger of this schema (migration 0014); no port method updates or deletes.
  it('the table refuses UPDATE and DELETE of an entry', async () => {
    const { auditLog } = await fresh();
    expect(await auditLog.insert(sealAuditEntry(null, { userId: 1, action: 'auth.login', actor: { kind: 'user', id: null } }, 1))).toBe(true);
    const { pool } = open().connection;
    await expect(pool.query(`UPDATE audit_entries SET action = 'auth.login_failed'`)).rejects.toThrow(/append-only \(UPDATE refused\)/);
    await expect(pool.query('DELETE FROM audit_entries')).rejects.toThrow(/append-only \(DELETE refused\)/);
    expect((await auditLog.head(1))!.action).toBe('auth.login');
  });

  it('a store failure is a StoreError, not a driver error', async () => {
    const { auditLog } = await fresh();
    const { pool } = open().connection;
    await pool.query('ALTER TABLE audit_entries RENAME TO audit_entries_away');
    try {
      await expect(auditLog.head(1)).rejects.toBeInstanceOf(StoreError);
    } finally {
      await pool.query('ALTER TABLE audit_entries_away RENAME TO audit_entries');
    }
  });
});
