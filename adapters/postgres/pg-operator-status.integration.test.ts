import { describeOperatorStatusStoreContract } from '../../contracts-tests/operator-status-store.contract.js';
import { reconciliationStateScenario } from '../../contracts-tests/support/reconciliation-state.js';
import { it } from 'vitest';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { PgOperatorStatusStore } from './pg-operator-status-store.js';
import { usePgTestStore } from './testing/pg-test-store.js';

describeWithPostgres('PostgreSQL store: operator status', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'operator_status');
  describeOperatorStatusStoreContract('postgres', async () => {
    await open().clear();
    return { status: new PgOperatorStatusStore(open().connection.pool) };
  }, { numRuns: 15 });

  it('the reconciliation job keeps its state here (issue #36): a restarted or second worker continues the count; racing passes report a difference once', async () => {
    await open().clear();
    await reconciliationStateScenario(new PgOperatorStatusStore(open().connection.pool));
  });
});
