import { ConcurrencyConflict, DomainError, validationError } from '../domain/errors.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command } from '../domain/model/command.js';
import type { PaymentRequestChange } from '../domain/model/payment-request.js';
import { countedRefunds, refundRefusal } from '../domain/refund-rules.js';
import { judgeRequest, paymentDeposits } from './payment-requests.js';
import type { UserId } from '../domain/model/common.js';
import type { CommandApproval, WithdrawalPolicy } from '../domain/model/withdrawal-policy.js';
import { formatIsoTime } from '../domain/time.js';
import {
  destinationRefusal, limitsOf, needsApproval, velocityCharge, type VelocityCharge,
} from '../domain/withdrawal-policy-rules.js';
import type { TransfersService } from './application.js';
import { AuditTrail } from './audit-trail.js';
import { settledPolicy } from './policy-changes.js';
import { heldDestinationRefusal } from '../domain/policy-change.js';
import { assetOf } from './collection-starter.js';
import type { ResolvedDeps } from './deps.js';
import { newCommand, refuseIfLocked, refuseIfRisky, withAddressLock, type CommandDraft, type FundCommandDeps } from './fund-commands.js';
import { fieldsOf, optionalString, requireChainAmount, requireString } from './input.js';
import { ownedWallet } from './ownership.js';
import type { CommandAcceptedView } from './views.js';
import { withVelocityRelief } from './velocity-relief.js';
import { actingMember } from './acting-member.js';
import { peopleWhoMayApprove } from './command-approvals.service.js';

/** The ports the transfer use case touches, with those of queuing a fund-moving command. */
export type TransfersDeps = Pick<ResolvedDeps, 'chain' | 'wallets' | 'assets' | 'withdrawalPolicies' | 'uow' | 'auditLog' | 'withdrawalFees'> & FundCommandDeps
  & Partial<Pick<ResolvedDeps, 'members' | 'cashierTokens' | 'deposits'>>;

/** A refund's payment request, checked (issue #36 item 4). */
interface RefundTarget {
  readonly tokenNo: string;
}

/** Withdrawals (session token): a PENDING WITHDRAWAL command the worker signs and broadcasts later. */
export class TransfersUseCases implements TransfersService {
  private readonly audit: AuditTrail;

  constructor(private readonly deps: TransfersDeps) {
    this.audit = new AuditTrail(deps);
  }

  /**
   * Order: fields present, amount (BIZ-AMOUNT-INVALID), to_address syntax (VALIDATION-ERROR), from_address owned
   * (422 BIZ-WALLET-ADDRESS-NOT-FOUND, as for every body-named address), asset, risk (403, recorded REJECTED), the
   * withdrawal policy (issue #26: 403 POLICY-DESTINATION-*, 422 POLICY-APPROVAL-UNAVAILABLE), lock (409), and last the
   * velocity limits (422 POLICY-VELOCITY-*), judged by the store in the very commit that records the command. Before the
   * lock, a withdrawal from a sub-address whose fees neither it nor its main address can pay is 422 BIZ-FEES-UNFUNDABLE
   * (issue #34: the worker's own fee plan, read from the chain; it names what is missing and the fixes). A refusal
   * records nothing and sends nothing. The amount is held as balance_locked while the command is active; the balance
   * itself is checked on chain by the worker, since the cached snapshot may be stale.
   */
  async create(userId: UserId, body: unknown): Promise<CommandAcceptedView> {
    const fields = fieldsOf(body);
    const from = requireString(fields, 'from_address', 128);
    const to = requireString(fields, 'to_address', 128);
    const symbol = requireString(fields, 'asset_symbol', 32);
    const amount = requireChainAmount(fields);
    const refundOf = optionalString(fields, 'refund_of', 64);
    if (refundOf === '') throw validationError('refund_of', 'must not be empty');
    if (!this.deps.chain.isAddress(to)) throw validationError('to_address', 'is not a valid address');
    if (to === from) throw validationError('to_address', 'must differ from from_address');
    const wallet = await ownedWallet(this.deps.wallets, userId, from);
    const asset = assetOf(this.deps, wallet, symbol);
    // A refund (issue #36 item 4) names a paid request of the caller's and gives back no more than it received; judged
    // here first, and again in the commit that records it with the request (refundChange).
    const refund: RefundTarget | null = refundOf === null ? null : { tokenNo: refundOf };
    if (refund !== null) await this.refundChange(userId, refund, asset.symbol, amount, null);
    const draft: CommandDraft = {
      userId, type: COMMAND_TYPE.WITHDRAWAL, address: wallet.address, assetSymbol: asset.symbol, lockedAmount: amount,
      params: { to_address: to, amount: amount.toString(10), ...(refund === null ? {} : { refund_of: refund.tokenNo }) },
    };
    await refuseIfRisky(this.deps, { userId, operation: 'withdrawal', address: wallet.address, toAddress: to, assetSymbol: asset.symbol, amount }, draft);
    const detail = {
      from_address: wallet.address, to_address: to, asset_symbol: asset.symbol, amount: amount.toString(10), ...(refund === null ? {} : { refund_of: refund.tokenNo }),
    };
    const command = await this.refusalsAudited(userId, detail, async () => {
      // With its due changes applied (issue #35 item 3: a loosening takes effect at the first read after its delay).
      const policy = await settledPolicy(this.deps, userId);
      await this.refuseDestination(policy, userId, to);
      const limits = limitsOf(policy, asset.symbol);
      // The machine approver, or (issue #35 item 2) a person of the team other than the requester.
      const approverSet = (policy !== null && policy.approval.url !== null && policy.approval.secret !== null)
        || (policy !== null && (await peopleWhoMayApprove(this.deps, userId, requesterOf(userId))).length > 0);
      const approval = needsApproval(limits, amount);
      if (approval && !approverSet) throw new DomainError('POLICY-APPROVAL-UNAVAILABLE');
      await this.deps.withdrawalFees?.({ wallet, asset, to, amount, reference: `withdrawal:${wallet.address}` });
      return withAddressLock(this.deps, wallet.address, async () => {
        await refuseIfLocked(this.deps, wallet.address);
        try {
          return await this.record(draft, limits, policy, approval, detail, refund);
        } catch (error) {
          // The store found the 24 h total crossing the threshold (issue #35 item 2): recorded again, awaiting approval.
          if (!(error instanceof DomainError) || error.code !== 'POLICY-APPROVAL-REQUIRED') throw error;
          if (!approverSet) throw new DomainError('POLICY-APPROVAL-UNAVAILABLE', { message: `${error.message}, and no approved approval_url with a secret is set` });
          return this.record(draft, limits, policy, true, detail, refund);
        }
      });
    });
    return { command_no: command.commandNo, status: command.status };
  }

