import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { describeWithdrawalPolicyRepositoryContract } from '../../contracts-tests/withdrawal-policy-repository.contract.js';
import { PgCommandRepository } from './pg-command-repository.js';
import { PgUnitOfWork } from './pg-unit-of-work.js';
import { PgWithdrawalPolicyRepository } from './pg-withdrawal-policy-repository.js';
import { usePgTestStore } from './testing/pg-test-store.js';

/** Expensive property runs (each run empties the database): fewer than the suites' default of 50. */
const OPTIONS = { numRuns: 15, concurrency: 20 } as const;

describeWithPostgres('PostgreSQL store: withdrawal policies (issue #26)', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'policies');

  const fresh = async () => {
    await open().clear();
    const { pool } = open().connection;
    return { withdrawalPolicies: new PgWithdrawalPolicyRepository(pool), uow: new PgUnitOfWork(pool), commands: new PgCommandRepository(pool) };
  };

  describeWithdrawalPolicyRepositoryContract('postgres', fresh, OPTIONS);
});
