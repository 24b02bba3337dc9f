import type { CashierToken } from '../domain/model/cashier-token.js';
import type { UserId } from '../domain/model/common.js';
import type { TeamRole } from '../domain/team-roles.js';
import type { CommandApprovalsUseCases } from './command-approvals.service.js';
import type { MembersUseCases } from './members.service.js';
import type { CollectionCostView } from './collection-cost-view.js';
import type {
  ApiTokenCreatedView, ApiTokenListView, ApiTokenRevokedView, ApiTokenView, BalanceRefreshView, CashierBalanceView, CashierSessionView, CashierTaskView,
  CashierCollectableView, CashierTokenCreatedView, CashierTokenDisabledView, CashierTokenView, ChainResourcesView, CollectionTaskView,
  CommandAcceptedView, CommandListItemView, CommandView, DeliveryView, RedeliveryView, DeveloperConfigView, ItemsPage, LoginView,
  MetaPage, PendingWebhookView, QuotaView, RegisteredView, RiskEntryView, SubscriptionView, VerifiedView,
  WalletBalanceView, WalletCreatedView, WalletView, WebhookStatusView, WebhookTestView,
} from './views.js';
import type { PasswordResetDoneView, PasswordResetRequestedView } from './views.js';
import type { CollectionTaskListItemView } from './views.js';
import type { DepositsService } from './deposits.service.js';
import type { LedgerUseCases } from './ledger.service.js';
import type { DeadDeliveryView, FailedWorkflowsView } from './admin.service.js';
import type { TwoFactorService } from './two-factor.service.js';
import type { AuditService } from './audit.service.js';
import type { WithdrawalPoliciesUseCases } from './withdrawal-policies.service.js';

/*
 * The public surface of the use cases, one interface per group. Inputs named `body`/`query` are the raw parsed JSON
 * or query object (`unknown`): every use case validates its own fields and throws DomainError VALIDATION-ERROR naming
 * the field. Path parameters are strings as they arrive. Business failures are DomainError with catalogue codes.
 */

/** Who a Developer API Token authenticates. */
export interface ApiPrincipal {
  readonly userId: UserId;
  readonly tokenId: number;
  readonly abilities: readonly string[];
}

/** An authenticated cashier (payer) request: the token record as read at authentication. */
export interface CashierContext {
  readonly token: CashierToken;
}

/** Accounts and session tokens (DESIGN.md). */
export interface AccountsService {
  /**
   * body {email, password}: 201 for every e-mail (issue #26 item 6). A pending registration gets its own 6-digit code
   * through the Mailer; an owned e-mail gets a fresh id that never becomes an account and an "account exists" mail.
   */
  register(body: unknown): Promise<RegisteredView>;
  /**
   * body {email, code}: the first verified registration of an e-mail owns it and voids the others;
   * AUTH-VERIFICATION-FAILED when wrong, expired, void or out of attempts.
   */
  verify(body: unknown): Promise<VerifiedView>;
  /**
   * body {email, password, totp_code?}: AUTH-INVALID-CREDENTIALS (unknown email too), AUTH-NOT-VERIFIED; with 2FA on
   * AUTH-TOTP-REQUIRED, AUTH-TOTP-INVALID (issue #26 item 3).
   */
  login(body: unknown): Promise<LoginView>;
  /**
   * body {email}: mails a single-use reset code to a verified account (a codeless note to any other address); the
   * answer is the same for every e-mail (issue #14).
   */
  requestPasswordReset(body: unknown): Promise<PasswordResetRequestedView>;
  /**
   * body {email, code, new_password}: sets the password, consumes the code and revokes every session of the user;
   * AUTH-RESET-FAILED when wrong, used, expired or out of attempts (an unknown e-mail too).
   */
  confirmPasswordReset(body: unknown): Promise<PasswordResetDoneView>;
  /** Deletes the accounts left unverified past unverifiedAccountTtlMs (24 h); returns how many (a maintenance job). */
  expireUnverifiedAccounts(): Promise<number>;
  /** Revokes the session; unknown tokens are ignored. */
  logout(sessionToken: string): Promise<void>;
  /** The user of a live session token, or null (unknown, expired, revoked). */
  authenticateSession(sessionToken: string): Promise<SessionPrincipal | null>;
  /**
   * The console's idle timeout (issue #38): moves a live session's expiry to `idleMs` from now, never past its
   * creation plus the session lifetime (24 h); a move of less than a minute later is skipped (no write per request).
   * Returns the expiry now in force, or null when the session is not live.
   */
  slideSession(sessionToken: string, idleMs: number): Promise<number | null>;
  /**
   * The own user of a live session (the console's "who is signed in", issue #38): e-mail, whether 2FA is on, and the
   * session's expiry; else null.
   */
  sessionUser(sessionToken: string): Promise<{ readonly userId: UserId; readonly email: string; readonly twoFactorOn: boolean; readonly expiresAt: number } | null>;
}