  /**
   * Records the withdrawal (awaiting its approval when `approval`) with its velocity and threshold judgement and its
   * audit entry, together (decision 144); a velocity refusal says what is left and when the withdrawal fits (issue #34).
   */
  private async record(
    draft: CommandDraft, limits: ReturnType<typeof limitsOf>, policy: WithdrawalPolicy | null, approval: boolean, detail: Readonly<Record<string, string>>,
    refund: RefundTarget | null = null,
  ): Promise<Command> {
    const created = newCommand(this.deps, draft);
    const accepted: Command = approval ? { ...created, approval: awaitingApproval(created, policy!, requesterOf(draft.userId)) } : created;
    const velocity: VelocityCharge | null = velocityCharge(limits, { userId: draft.userId, assetSymbol: draft.assetSymbol!, amount: draft.lockedAmount, at: created.createdAt }, approval);
    const write = async (): Promise<void> => {
      // A refund is recorded on its request in the same commit, judged on the request as stored: the request's version
      // makes two refunds of one request (or a worker's write of it) land one after the other, each judged afresh.
      for (let attempt = 1; ; attempt++) {
        const payments = refund === null ? [] : [(await this.refundChange(draft.userId, refund, draft.assetSymbol!, draft.lockedAmount, accepted))!];
        try {
          await this.deps.uow.commit({ newCommands: [accepted], ...(velocity === null ? {} : { velocity }), ...(payments.length === 0 ? {} : { payments }) });
          return;
        } catch (error) {
          if (!(error instanceof ConcurrencyConflict) || refund === null || attempt >= 5) throw error;
        }
      }
    };
    const commit = () => withVelocityRelief(this.deps, velocity, write);
    await this.audit.recordWith(commit, () => ({
      userId: draft.userId, action: 'withdrawal.requested', actor: { kind: 'user', id: null },
      detail: { command_no: accepted.commandNo, ...detail, approval: accepted.approval == null ? null : 'awaiting' },
    }));
    return accepted;
  }

