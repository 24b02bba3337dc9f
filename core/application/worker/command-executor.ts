import { formatUnits } from '../../domain/amount.js';
import { formatIsoTime } from '../../domain/time.js';
import { approvalOnCancel } from '../../domain/approval.js';
import { destinationRefusal, limitsOf, needsApproval } from '../../domain/withdrawal-policy-rules.js';
import { COMMAND_STEPS, commandStepOf, commandTransition, finishedCommand, type CommandStepKey } from '../../domain/command-machine.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../../domain/errors.js';
import type { AssetRegistry } from '../../domain/assets.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command, type PreparedTransaction } from '../../domain/model/command.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { CommandRepository } from '../../ports/command-repository.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { RiskPolicy } from '../../ports/risk-policy.port.js';
import type { UnitOfWork } from '../../ports/unit-of-work.port.js';
import { withdrawalEvent } from '../webhook-events.js';
import { AuditTrail } from '../audit-trail.js';
import { commandOutcomeEvent } from './withdrawal-outcome-audit.js';
import type { AuditAction } from '../../domain/model/audit.js';
import { askApprover, type ApprovalRequestDeps } from './approval-request.js';
import { EXECUTED_COMMAND_TYPES, planCommand, riskSubjectOf } from './command-intents.js';
import { sweepableSun, type StepSettings } from './collection-steps.js';
import { collectionStepSettings } from './collection-executor.js';
import { FundedWithdrawalSteps } from './withdrawal-funding-steps.js';
import { planWithdrawalFees } from './withdrawal-funding-plan.js';
import type { EnergyProvider } from '../../ports/energy-provider.port.js';
import { signerFor, type SignerDeps } from './worker-keys.js';
import { STALE_READ_GRACE_MS, type Completion, type Confirmations } from './write-ahead.js';
import type { RunnerHooks, RunnerLog } from './stage-protocol.js';
import { listed, stepOfRow, WorkflowRefusal, type Seen, type StepDecision, type Visit, type Workflow, type WorkflowStep, type WorkflowStore } from './workflow.js';
import { WorkflowExecutor, type WorkflowOptions } from './workflow-executor.js';

/**
 * The ports the command executor uses. `transport` and `withdrawalPolicies` ask approvers (issue #26): without them
 * a withdrawal awaiting an approval never gets one and ends REJECTED at its deadline.
 */
export interface CommandExecutorDeps extends SignerDeps, ApprovalRequestDeps {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly chain: ChainGateway;
  readonly assets: AssetRegistry;
  readonly commands: CommandRepository;
  readonly risk: RiskPolicy;
  readonly uow: UnitOfWork;
  readonly log?: RunnerLog;
  readonly hooks?: RunnerHooks;
  /**
   * The energy sources a withdrawal from a sub-address may be funded with (issue #34), a collection's. Absent: none
   * (a funding plan then needs burning, ENERGY_BURN).
   */
  readonly energy?: { readonly self?: EnergyProvider | undefined; readonly rental?: EnergyProvider | undefined };
}

const TRX = 1_000_000n;

/** Bandwidth reserve for a native withdrawal: the balance must also pay the transfer's bytes when bandwidth is out. */
const NATIVE_SETTINGS: StepSettings = {
  burnEnabled: false, maxBurnSun: null, minRecoverSun: 0n, feeLimitSun: 0n, transferBytes: 300, sunPerByte: 1_000n,
};

/**
 * Withdrawals (POST /transfers) and the staking commands as one-step workflows of the runner: PENDING runs risk
 * control (blocked → REJECTED, no event: spec §6 has withdrawal events for success and failure only) and starts
 * the command; RUNNING checks the on-chain balance, then sends its one transaction write-ahead (persisted on the
 * command with `broadcastAt`, which from then on refuses an admin cancel) and follows it: SUCCESS or FAILED in one
 * unit of work (which also releases the lock and balance_locked) with the withdrawal.* event for withdrawals.
 */
class CommandWorkflow implements Workflow<Command> {
  readonly name = 'command';
  /** Claimed by type; never kept between stages (an approval is written by others while it waits). */
  readonly store: WorkflowStore<Command>;
  private readonly steps: Record<CommandStepKey, WorkflowStep<Command>>;