/**
 * Who a live session acts as (issue #35 item 1): `userId` is the account whose resources it acts on (the owner's user
 * id); `member` is present only in an account with members: the session's own user, its role, and whether that user
 * has two-factor on. A solo account's session has no `member` and keeps today's rules.
 */
export interface SessionPrincipal {
  readonly userId: UserId;
  readonly member?: { readonly userId: UserId; readonly role: TeamRole; readonly twoFactorOn: boolean };
}

export interface SubscriptionsService {
  /** body {service_code 'developer'|'sub_address', plan_code?}: activates or switches the plan. */
  activate(userId: UserId, body: unknown): Promise<SubscriptionView>;
  /** body {service_code 'developer', config {webhook_url?, webhook_secret?, min_collect_amounts?}}. */
  putConfig(userId: UserId, body: unknown): Promise<DeveloperConfigView>;
  /** The developer configuration with the webhook status object; never the secret. */
  getDeveloperConfig(userId: UserId): Promise<DeveloperConfigView>;
}

export interface ApiTokensService {
  /** body {name}: 201 with the `dk_` token shown once. BIZ-DEVELOPER-SUBSCRIPTION-REQUIRED without a developer plan. */
  create(userId: UserId, body: unknown): Promise<ApiTokenCreatedView>;
  /** API-TOKEN-NOT-FOUND when unknown or another user's. */
  revoke(userId: UserId, id: string): Promise<ApiTokenRevokedView>;
  /** The user's unrevoked tokens, never their values, with when each was last used. */
  list(userId: UserId): Promise<ApiTokenListView>;
  /** The principal of a live `dk_` token, or null. */
  /** Extension (issue #35): body {expires_at} (ISO 8601 in the future, or null: never) sets the expiry and clears the review mark. */
  setExpiry(userId: UserId, id: string, body: unknown): Promise<ApiTokenView>;
  authenticateApiToken(token: string): Promise<ApiPrincipal | null>;
}

export interface WalletsService {
  /** query {type?, page?, per_page?}: the caller's addresses, id ascending. */
  list(userId: UserId, query: unknown): Promise<ItemsPage<WalletView>>;
  /** 404 BIZ-WALLET-ADDRESS-NOT-FOUND when missing or another user's. */
  get(userId: UserId, address: string): Promise<WalletView>;
  /** body {network_code, address_type, address_label?}: 201; errors of spec §4 POST /wallets. */
  create(userId: UserId, body: unknown): Promise<WalletCreatedView>;
  /** The cached snapshot (no chain query). */
  balances(userId: UserId, address: string): Promise<WalletBalanceView>;
  /**
   * body {force?}: queries the chain unless within the cooldown, when the cached snapshot is answered and `cooldown`
   * says how long until a refresh reads the chain again; 502 CHAIN-BALANCE-QUERY-FAILED.
   */
  refresh(userId: UserId, address: string, body: unknown): Promise<BalanceRefreshView>;
  /** Chain resources (TRON); BIZ-CHAIN-RESOURCES-NOT-SUPPORTED elsewhere. */
  resources(userId: UserId, address: string): Promise<ChainResourcesView>;
}

export interface CommandsService {
  /** query {type?, status?, page?, per_page?}: newest first. */
  list(userId: UserId, query: unknown): Promise<ItemsPage<CommandListItemView>>;
  /** 404 BIZ-COMMAND-NOT-FOUND when missing or another user's. */
  get(userId: UserId, commandNo: string): Promise<CommandView>;
  /**
   * Extension (issue #35 item 2): the requester cancels their own withdrawal while nothing was broadcast (as the admin
   * cancel); 404 BIZ-COMMAND-NOT-FOUND, 409 BIZ-COMMAND-NOT-CANCELLABLE (not a withdrawal, broadcast, or finished).
   */
  cancel(userId: UserId, commandNo: string): Promise<CommandView>;
}

