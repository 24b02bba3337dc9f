import { describeOperatorStatusStoreContract } from '../../contracts-tests/operator-status-store.contract.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { PgOperatorStatusStore } from './pg-operator-status-store.js';
import { usePgTestStore } from './testing/pg-test-store.js';

describeWithPostgres('PostgreSQL store: operator status', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'operator_status');
  describeOperatorStatusStoreContract('postgres', async () => {
    await open().clear();
    return { status: new PgOperatorStatusStore(open().connection.pool) };
  }, { numRuns: 15 });
});