  constructor(
    private readonly deps: CommandExecutorDeps, withdrawalCompletion: Completion, stakingCompletion: Completion,
    private readonly feeLimitSun: bigint, private readonly staleReadGraceMs: number, private readonly approvalRetryMs: number,
    /** The funded withdrawal's steps (issue #34); null: withdrawals pay their own fees, as before. */
    private readonly funded: { readonly steps: FundedWithdrawalSteps; readonly settings: StepSettings } | null,
  ) {
    // The plans and the configured depths are the workflow's code; everything else about a step is its COMMAND_STEPS
    // row. No command step awaits an earlier transaction (a funded withdrawal's steps do: COLLECTION_STEPS rows).
    const code: Record<CommandStepKey, { readonly depth: Completion; readonly plan: (c: Command) => Promise<StepDecision<Command>> }> = {
      pending: { depth: 'accepted', plan: (c) => this.startChecks(c) },
      'awaiting-approval': { depth: 'accepted', plan: (c) => this.approve(c) },
      withdrawal: { depth: withdrawalCompletion, plan: (c) => this.plan(c) },
      staking: { depth: stakingCompletion, plan: (c) => this.plan(c) },
    };
    this.store = {
      key: (command) => command.commandNo,
      claim: async (now, owner, leaseMs) => listed(await deps.commands.claimDue(EXECUTED_COMMAND_TYPES, now, owner, leaseMs)),
      get: (commandNo) => deps.commands.get(commandNo),
      save: async (next, readVersion) => {
        const stored: Command = { ...next, version: readVersion + 1 };
        await deps.commands.update(stored);
        return stored;
      },
      holds: (command, owner) => command.lease?.owner === owner,
      leased: (command, dueAt, lease) => ({ ...command, nextRunAt: dueAt, lease }),
      // Never kept between stages: a person may approve or reject a waiting withdrawal (decision 160).
      keeps: false,
    };
    this.steps = Object.fromEntries((Object.keys(COMMAND_STEPS) as CommandStepKey[]).map((key) =>
      [key, stepOfRow<Command>({ ...COMMAND_STEPS[key], awaits: null }, code[key].depth, { plan: code[key].plan })])) as Record<CommandStepKey, WorkflowStep<Command>>;
  }

  /**
   * A funded withdrawal's RUNNING phase (its step, the phase's record, what the phase's row awaits); else the
   * command's COMMAND_STEPS row, whose one transaction is open while RUNNING. The step started when the command did.
   */
  visit(command: Command): Visit<Command> | null {
    const startedAt = command.startedAt ?? command.createdAt;
    if (command.status === COMMAND_STATUS.RUNNING && command.funding != null) {
      const funded = this.fundedSteps();
      return {
        step: funded.stepOf(command.funding), open: funded.openRecord(command, command.funding), awaited: funded.awaited(command.funding), startedAt,
      };
    }
    // A decision by a person (issue #35 item 2) is carried out by the approval step, as the machine approver's answer.
    const key = commandStepOf(command);
    if (key === null) return null;
    return { step: this.steps[key], open: command.status === COMMAND_STATUS.RUNNING ? command.transaction : null, awaited: null, startedAt };
  }

  /**
   * A receipt or a dead transaction in a funded withdrawal's cost (an unfunded command keeps none); a refusal on, or a
   * drop of, the open record (the command's transaction, or the funding phase's).
   */
  note(command: Command, record: PreparedTransaction, seen: Seen): Command {
    if (seen.kind === 'refused' || seen.kind === 'dropped') {
      const next = seen.kind === 'refused' ? { ...record, refusal: seen.refusal } : null;
      return command.funding != null ? this.fundedSteps().withRecord(command, command.funding, next) : { ...command, transaction: next };
    }
    if (command.funding == null) return command;
    const funded = this.fundedSteps();
    return { ...command, funding: seen.kind === 'dead' ? funded.noteDead(command.funding, record) : funded.noteReceipt(command.funding, record, seen.state) };
  }

  statusOf(command: Command): { readonly status: number; readonly error: { readonly code: string; readonly message: string | null } | null } {
    return { status: command.status, error: command.errorCode === null ? null : { code: command.errorCode, message: command.lastError } };
  }

