import { MemoryStore } from '../../adapters/memory/memory-store.js';
import { describeWalletKeyStoreContract } from './wallet-key-store.contract.js';
import { MemoryWalletKeys } from './wallet-key-stores.js';

describeWalletKeyStoreContract('memory', () => ({ walletKeys: new MemoryWalletKeys(new MemoryStore()) }));
