import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { describeEncryptedRecordStoreContract } from '../../contracts-tests/encrypted-record-store.contract.js';
import { describeWalletKeyStoreContract } from '../../contracts-tests/wallet-key-store.contract.js';
import { ManualClock } from '../memory/manual-clock.js';
import { createPostgresAdapters } from './create-postgres-adapters.js';
import { PgEncryptedRecords } from './pg-encrypted-records.js';
import { PgIdGenerator } from './pg-id-generator.js';
import { PgWalletKeys } from './pg-wallet-keys.js';
import { usePgTestStore } from './testing/pg-test-store.js';

// The key backup and rotation ports (keys:export, keys:import, keys:rotate) against PostgreSQL, one database for the
// file, emptied before every subject.
describeWithPostgres('PostgreSQL store: key backup and rotation ports', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'key_stores');
  describeWalletKeyStoreContract('postgres', async () => {
    await open().clear();
    return { walletKeys: new PgWalletKeys(open().connection.pool), ids: new PgIdGenerator(open().connection.pool) };
  });
  describeEncryptedRecordStoreContract('postgres', async () => {
    await open().clear();
    const adapters = createPostgresAdapters({ connection: open().connection, clock: new ManualClock() });
    return { ...adapters, records: new PgEncryptedRecords(open().connection.pool) };
  });
});