  /** The step's table event (completedBy): `start`, PENDING → RUNNING (the lease stays: the stage goes on to send); `succeed`, RUNNING → SUCCESS with its event. */
  async complete(command: Command, _record: PreparedTransaction | null): Promise<{ next: Command } | { ended: Command }> {
    if (command.status === COMMAND_STATUS.RUNNING && command.funding != null) {
      const done = this.fundedSteps().completed(command.funding);
      if ('next' in done) return { next: await this.store.save({ ...command, funding: done.next }, command.version) };
      const outcome = done.end.outcome ?? { ok: false, errorCode: 'INTERNAL-ERROR', lastError: 'funded withdrawal ended without an outcome' };
      return { ended: await this.finish({ ...command, funding: done.end }, outcome.ok, outcome.errorCode, outcome.lastError) };
    }
    const key = commandStepOf(command);
    if (key === null) throw new WorkflowRefusal(`command ${command.commandNo} has no step to complete`);
    const row = COMMAND_STEPS[key];
    if (row.completedBy === 'succeed') return { ended: await this.finish(command, true, null, null) };
    const status = commandTransition(command.status, row.completedBy);
    if (status === null) throw new WorkflowRefusal(`command machine refused ${row.completedBy} of ${command.commandNo}`);
    return { next: await this.store.save({ ...command, status, startedAt: this.deps.clock.now() }, command.version) };
  }

  /**
   * A failure the step decided ends the command where its COMMAND_STEPS row's failure route says (failsAs): REJECTED
   * (reject) or FAILED; an error or the chain's evidence ends it FAILED. FAILED comes with the withdrawal.* event, in
   * one write; a funded withdrawal gives back what its funding put on the sub-address first.
   */
  async fail(command: Command, code: ErrorCode, message: string, decided = false): Promise<Command> {
    const key = command.status === COMMAND_STATUS.RUNNING && command.funding != null ? null : commandStepOf(command);
    if (decided && key !== null && COMMAND_STEPS[key].failsAs === 'REJECTED') return this.reject(command, code, message);
    if (command.status === COMMAND_STATUS.RUNNING && command.funding != null && command.funding.outcome === null) {
      // Failed after the funding put TRX or a delegation on the sub-address: those come back first (the reclaim
      // phases), then the command ends FAILED with this error and its withdrawal.failed event.
      const reclaiming = this.fundedSteps().failed(command.funding, code, message);
      if (reclaiming !== null) {
        return this.store.save({ ...command, funding: reclaiming, nextRunAt: this.deps.clock.now(), lease: null }, command.version);
      }
    }
    return this.finish(command, false, code, message);
  }

  /**
   * REJECTED, nothing sent. Risk control's block is silent (no event: spec §6 has withdrawal events for success and
   * failure only) and leaves the approval as it was. A denied or expired approval (issue #26) and a withdrawal policy
   * that no longer lets it run (issue #35 item 2) close the approval (denied, expired; else cancelled) and queue
   * withdrawal.failed, in one write.
   */
  private async reject(command: Command, code: ErrorCode, message: string): Promise<Command> {
    const status = commandTransition(command.status, 'reject');
    if (status === null) throw new WorkflowRefusal(`command machine refused reject of ${command.commandNo}`);
    const now = this.deps.clock.now();
    if (code === 'RISK-REVIEW-BLOCKED') {
      const blocked: Command = { ...command, status, errorCode: code, lastError: message, finishedAt: now, lease: null };
      return this.ended(blocked, () => this.store.save(blocked, command.version));
    }
    const rejected: Command = {
      ...command, status, ...this.closedApproval(command, code, now), errorCode: code, lastError: message, finishedAt: now,
      lease: null, version: command.version + 1,
    };
    await this.ended(rejected, () => this.deps.uow.commit({ commands: [rejected], events: [withdrawalEvent(rejected, this.deps.ids.uuid(), now)] }));
    return rejected;
  }

