import { describeDepositRepositoryContract } from '../../contracts-tests/deposit-repository.contract.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { PgDepositRepository } from './pg-deposit-repository.js';
import { usePgTestStore } from './testing/pg-test-store.js';

/** Expensive property runs (each run empties the database): fewer than the suites' default of 50. */
const OPTIONS = { numRuns: 15, concurrency: 50 } as const;

describeWithPostgres('PostgreSQL store: deposits', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'deposits');

  /** A fresh, empty store sharing this file's pool; nothing to close. */
  const fresh = async () => {
    await open().clear();
    return { deposits: new PgDepositRepository(open().connection.pool) };
  };

  describeDepositRepositoryContract('postgres', fresh, OPTIONS);
});
