import { describeScanCursorStoreContract } from '../../contracts-tests/scan-cursor-store.contract.js';
import { MemoryScanCursorStore } from './memory-scan-cursor-store.js';

describeScanCursorStoreContract('memory', () => ({ cursors: new MemoryScanCursorStore() }));