  /** The approval as a rejection leaves it: denied (the denial counted as an attempt) or expired; else cancelled, if any. */
  private closedApproval(command: Command, code: ErrorCode, now: number): Pick<Command, 'approval'> | Record<string, never> {
    if ((code === 'APPROVAL-DENIED' || code === 'APPROVAL-TIMEOUT') && command.approval != null) {
      const asked = code === 'APPROVAL-DENIED' ? { attempts: command.approval.attempts + 1, lastAttemptAt: now } : {};
      return { approval: { ...command.approval, ...asked, state: code === 'APPROVAL-DENIED' ? 'denied' : 'expired', decidedAt: now } };
    }
    const approval = approvalOnCancel(command.approval, now);
    return approval === undefined ? {} : { approval };
  }

  /**
   * PENDING's checks: risk control, then, for a withdrawal from a sub-address, how its fees are paid (issue #34):
   * planned from the chain now, before anything is sent; funding that cannot be had fails it (nothing sent).
   */
  private async startChecks(command: Command): Promise<StepDecision<Command>> {
    const risk = await this.riskCheck(command);
    if (risk.kind !== 'complete') return risk;
    return this.planFees(command);
  }

  /** The fee plan of a withdrawal about to start: `complete` with the funding on the command, or as it is. */
  private async planFees(command: Command, subject: Command = command): Promise<StepDecision<Command>> {
    if (this.funded === null || command.type !== COMMAND_TYPE.WITHDRAWAL || command.address === null) return { kind: 'complete', subject };
    const wallet = await this.deps.wallets.findByAddress(command.address);
    const asset = this.deps.assets.find('TRON', command.assetSymbol ?? 'TRX');
    if (wallet === null || asset === null) return { kind: 'complete', subject };
    const fees = await planWithdrawalFees({ ...this.deps, energy: this.deps.energy ?? {} }, this.funded.settings, {
      wallet, asset, to: command.params['to_address'] ?? '', amount: BigInt(command.params['amount'] ?? '0'), reference: command.commandNo,
    });
    // Short soon after the request: the answering node may be behind the deposit; plan again a poll later (else the
    // transfer's own balance check fails it, as before issue #34).
    if (fees.kind === 'short' && this.deps.clock.now() - command.createdAt < this.staleReadGraceMs) return { kind: 'wait', subject };
    return { kind: 'complete', subject: fees.kind === 'funded' ? { ...subject, funding: fees.funding } : subject };
  }

  private fundedSteps(): FundedWithdrawalSteps {
    if (this.funded === null) throw new WorkflowRefusal('a funded withdrawal on an executor without funding');
    return this.funded.steps;
  }

  /**
   * Risk control again at execution time (the deny-list may have changed since the request was accepted), then the
   * withdrawal policy (policyCheck).
   */
  private async riskCheck(command: Command): Promise<StepDecision<Command>> {
    const verdict = await this.deps.risk.check(riskSubjectOf(command));
    // The deny-list note is the operator's (GET /admin/risk/deny); the user's last_error gets the catalogue's fixed text.
    if (verdict.blocked) return { kind: 'fail', code: 'RISK-REVIEW-BLOCKED', message: ERROR_CATALOGUE['RISK-REVIEW-BLOCKED'].message };
    return this.policyCheck(command);
  }

  /**
   * The withdrawal policy again before a withdrawal starts (issue #35 item 2): a destination the allow-list no longer
   * lets through, or an amount above a threshold lowered since the request while it has no approval, fails it with the
   * rule's code, which `fail` turns into REJECTED (nothing was sent; the requester may ask again under today's policy).
   * Without the policy store (a worker wired without approvals) nothing is checked here.
   */
  private async policyCheck(command: Command): Promise<StepDecision<Command>> {
    const policies = this.deps.withdrawalPolicies;
    if (policies === undefined || command.type !== COMMAND_TYPE.WITHDRAWAL) return { kind: 'complete' };
    const policy = await policies.get(command.userId);
    if (policy === null) return { kind: 'complete' };
    const to = command.params['to_address'] ?? '';
    const entry = policy.allowListOnly ? await policies.findAllowListEntry(command.userId, to) : null;
    const refusal = destinationRefusal(policy, entry, this.deps.clock.now());
    if (refusal !== null) return { kind: 'fail', code: refusal, message: `${ERROR_CATALOGUE[refusal].message} (checked again when the withdrawal ran)` };
    if (command.approval == null && needsApproval(limitsOf(policy, command.assetSymbol ?? 'TRX'), command.lockedAmount)) {
      return { kind: 'fail', code: 'POLICY-APPROVAL-REQUIRED', message: 'approval_threshold: lowered since the request, the amount now needs an approval; ask again' };
    }
    return { kind: 'complete' };
  }

