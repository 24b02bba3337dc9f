import { AccountsUseCases } from './accounts.service.js';
import { AdminUseCases } from './admin.service.js';
import { ApiTokensUseCases } from './api-tokens.service.js';
import type { Application } from './application.js';
import { CashierTokensUseCases } from './cashier-tokens.service.js';
import { CashierUseCases } from './cashier.service.js';
import { CollectionsUseCases } from './collections.service.js';
import { CommandsUseCases } from './commands.service.js';
import { resolveDeps, type CoreDeps } from './deps.js';
import { StakingUseCases } from './staking.service.js';
import { SubscriptionsUseCases } from './subscriptions.service.js';
import { TransfersUseCases } from './transfers.service.js';
import { TwoFactorUseCases } from './two-factor.service.js';
import { WalletsUseCases } from './wallets.service.js';
import { WebhooksUseCases } from './webhooks.service.js';
import { DepositsUseCases } from './deposits.service.js';
import { AuditUseCases } from './audit.service.js';
import { WithdrawalPoliciesUseCases } from './withdrawal-policies.service.js';
import { LedgerUseCases } from './ledger.service.js';

export type * from './application.js';
export type * from './views.js';
export type { DepositView, DepositsService } from './deposits.service.js';
export type { LedgerBalancesView, LedgerEntryView } from './ledger.service.js';
export { DEFAULT_CORE_SETTINGS, type CoreDeps, type CoreSettings } from './deps.js';
export { collectionEvent, withdrawalEvent, sweptAmountJson } from './webhook-events.js';
export { webhookRequest } from './webhooks.service.js';
export { secretAad } from './developer-config.js';
export {
  TOTP_ISSUER, totpSecretAad, type CodeTryGate, type TwoFactorDisabledView, type TwoFactorEnabledView, type TwoFactorService,
  type TwoFactorSetupView,
} from './two-factor.service.js';
export { AuditTrail, type AuditTrailDeps } from './audit-trail.js';
export type { AuditEntryView, AuditService, AuditVerificationView } from './audit.service.js';
export { verifyAllAuditChains, verifyStoredAuditChain, type AuditChainReport } from './audit-verifier.js';

export { actAs, actingMember, type ActingMember } from './acting-member.js';
export type { MemberView } from './members.service.js';
import { CommandApprovalsUseCases } from './command-approvals.service.js';
import { MembersUseCases } from './members.service.js';

/** Builds every use case on the given ports. No I/O happens here. */
export function createApplication(deps: CoreDeps): Application {
  const resolved = resolveDeps(deps);
  return {
    accounts: new AccountsUseCases(resolved),
    twoFactor: new TwoFactorUseCases(resolved),
    subscriptions: new SubscriptionsUseCases(resolved),
    apiTokens: new ApiTokensUseCases(resolved),
    wallets: new WalletsUseCases(resolved),
    commands: new CommandsUseCases(resolved),
    collections: new CollectionsUseCases(resolved),
    cashierTokens: new CashierTokensUseCases(resolved),
    cashier: new CashierUseCases(resolved),
    webhooks: new WebhooksUseCases(resolved),
    transfers: new TransfersUseCases(resolved),
    staking: new StakingUseCases(resolved),
    admin: new AdminUseCases(resolved),
    deposits: new DepositsUseCases(resolved),
    audit: new AuditUseCases(resolved),
    withdrawalPolicies: new WithdrawalPoliciesUseCases(resolved),
    ledger: new LedgerUseCases(resolved),
    members: new MembersUseCases(resolved),
    commandApprovals: new CommandApprovalsUseCases(resolved),
  };
}