  /**
   * Judges a refund of `amount` of `assetSymbol` for the request of the caller's token `tokenNo` (issue #36 item 4):
   * 422 REFUND-PAYMENT-NOT-FOUND (no such token of the caller's, or one without a payment request), VALIDATION-ERROR
   * on asset_symbol (not the request's asset), 422 REFUND-PAYMENT-UNPAID (nothing received) or REFUND-EXCEEDS-RECEIVED
   * (the refunds that still count, plus this one, above `received` as the merchant's view judges it now). With the
   * command, answers the request's change that records it (the token's next version); without, null.
   */
  private async refundChange(
    userId: UserId, refund: RefundTarget, assetSymbol: string, amount: bigint, command: Command | null,
  ): Promise<PaymentRequestChange | null> {
    const { cashierTokens, deposits } = this.deps;
    if (cashierTokens === undefined || deposits === undefined) throw new Error('refunds need the cashier tokens and the deposits');
    const token = await cashierTokens.findByTokenNo(refund.tokenNo);
    const payment = token?.userId === userId ? token.payment : undefined;
    if (token === null || payment === undefined) throw new DomainError('REFUND-PAYMENT-NOT-FOUND');
    if (payment.assetSymbol !== assetSymbol) throw validationError('asset_symbol', `must be the refunded payment request's asset, ${payment.assetSymbol}`);
    const received = judgeRequest(payment, await paymentDeposits(deposits, token), this.deps.clock.now()).received;
    const refunds = payment.refunds ?? [];
    const ended = new Set<string>();
    for (const r of refunds) {
      const status = (await this.deps.commands.get(r.commandNo))?.status;
      if (status === COMMAND_STATUS.FAILED || status === COMMAND_STATUS.REJECTED || status === COMMAND_STATUS.CANCELLED) ended.add(r.commandNo);
    }
    const refunded = countedRefunds(refunds, (no) => ended.has(no));
    const refusal = refundRefusal(received, refunded, amount);
    if (refusal !== null) {
      throw new DomainError(refusal, {
        message: `refund_of ${refund.tokenNo}: received ${received}, refunded ${refunded} (smallest unit of ${assetSymbol}); ${amount} asked`
          + (refusal === 'REFUND-EXCEEDS-RECEIVED' ? `, at most ${received - refunded} is left to refund` : ''),
      });
    }
    if (command === null) return null;
    return {
      tokenNo: token.tokenNo, version: token.version + 1,
      payment: { ...payment, refunds: [...refunds, { commandNo: command.commandNo, amount, requestedAt: command.createdAt }] },
    };
  }

  /** Runs the policy's checks; a refusal by a POLICY-* rule is recorded in the audit log (withdrawal.refused), then rethrown. */
  private async refusalsAudited<T>(userId: UserId, detail: Readonly<Record<string, string>>, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof DomainError && error.code.startsWith('POLICY-')) {
        await this.audit.record({ userId, action: 'withdrawal.refused', actor: { kind: 'user', id: null }, detail: { rule: error.code, ...detail } });
      }
      throw error;
    }
  }

  /** allow_list_only: the destination must be listed and past its cooling-off delay. */
  private async refuseDestination(policy: WithdrawalPolicy | null, userId: UserId, to: string): Promise<void> {
    const now = this.deps.clock.now();
    const held = policy?.newDestinationsHeldUntil != null && now < policy.newDestinationsHeldUntil;
    if (policy === null || (!policy.allowListOnly && !held)) return;
    const entry = await this.deps.withdrawalPolicies.findAllowListEntry(userId, to);
    // After a password reset or a 2FA change only active allow-list entries may be paid for a while (issue #35 item 3).
    if (heldDestinationRefusal(policy, entry, now) !== null) {
      throw new DomainError('POLICY-DESTINATION-HELD', {
        message: `a password reset or two-factor change holds withdrawals to destinations not on the allow-list until ${formatIsoTime(policy.newDestinationsHeldUntil!)}`,
      });
    }
    const refusal = destinationRefusal(policy, entry, now);
    if (refusal === 'POLICY-DESTINATION-COOLING-OFF') {
      throw new DomainError(refusal, { message: `to_address is on the allow-list but usable only from ${formatIsoTime(entry!.activeFrom)} (active_from)` });
    }
    if (refusal !== null) throw new DomainError(refusal);
  }
}

/** A withdrawal above its threshold waits for the approver until approval_timeout_minutes after its creation. */
function awaitingApproval(command: Command, policy: WithdrawalPolicy, requestedBy: UserId): CommandApproval {
  return {
    state: 'awaiting', deadline: command.createdAt + policy.approval.timeoutMinutes * 60_000, attempts: 0,
    lastAttemptAt: null, lastRefusal: null, decidedAt: null, requestedBy,
  };
}

/** Who requests a withdrawal of `accountId` now: the member acting (issue #35 item 1), else the account's owner. */
function requesterOf(accountId: UserId): UserId {
  return actingMember()?.userId ?? accountId;
}