  /**
   * The approval step: risk control again, then (before the deadline) one request to the approver. Approved: the step
   * completes and the approval is saved with the start (RUNNING) in one write; denied: REJECTED; anything else (no
   * 2xx, a forged, replayed or mismatched answer, no approver set): the refusal is noted on the command and the
   * approver asked again after approvalRetryMs, or at the deadline, whichever is first.
   */
  private async approve(command: Command): Promise<StepDecision<Command>> {
    const risk = await this.riskCheck(command);
    if (risk.kind === 'fail') return risk;
    const approval = command.approval!;
    const now = this.deps.clock.now();
    // Decided through the API by a member other than the requester (command-approvals.service.ts), audited there.
    if (approval.decidedBy != null && approval.state === 'approved') return this.planFees(command, command);
    if (approval.decidedBy != null && approval.state === 'denied') {
      return { kind: 'fail', code: 'APPROVAL-DENIED', message: 'a member of the account denied the withdrawal' };
    }
    if (now >= approval.deadline) {
      await this.auditApproval(command, 'withdrawal.denied', { reason: 'APPROVAL-TIMEOUT', attempts: approval.attempts });
      return { kind: 'fail', code: 'APPROVAL-TIMEOUT', message: ERROR_CATALOGUE['APPROVAL-TIMEOUT'].message };
    }
    if (approval.attempts === 0) await this.auditApproval(command, 'withdrawal.approval_requested', { expires_at: formatIsoTime(approval.deadline) });
    const verdict = await askApprover(this.deps, command, approval, now);
    const asked = { ...approval, attempts: approval.attempts + 1, lastAttemptAt: now };
    if (verdict.kind !== 'refused') await this.auditApproval(command, verdict.kind === 'approved' ? 'withdrawal.approved' : 'withdrawal.denied', { attempt: asked.attempts });
    switch (verdict.kind) {
      case 'approved':
        return this.planFees(command, { ...command, approval: { ...asked, state: 'approved', lastRefusal: null, decidedAt: now } });
      case 'denied':
        return { kind: 'fail', code: 'APPROVAL-DENIED', message: ERROR_CATALOGUE['APPROVAL-DENIED'].message };
      case 'refused':
        return {
          kind: 'wait', subject: { ...command, approval: { ...asked, lastRefusal: verdict.reason } },
          delayMs: Math.max(1, Math.min(this.approvalRetryMs, approval.deadline - now)),
        };
    }
  }

  /** Records an approval event in the account's audit trail (when the worker has one); the approver is the actor of decisions. */
  private async auditApproval(command: Command, action: AuditAction, detail: Readonly<Record<string, string | number>>): Promise<void> {
    if (this.deps.auditLog === undefined) return;
    const actor = action === 'withdrawal.approved' || (action === 'withdrawal.denied' && detail['reason'] === undefined)
      ? { kind: 'approver' as const, id: null } : { kind: 'system' as const, id: null };
    await new AuditTrail({ auditLog: this.deps.auditLog, clock: this.deps.clock, uow: this.deps.uow }).record({
      userId: command.userId, action, actor,
      detail: { command_no: command.commandNo, asset_symbol: command.assetSymbol, amount: command.params['amount'] ?? null, ...detail },
    });
  }

