import { DEFAULT_SUB_ADDRESS_PLAN, type SubAddressPlan } from '../domain/wallet-rules.js';
import type { AssetRegistry } from '../domain/assets.js';
import type { WithdrawalFeeCheck } from './worker/withdrawal-funding-plan.js';
import type { AccountRepository } from '../ports/account-repository.port.js';
import type { AddressLock } from '../ports/address-lock.port.js';
import type { AuditLog } from '../ports/audit-log.port.js';
import type { Ledger } from '../ports/ledger.port.js';
import type { ApiTokenRepository } from '../ports/api-token-repository.port.js';
import type { BalanceRepository } from '../ports/balance-repository.port.js';
import type { CashierTokenRepository } from '../ports/cashier-token-repository.port.js';
import type { ChainGateway } from '../ports/chain-gateway.port.js';
import type { Clock } from '../ports/clock.port.js';
import type { CollectionTaskRepository } from '../ports/collection-task-repository.port.js';
import type { CommandRepository } from '../ports/command-repository.port.js';
import type { DepositRepository } from '../ports/deposit-repository.port.js';
import type { DeveloperConfigRepository } from '../ports/developer-config-repository.port.js';
import type { DnsResolver } from '../ports/dns-resolver.port.js';
import type { IdGenerator } from '../ports/id-generator.port.js';
import type { EventOutbox } from '../ports/event-outbox.port.js';
import type { KeyCipher } from '../ports/key-cipher.port.js';
import type { Mailer } from '../ports/mailer.port.js';
import type { MemberRepository } from '../ports/member-repository.port.js';
import type { RiskPolicy } from '../ports/risk-policy.port.js';
import type { SecretHasher } from '../ports/secret-hasher.port.js';
import type { SessionRepository } from '../ports/session-repository.port.js';
import type { SubscriptionRepository } from '../ports/subscription-repository.port.js';
import type { TotpGenerator } from '../ports/totp-generator.port.js';
import type { UnitOfWork } from '../ports/unit-of-work.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';
import type { WebhookDeliveryRepository } from '../ports/webhook-delivery-repository.port.js';
import type { WebhookTransport } from '../ports/webhook-transport.port.js';
import type { WithdrawalPolicyRepository } from '../ports/withdrawal-policy-repository.port.js';
import type { SweepCheck } from './collection-starter.js';

/** Tunables of the use cases; every one has a default in DEFAULT_CORE_SETTINGS. */
export interface CoreSettings {
  /** Lifetime of an `st_` session token. */
  readonly sessionTtlMs: number;
  /** Minimum gap between two chain refreshes of one address unless `force: true`. */
  readonly refreshCooldownMs: number;
  /** Lifetime of the short AddressLock around check-then-create. */
  readonly addressLockTtlMs: number;
  /** Lifetime of an e-mail verification code. */
  readonly verificationTtlMs: number;
  /**
   * Wrong codes accepted before a registration's code is burnt (a new registration is needed); a wrong code counts
   * against every live pending registration of the e-mail (issue #26 item 6).
   */
  readonly verificationMaxAttempts: number;
  /**
   * How long a pending registration is kept before the hourly job deletes it. It never holds its e-mail meanwhile:
   * any number may be pending, and the first verified owns the e-mail (issue #26 item 6).
   */
  readonly unverifiedAccountTtlMs: number;
  /** Lifetime of a password-reset code (issue #14). */
  readonly passwordResetTtlMs: number;
  /** Wrong codes accepted before a reset code is burnt (a new reset request is needed), as for verification. */
  readonly passwordResetMaxAttempts: number;
  /** Test-only allowance: loopback/private webhook hosts and plain http (never on in production). */
  readonly allowLocalWebhooks: boolean;
  /** Random bytes in every `st_`, `dk_`, `ct_` token (DESIGN.md: at least 32). */
  readonly tokenBytes: number;
  /** Unrevoked Developer API Tokens one user may hold (issue #13: each is kept for ever until revoked). */
  readonly maxApiTokensPerUser: number;
  /** Cooling-off delay of a new allow-list entry before it may be paid (WITHDRAWAL_ALLOWLIST_DELAY_H, issue #26). */
  readonly allowListDelayMs: number;
  /** How long a loosening of the withdrawal policy waits before it takes effect (POLICY_CHANGE_DELAY_H, issue #35 item 3). */
  readonly policyChangeDelayMs: number;
  /** The `sub_address` plan an activation without `plan_code` gives (DEFAULT_SUB_ADDRESS_PLAN; DESIGN.md: starter). */
  readonly defaultSubAddressPlan: SubAddressPlan;
}

