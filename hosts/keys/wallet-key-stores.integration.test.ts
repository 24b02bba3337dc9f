import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { PgIdGenerator } from '../../adapters/postgres/pg-id-generator.js';
import { usePgTestStore } from '../../adapters/postgres/testing/pg-test-store.js';
import { describeWalletKeyStoreContract } from './wallet-key-store.checks.js';
import { PgWalletKeys } from './wallet-key-stores.js';

describeWithPostgres('PostgreSQL store: wallet keys (keys:export / keys:import)', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'wallet_keys');
  describeWalletKeyStoreContract('postgres', async () => {
    await open().clear();
    return { walletKeys: new PgWalletKeys(open().connection.pool), ids: new PgIdGenerator(open().connection.pool) };
  });
});