export interface CollectionsService {
  /** body {address, asset_symbol}: 201 with status 1; errors of spec §4 POST /collections. */
  create(userId: UserId, body: unknown): Promise<CollectionTaskView>;
  /** 404 BIZ-COLLECTION-TASK-NOT-FOUND when missing or another user's. */
  get(userId: UserId, taskNo: string): Promise<CollectionTaskView>;
  /** Extension (issue #34): query {status?, address?, page?, per_page?}: the caller's tasks newest first, paged like GET /commands. */
  list(userId: UserId, query: unknown): Promise<ItemsPage<CollectionTaskListItemView>>;
  /** Extension: what the task cost so far, from receipts; 404 BIZ-COLLECTION-TASK-NOT-FOUND exactly as `get`. */
  costs(userId: UserId, taskNo: string): Promise<CollectionCostView>;
}

export interface CashierTokensService {
  /**
   * body {address, ttl_minutes?}: 201 with the `ct_` token shown once. `payerBase` (the service's public origin) makes
   * a payment request's answer carry `payer_url`.
   */
  create(userId: UserId, body: unknown, options?: { readonly payerBase?: string }): Promise<CashierTokenCreatedView>;
  /** query {page?, per_page?, reference?} (default 15): newest first, without `token`; `reference` keeps a request's tokens. */
  list(userId: UserId, query: unknown): Promise<MetaPage<CashierTokenView>>;
  /** Extension (issue #34): one token with its payment; 404 CASHIER-TOKEN-NOT-FOUND when missing or another user's. */
  get(userId: UserId, tokenNo: string): Promise<CashierTokenView>;
  /** body {reason?}: CASHIER-TOKEN-NOT-FOUND, CASHIER-TOKEN-ALREADY-DISABLED. */
  disable(userId: UserId, tokenNo: string, body: unknown): Promise<CashierTokenDisabledView>;
}

/** The payment API. Every successful call slides the token's expiry. */
export interface CashierService {
  /** CASHIER-TOKEN-MISSING for null/empty; CASHIER-TOKEN-INVALID for unknown, disabled or expired. */
  authenticateCashier(token: string | null): Promise<CashierContext>;
  session(ctx: CashierContext): Promise<CashierSessionView>;
  balance(ctx: CashierContext): Promise<CashierBalanceView>;
  /** The balance with what a collection of each asset would move: dust is "0" (extension, issue #24 item 5). */
  collectable(ctx: CashierContext): Promise<CashierCollectableView>;
  /** The latest task of the session, or null. */
  task(ctx: CashierContext): Promise<CashierTaskView | null>;
  /**
   * body {asset_symbol}: 201; 409 BIZ-COMMAND-LOCKED, BIZ-ASSET-NOT-FOUND, BIZ-AMOUNT-BELOW-MINIMUM (dust, or below the
   * user's minimum).
   */
  collect(ctx: CashierContext, body: unknown): Promise<CashierTaskView>;
}

export interface WebhooksService {
  /** Sends a signed `webhook.test` to the approved URL; BIZ-WEBHOOK-URL-UNVERIFIED before approval. */
  test(userId: UserId): Promise<WebhookTestView>;
  /** query {page?, per_page?, status?}: deliveries newest first, DEAD and SKIPPED included, with payload and attempts. */
  deliveries(userId: UserId, query: unknown): Promise<ItemsPage<DeliveryView>>;
  /**
   * Sends a DEAD or SUCCEEDED delivery's event again (same event_id, fresh signatures) to the approved URL and records
   * it as a redelivery attempt. WEBHOOK-DELIVERY-NOT-FOUND (also another user's), WEBHOOK-DELIVERY-SKIPPED,
   * WEBHOOK-DELIVERY-IN-PROGRESS, BIZ-WEBHOOK-URL-UNVERIFIED.
   */
  redeliver(userId: UserId, deliveryId: string): Promise<RedeliveryView>;
}

export interface TransfersService {
  /** body {from_address, to_address, asset_symbol, amount}: 201 PENDING withdrawal command. */
  create(userId: UserId, body: unknown): Promise<CommandAcceptedView>;
}

export interface StakingService {
  /** body {resource 'ENERGY'|'BANDWIDTH', amount}. */
  stake(userId: UserId, address: string, body: unknown): Promise<CommandAcceptedView>;
  /** body {resource, amount}. */
  unstake(userId: UserId, address: string, body: unknown): Promise<CommandAcceptedView>;
  withdrawUnstaked(userId: UserId, address: string): Promise<CommandAcceptedView>;
  /** body {votes: [{witness, count}]}. */
  vote(userId: UserId, address: string, body: unknown): Promise<CommandAcceptedView>;
  withdrawReward(userId: UserId, address: string): Promise<CommandAcceptedView>;
}

