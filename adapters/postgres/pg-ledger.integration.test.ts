import { expect, it } from 'vitest';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { aLedgerDeposit, describeLedgerContract } from '../../contracts-tests/ledger.contract.js';
import { PgLedger } from './pg-ledger.js';
import { PgUnitOfWork } from './pg-unit-of-work.js';
import { usePgTestStore } from './testing/pg-test-store.js';

/** Each property run empties the database: fewer runs than the suite's default; 20 concurrent posts (the pool's size). */
const OPTIONS = { numRuns: 10, concurrency: 20 } as const;

describeWithPostgres('PostgreSQL store: the ledger', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'ledger');

  const fresh = async () => {
    await open().clear();
    return { ledger: new PgLedger(open().connection.pool) };
  };

  describeLedgerContract('postgres', fresh, OPTIONS);

  // Adapter-only: the stored rows and the atomic scope, which the shared suite cannot see.
  it('stores money as signed NUMERIC, keeps the running balance row, and a throw in an atomic scope leaves no entry', async () => {
    const { ledger } = await fresh();
    const { pool } = open().connection;
    await ledger.post(aLedgerDeposit(1, { amount: 2n ** 80n }));
    const { rows } = await pool.query(`SELECT account_key, balance::text AS balance FROM ledger_accounts ORDER BY account_key`);
    expect(rows).toEqual([
      { account_key: expect.stringContaining('|TRX|custodial|'), balance: (2n ** 80n).toString() },
      { account_key: 'TRON|TRX|external_in|', balance: (-(2n ** 80n)).toString() },
    ]);
    const uow = new PgUnitOfWork(pool);
    await expect(uow.atomically(async () => {
      await ledger.post(aLedgerDeposit(2));
      throw new Error('crash before commit');
    })).rejects.toThrow('crash before commit');
    expect((await ledger.entries(1, {}, { offset: 0, limit: 10 })).total).toBe(2);
    expect((await ledger.post(aLedgerDeposit(2))).created).toBe(true);
  });
});
