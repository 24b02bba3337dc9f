import { describeAccountRepositoryContract } from '../../contracts-tests/account-repository.contract.js';
import { describeApiTokenRepositoryContract } from '../../contracts-tests/api-token-repository.contract.js';
import { describeAuditLogContract } from '../../contracts-tests/audit-log.contract.js';
import { describeBalanceRepositoryContract } from '../../contracts-tests/balance-repository.contract.js';
import { describeCashierTokenRepositoryContract } from '../../contracts-tests/cashier-token-repository.contract.js';
import { describeCollectionTaskRepositoryContract } from '../../contracts-tests/collection-task-repository.contract.js';
import { describeCommandRepositoryContract } from '../../contracts-tests/command-repository.contract.js';
import { describeDepositRepositoryContract } from '../../contracts-tests/deposit-repository.contract.js';
import { describeDeveloperConfigRepositoryContract } from '../../contracts-tests/developer-config-repository.contract.js';
import { describeWithdrawalPolicyRepositoryContract } from '../../contracts-tests/withdrawal-policy-repository.contract.js';
import { describeEventOutboxContract } from '../../contracts-tests/event-outbox.contract.js';
import { describeIdempotencyStoreContract } from '../../contracts-tests/idempotency-store.contract.js';
import { describeLedgerContract } from '../../contracts-tests/ledger.contract.js';
import { describeMemberRepositoryContract } from '../../contracts-tests/member-repository.contract.js';
import { describeRiskPolicyContract } from '../../contracts-tests/risk-policy.contract.js';
import { describeSessionRepositoryContract } from '../../contracts-tests/session-repository.contract.js';
import { describeSubscriptionRepositoryContract } from '../../contracts-tests/subscription-repository.contract.js';
import { describeAtomicScopeContract } from '../../contracts-tests/atomic-scope.contract.js';
import { describeUnitOfWorkContract } from '../../contracts-tests/unit-of-work.contract.js';
import { describeWalletRepositoryContract } from '../../contracts-tests/wallet-repository.contract.js';
import { describeWalletKeyStoreContract } from '../../contracts-tests/wallet-key-store.contract.js';
import { describeEncryptedRecordStoreContract } from '../../contracts-tests/encrypted-record-store.contract.js';
import { describeWebhookDeliveryRepositoryContract } from '../../contracts-tests/webhook-delivery-repository.contract.js';
import { createMemoryAdapters } from './create-memory-adapters.js';
import { ManualClock } from './manual-clock.js';
import { MemoryEncryptedRecords } from './memory-encrypted-records.js';
import { MemoryWalletKeys } from './memory-wallet-keys.js';

// Every store-port contract suite against the memory adapters; each subject is a fresh store.
const fresh = () => createMemoryAdapters({ clock: new ManualClock() });

describeAccountRepositoryContract('memory', fresh);
describeSessionRepositoryContract('memory', fresh);
describeSubscriptionRepositoryContract('memory', fresh);
describeApiTokenRepositoryContract('memory', fresh);
describeMemberRepositoryContract('memory', fresh);
describeAuditLogContract('memory', fresh);
describeWalletRepositoryContract('memory', fresh);
describeBalanceRepositoryContract('memory', fresh);
describeDepositRepositoryContract('memory', fresh);
describeCommandRepositoryContract('memory', fresh);
describeCollectionTaskRepositoryContract('memory', fresh);
describeCashierTokenRepositoryContract('memory', fresh);
describeDeveloperConfigRepositoryContract('memory', fresh);
describeEventOutboxContract('memory', fresh);
describeWebhookDeliveryRepositoryContract('memory', fresh);
describeRiskPolicyContract('memory', fresh);
describeWithdrawalPolicyRepositoryContract('memory', fresh);
describeLedgerContract('memory', fresh);
describeUnitOfWorkContract('memory', fresh, { reference: fresh });
describeAtomicScopeContract('memory', fresh, { isolation: 'serial' });
describeIdempotencyStoreContract('memory', () => {
  const clock = new ManualClock();
  return { idempotency: createMemoryAdapters({ clock }).idempotency, clock };
});
describeWalletKeyStoreContract('memory', () => {
  const adapters = fresh();
  return { walletKeys: new MemoryWalletKeys(adapters.store), ids: adapters.ids };
});
describeEncryptedRecordStoreContract('memory', () => {
  const adapters = fresh();
  return { ...adapters, records: new MemoryEncryptedRecords(adapters.store) };
});