/** Platform operations (ADMIN_TOKEN). User ids arrive as path strings. */
export interface AdminService {
  listPendingWebhooks(): Promise<PendingWebhookView[]>;
  /**
   * body {url}: the URL the admin reviewed (issue #35 item 5). BIZ-WEBHOOK-NOT-PENDING when nothing waits for review;
   * REVIEW-STALE when another URL is pending now.
   */
  approveWebhook(userId: string, body: unknown): Promise<WebhookStatusView>;
  /** body {note}. */
  rejectWebhook(userId: string, body: unknown): Promise<WebhookStatusView>;
  /** Only PENDING/RUNNING with nothing broadcast; BIZ-COMMAND-NOT-CANCELLABLE otherwise. */
  cancelCommand(commandNo: string): Promise<CommandView>;
  /** body {kind 'user'|'address', value, reason?}. */
  denyRisk(body: unknown): Promise<RiskEntryView>;
  /** body {kind, value}: whether the entry existed. */
  allowRisk(body: unknown): Promise<{ readonly removed: boolean }>;
  listRisk(): Promise<RiskEntryView[]>;
  /** body {max_sub_addresses ≥ -1}: BIZ-USER-NOT-FOUND, BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED. */
  setQuota(userId: string, body: unknown): Promise<QuotaView>;
  /** query {days?} (1-30, default 7): failed commands and collection tasks of every account, with their last error (issue #38). */
  listFailedWorkflows(query: Readonly<Record<string, string | undefined>>): Promise<FailedWorkflowsView>;
  /** query {page?, per_page?}: the DEAD webhook deliveries of every account, newest first (issue #38). */
  listDeadDeliveries(query: Readonly<Record<string, string | undefined>>): Promise<ItemsPage<DeadDeliveryView>>;
}

/** Every use case of the service, grouped as the HTTP host routes them. */
export interface Application {
  readonly accounts: AccountsService;
  /** TOTP two-factor and step-up (issue #26 item 3). */
  readonly twoFactor: TwoFactorService;
  readonly subscriptions: SubscriptionsService;
  readonly apiTokens: ApiTokensService;
  readonly wallets: WalletsService;
  readonly commands: CommandsService;
  readonly collections: CollectionsService;
  readonly cashierTokens: CashierTokensService;
  readonly cashier: CashierService;
  readonly webhooks: WebhooksService;
  readonly transfers: TransfersService;
  readonly staking: StakingService;
  readonly admin: AdminService;
  readonly deposits: DepositsService;
  /** The account's hash-chained audit log (issue #26 item 5). */
  readonly audit: AuditService;
  /** Withdrawal policies, allow-lists and the review of approval URLs (issue #26 items 1 and 2). */
  readonly withdrawalPolicies: WithdrawalPoliciesService;
  /** The books (issue #36): entries and balances at a time. */
  readonly ledger: LedgerService;
  /** Teams (issue #35 item 1): invitations, roles, removal, joining. */
  readonly members: MembersService;
  /** Approvals by people (issue #35 item 2). */
  readonly commandApprovals: CommandApprovalsService;
}

/** The team use cases as the API host calls them. */
export type MembersService = Pick<MembersUseCases, 'list' | 'invite' | 'changeRole' | 'remove'>;
/** Approvals by people as the API host calls them. */
export type CommandApprovalsService = Pick<CommandApprovalsUseCases, 'listAwaiting' | 'approve' | 'deny'>;

/** The ledger reads as the API host calls them (the class is their only implementation). */
export type LedgerService = Pick<LedgerUseCases, 'listEntries' | 'exportEntries' | 'balances' | 'statement' | 'reconciliation'>;

/** The policy use cases as the API host calls them (the class is their only implementation). */
export type WithdrawalPoliciesService = Pick<WithdrawalPoliciesUseCases,
  'getPolicy' | 'putPolicy' | 'addAllowListEntry' | 'listAllowList' | 'removeAllowListEntry'
  | 'listPendingApprovalUrls' | 'approveApprovalUrl' | 'rejectApprovalUrl' | 'listChanges' | 'approveChange' | 'cancelChange'>;