export const DEFAULT_CORE_SETTINGS: CoreSettings = {
  sessionTtlMs: 24 * 60 * 60 * 1000,
  refreshCooldownMs: 30_000,
  addressLockTtlMs: 10_000,
  verificationTtlMs: 15 * 60 * 1000,
  verificationMaxAttempts: 5,
  unverifiedAccountTtlMs: 24 * 60 * 60 * 1000,
  passwordResetTtlMs: 30 * 60 * 1000,
  passwordResetMaxAttempts: 5,
  allowLocalWebhooks: false,
  tokenBytes: 32,
  maxApiTokensPerUser: 25,
  allowListDelayMs: 24 * 60 * 60 * 1000,
  policyChangeDelayMs: 24 * 60 * 60 * 1000,
  defaultSubAddressPlan: DEFAULT_SUB_ADDRESS_PLAN,
};

/**
 * Everything the use cases need: the ports (one field each) and the settings. Hosts build it from adapters;
 * tests from the memory adapters. `settings` may be partial: missing values come from DEFAULT_CORE_SETTINGS.
 */
export interface CoreDeps {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly hasher: SecretHasher;
  readonly cipher: KeyCipher;
  /** RFC 6238 codes and key URIs for two-factor (issue #26 item 3). */
  readonly totp: TotpGenerator;
  readonly mailer: Mailer;
  readonly dns: DnsResolver;
  readonly transport: WebhookTransport;
  readonly risk: RiskPolicy;
  readonly addressLock: AddressLock;
  readonly chain: ChainGateway;
  readonly assets: AssetRegistry;
  readonly accounts: AccountRepository;
  readonly sessions: SessionRepository;
  readonly subscriptions: SubscriptionRepository;
  readonly apiTokens: ApiTokenRepository;
  readonly wallets: WalletRepository;
  readonly balances: BalanceRepository;
  /** Written by the balance scanner; read by the deposit routes. */
  readonly deposits: DepositRepository;
  readonly commands: CommandRepository;
  readonly tasks: CollectionTaskRepository;
  readonly cashierTokens: CashierTokenRepository;
  readonly developerConfigs: DeveloperConfigRepository;
  readonly deliveries: WebhookDeliveryRepository;
  /** Read only, by the delivery log and redelivery (an event's payload); the worker writes it. */
  readonly outbox: EventOutbox;
  readonly uow: UnitOfWork;
  /** Withdrawal policies and allow-lists (issue #26); the velocity limits are judged by `uow`. */
  readonly withdrawalPolicies: WithdrawalPolicyRepository;
  /**
   * Refuses a withdrawal from a sub-address whose fees the main address cannot fund, before its command exists
   * (issue #34; see WithdrawalFeeCheck). Wired by the composition; absent, the worker's plan at PENDING decides.
   */
  readonly withdrawalFees?: WithdrawalFeeCheck;
  /** The per-account hash-chained audit log; write it through AuditTrail (core/application/audit-trail.ts). */
  readonly auditLog: AuditLog;
  /** The books (issue #36): read by the ledger routes; written by the worker (ledger-bookings.ts). */
  readonly ledger: Ledger;
  /** Teams (issue #35 item 1); absent (the MongoDB store today): every account is solo. */
  readonly members?: MemberRepository;
  /**
   * Refuses a collection whose energy cannot be had, before its task exists (issue #34; see SweepCheck). Wired by the
   * composition from the worker's planner; absent, the task's own planning at PENDING decides.
   */
  readonly sweepCheck?: SweepCheck;
  readonly settings?: Partial<CoreSettings>;
}

/** CoreDeps with the settings completed. Each use case takes a `Pick` of it naming the ports it touches. */
export interface ResolvedDeps extends Omit<CoreDeps, 'settings'> {
  readonly settings: CoreSettings;
}

/** Fills missing settings from the defaults. */
export function resolveDeps(deps: CoreDeps): ResolvedDeps {
  return { ...deps, settings: { ...DEFAULT_CORE_SETTINGS, ...deps.settings } };
}
