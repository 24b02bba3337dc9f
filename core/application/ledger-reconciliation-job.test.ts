import { describe, it } from 'vitest';
import { MemoryOperatorStatusStore } from '../../adapters/memory/memory-operator-status-store.js';
import { reconciliationStateScenario } from '../../contracts-tests/support/reconciliation-state.js';

/** Issue #36 item 3: the reconciliation job's state between passes is the store's, not the process's (PostgreSQL: pg-operator-status.integration.test.ts). */
describe('the reconciliation job keeps its state in the store', () => {
  it('memory: a restarted or second worker continues the count; racing passes report a difference once', async () => {
    await reconciliationStateScenario(new MemoryOperatorStatusStore());
  });
});
