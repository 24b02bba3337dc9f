import { MemoryIdGenerator } from '../../adapters/memory/memory-id-generator.js';
import { MemoryStore } from '../../adapters/memory/memory-store.js';
import { describeWalletKeyStoreContract } from './wallet-key-store.checks.js';
import { MemoryWalletKeys } from './wallet-key-stores.js';

describeWalletKeyStoreContract('memory', () => {
  const store = new MemoryStore();
  return { walletKeys: new MemoryWalletKeys(store), ids: new MemoryIdGenerator(store) };
});
