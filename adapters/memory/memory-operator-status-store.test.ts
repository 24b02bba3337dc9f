import { describeOperatorStatusStoreContract } from '../../contracts-tests/operator-status-store.contract.js';
import { MemoryOperatorStatusStore } from './memory-operator-status-store.js';

describeOperatorStatusStoreContract('memory', () => ({ status: new MemoryOperatorStatusStore() }));