  /** Balance on chain now (where the command spends one), then the signed transaction for the runner to send. */
  private async plan(command: Command): Promise<StepDecision<Command>> {
    // The money rule of approvals: nothing is signed for a withdrawal whose approval is not given (never reached: the
    // approval step is the only way into RUNNING; a refusal here retries and never sends).
    if (command.approval != null && command.approval.state !== 'approved') {
      throw new WorkflowRefusal(`withdrawal ${command.commandNo} is not approved (${command.approval.state})`);
    }
    const from = command.address ?? '';
    const plan = planCommand(command, this.deps.assets, this.feeLimitSun);
    if (plan.requires !== null) {
      const { asset, amount } = plan.requires;
      const available = asset.kind === 'trc20'
        ? await this.deps.chain.getTokenBalance(from, asset.contractAddress!)
        : await sweepableSun(this.deps.chain, NATIVE_SETTINGS, from, plan.intent.kind === 'transfer-trx' ? plan.intent.to : undefined);
      if (available < amount) {
        // Short soon after the request: the answering node may be behind the deposit; read again a poll later.
        if (this.deps.clock.now() - command.createdAt < this.staleReadGraceMs) return { kind: 'wait' };
        const units = (n: bigint) => `${formatUnits(n, asset.decimals)} ${asset.symbol}`;
        return { kind: 'fail', code: 'BIZ-INSUFFICIENT-BALANCE', message: `${from} can send ${units(available)}, ${units(amount)} requested` };
      }
    }
    const tx = await this.deps.chain.prepare(await signerFor(this.deps, from), plan.intent);
    return { kind: 'send', tx, persist: (record) => ({ ...command, transaction: record }) };
  }

  /**
   * SUCCESS or FAILED (finishedCommand: the one change set that ends a command, a PENDING one started in it) and,
   * for a withdrawal, its withdrawal.* event, in one unit of work; the lease goes with it.
   */
  private async finish(command: Command, ok: boolean, errorCode: string | null, lastError: string | null): Promise<Command> {
    const now = this.deps.clock.now();
    const done = finishedCommand(command, ok, errorCode, lastError, now);
    if (done === null) throw new WorkflowRefusal(`command machine refused ${ok ? 'succeed' : 'fail'} of ${command.commandNo}`);
    const events = done.type === COMMAND_TYPE.WITHDRAWAL ? [withdrawalEvent(done, this.deps.ids.uuid(), now)] : [];
    await this.ended(done, () => this.deps.uow.commit({ commands: [done], events }));
    return done;
  }

  /**
   * Runs the write that ends a command with a withdrawal's or a staking command's outcome entry in the audit trail
   * (issue #35 item 8), both in one atomic scope; any other command, or a worker without a trail, just writes.
   */
  private ended<T>(done: Command, write: () => Promise<T>): Promise<T> {
    const event = commandOutcomeEvent(done);
    if (this.deps.auditLog === undefined || event === null) return write();
    return new AuditTrail({ auditLog: this.deps.auditLog, clock: this.deps.clock, uow: this.deps.uow }).recordWith(write, () => event);
  }
}

/** How long a withdrawal waits before its approver is asked again after an answer that decided nothing (default). */
export const APPROVAL_RETRY_MS = 30_000;

/**
 * Executes the fund-moving commands other than collections — WITHDRAWAL and the staking commands — on the one
 * workflow runner: leased in the store like every chain workflow, write-ahead, and under the money rule (a command
 * whose transaction may be out ends only on chain evidence; it never releases its address lock on a node error).
 */
export class CommandExecutor extends WorkflowExecutor<Command> {
  constructor(
    deps: CommandExecutorDeps, options: WorkflowOptions = {},
    approvals: {
      readonly retryMs?: number;
      /**
       * Funded withdrawals (issue #34): the collection workflow's options whose burn settings, confirmations and energy
       * timeout the funding steps follow (default: `options`); false: withdrawals are never funded, as before.
       */
      readonly funding?: WorkflowOptions | false;
    } = {},
  ) {
    const completeOn = options.completeOn ?? 'broadcast';
    const fundingOptions = approvals.funding ?? options;
    const settings = fundingOptions === false ? null : { ...collectionStepSettings(fundingOptions), feeLimitSun: options.feeLimitSun ?? 100n * TRX };
    const funded = fundingOptions === false || settings === null ? null : {
      settings,
      steps: new FundedWithdrawalSteps({ ...deps, energy: deps.energy ?? {} }, settings, fundingOptions.confirmations ?? 'solidified',
        fundingOptions.energyTimeoutMs ?? 60_000),
    };
    const workflow = new CommandWorkflow(deps, completeOn === 'broadcast' ? 'accepted' : completeOn,
      options.stakingConfirmations ?? 1, options.feeLimitSun ?? 100n * TRX, options.staleReadGraceMs ?? STALE_READ_GRACE_MS,
      approvals.retryMs ?? APPROVAL_RETRY_MS, funded);
    super(workflow, deps, options, { batch: 50 });
  }
}
