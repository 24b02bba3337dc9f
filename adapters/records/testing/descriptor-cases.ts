import fc from 'fast-check';
import { AUTO_COLLECT_MARKS, DEPOSIT_STATUSES, type Deposit } from '../../../core/domain/model/deposit.js';
import type { Member } from '../../../core/domain/model/member.js';
import { MEMBER_ROLES } from '../../../core/domain/team-roles.js';
import { ACCOUNT_RECORD, API_TOKEN_RECORD, SESSION_RECORD, SUBSCRIPTION_RECORD } from '../account-record.js';
import { AUDIT_ENTRY_RECORD } from '../audit-record.js';
import { CASHIER_TOKEN_RECORD } from '../cashier-token-record.js';
import { COLLECTION_TASK_RECORD } from '../collection-task-record.js';
import { COMMAND_RECORD } from '../command-record.js';
import { DEPOSIT_RECORD } from '../deposit-record.js';
import { MEMBER_RECORD } from '../member-record.js';
import { AUDIT_ACTIONS, type AuditEntry } from '../../../core/domain/model/audit.js';
import type { AllowListEntry } from '../../../core/domain/model/withdrawal-policy.js';
import type { RiskEntry } from '../../../core/ports/risk-policy.port.js';
import type { AnyDescriptor, KeyField, RecordDescriptor } from '../record-descriptor.js';
import { BALANCE_RECORD, WALLET_RECORD } from '../wallet-record.js';
import { DEVELOPER_CONFIG_RECORD, WEBHOOK_DELIVERY_RECORD, WEBHOOK_EVENT_RECORD } from '../webhook-record.js';
import { RISK_ENTRY_RECORD } from '../risk-record.js';
import { ALLOW_LIST_ENTRY_RECORD, WITHDRAWAL_POLICY_RECORD } from '../withdrawal-policy-record.js';
import {
  account, address, apiToken, balance, cashierToken, command, delivery, developerConfig, event, hex64, id, money, ms, optMs, session,
  subscription, symbol, task, version, wallet, withdrawalPolicy,
} from './record-arbitraries.js';

/** One descriptor with values of its domain type (test support for the stores' descriptor tests; no production import). */
export interface DescriptorCase {
  readonly descriptor: AnyDescriptor;
  readonly values: fc.Arbitrary<unknown>;
}

function of<D, R extends object, K extends KeyField<R>>(descriptor: RecordDescriptor<D, R, K>, values: fc.Arbitrary<D>): DescriptorCase {
  return { descriptor, values };
}

/** Allow-list entries (a key of two fields: user and address). */
export const allowListEntry: fc.Arbitrary<AllowListEntry> = fc.record({
  userId: id, address, label: fc.option(fc.string({ maxLength: 20 }), { nil: null }), createdAt: ms, activeFrom: ms,
});

/** Audit entries (a key of two fields: account and seq); the chain's hashes need not hold for the mapping. */
export const auditEntry: fc.Arbitrary<AuditEntry> = fc.record({
  userId: id, seq: fc.integer({ min: 1, max: 2 ** 40 }), at: ms, action: fc.constantFrom(...AUDIT_ACTIONS),
  actor: fc.record({
    kind: fc.constantFrom('user' as const, 'api_token' as const, 'admin' as const, 'approver' as const, 'system' as const),
    id: fc.option(fc.string({ maxLength: 20 }), { nil: null }),
  }),
  detail: fc.dictionary(fc.stringMatching(/^[a-z_]{1,12}$/), fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 4 }),
  prevHash: hex64, hash: hex64,
});

/** Deny-list entries (a key of two fields: kind and value). */
export const riskEntry: fc.Arbitrary<RiskEntry> = fc.record({
  kind: fc.constantFrom('user' as const, 'address' as const), value: fc.oneof(address, id.map(String)),
  reason: fc.option(fc.string({ maxLength: 20 }), { nil: null }),
});

/** Deposits, the optional auto-collect marks included (absent or set). */
export const deposit: fc.Arbitrary<Deposit> = fc.record({
  depositId: fc.uuid(), transferId: hex64, userId: id, address, networkCode: fc.constant('TRON' as const), assetSymbol: symbol,
  amount: money, fromAddress: address, txid: hex64, blockNumber: fc.nat(), status: fc.constantFrom(...DEPOSIT_STATUSES),
  detectedAt: ms, confirmedAt: optMs, version, autoCollect: fc.constantFrom(...AUTO_COLLECT_MARKS), autoCollectTask: fc.uuid(),
}, { requiredKeys: ['depositId', 'transferId', 'userId', 'address', 'networkCode', 'assetSymbol', 'amount', 'fromAddress', 'txid',
  'blockNumber', 'status', 'detectedAt', 'confirmedAt', 'version'] });

export const member: fc.Arbitrary<Member> = fc.record({
  id, accountId: id, email: fc.emailAddress(), role: fc.constantFrom(...MEMBER_ROLES),
  invitationHash: fc.option(hex64, { nil: null }), invitedAt: ms, userId: fc.option(id, { nil: null }), joinedAt: optMs,
});

/** Every descriptor of adapters/records but the ledger's, each with its domain values. */
export const DESCRIPTOR_CASES: readonly DescriptorCase[] = [
  of(ACCOUNT_RECORD, account), of(SESSION_RECORD, session), of(SUBSCRIPTION_RECORD, subscription), of(API_TOKEN_RECORD, apiToken),
  of(WALLET_RECORD, wallet), of(BALANCE_RECORD, balance), of(DEPOSIT_RECORD, deposit), of(COMMAND_RECORD, command),
  of(COLLECTION_TASK_RECORD, task), of(CASHIER_TOKEN_RECORD, cashierToken), of(DEVELOPER_CONFIG_RECORD, developerConfig),
  of(WEBHOOK_EVENT_RECORD, event), of(WEBHOOK_DELIVERY_RECORD, delivery), of(WITHDRAWAL_POLICY_RECORD, withdrawalPolicy),
  of(MEMBER_RECORD, member), of(ALLOW_LIST_ENTRY_RECORD, allowListEntry),
  of(RISK_ENTRY_RECORD, riskEntry), of(AUDIT_ENTRY_RECORD, auditEntry),
];
