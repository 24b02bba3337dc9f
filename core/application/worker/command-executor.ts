import { commandTransition } from '../../domain/command-machine.js';
import { ConcurrencyConflict, DomainError, InfrastructureError, type ErrorCode } from '../../domain/errors.js';
import type { AssetRegistry } from '../../domain/assets.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command } from '../../domain/model/command.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { CommandRepository } from '../../ports/command-repository.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { RiskPolicy } from '../../ports/risk-policy.port.js';
import type { UnitOfWork } from '../../ports/unit-of-work.port.js';
import { withdrawalEvent } from '../webhook-events.js';
import { EXECUTED_COMMAND_TYPES, planCommand, riskSubjectOf } from './command-intents.js';
import { sweepableSun, type StepSettings } from './collection-steps.js';
import { RetryBackoff } from './retry-backoff.js';
import { broadcastPrepared, followUp, toPrepared, type Confirmations } from './write-ahead.js';
import { signerFor, type SignerDeps } from './worker-keys.js';

/** The ports the command executor uses. */
export interface CommandExecutorDeps extends SignerDeps {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly chain: ChainGateway;
  readonly assets: AssetRegistry;
  readonly commands: CommandRepository;
  readonly risk: RiskPolicy;
  readonly uow: UnitOfWork;
}

/** Tunables; every one has a default. */
export interface CommandExecutorOptions {
  /**
   * When a withdrawal counts as completed: 'broadcast' (default, spec §6: "broadcast successfully and a txid is
   * obtained"), or after this many confirmations / solidification.
   */
  readonly completeOn?: 'broadcast' | Confirmations;
  /**
   * Depth at which a staking command (STAKE … WITHDRAW_REWARD) counts as done (default 1: in a block and not
   * reverted). The spec names no staking events, so its SUCCESS waits for the chain's verdict instead of the broadcast.
   */
  readonly stakingConfirmations?: Confirmations;
  /** A RUNNING command untouched this long is taken as abandoned by a crashed worker and resumed (default 30 s). */
  readonly resumeAfterMs?: number;
  /** Transient failures retry after retryBaseMs, doubling up to retryMaxMs (defaults 1 s and 60 s). */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  /** Commands looked at per pass (default 50). */
  readonly batch?: number;
  /** fee_limit of TRC20 transfers (default 100 TRX). */
  readonly feeLimitSun?: bigint;
}

/** What one pass did to one command. */
export interface CommandOutcome {
  readonly commandNo: string;
  readonly outcome: 'rejected' | 'sent' | 'completed' | 'failed' | 'waiting' | 'retrying' | 'lost';
}

const TRX = 1_000_000n;


/**
 * Executes the fund-moving commands other than collections — WITHDRAWAL (POST /transfers) and the staking commands —
 * with the collection's write-ahead discipline: risk check (blocked → REJECTED, no event: spec §6 has withdrawal
 * events for success and failure only), PENDING → RUNNING, the on-chain balance check, prepare → persist the signed
 * transaction on the command → broadcast, then SUCCESS or FAILED in one unit of work (which also releases the lock
 * and balance_locked) with the withdrawal.* event for withdrawals.
 * A resumed RUNNING command looks its txid up first: it never sends a second transaction while the first can land.
 * Versions fence concurrent workers: a loser's write fails before it broadcasts anything.
 */
export class CommandExecutor {
  private readonly completeOn: 'broadcast' | Confirmations;
  private readonly stakingConfirmations: Confirmations;
  private readonly resumeAfterMs: number;
  private readonly batch: number;
  private readonly feeLimitSun: bigint;
  private readonly backoff: RetryBackoff;
  /** Clock time before which a command is left alone (after a transient failure or while waiting for depth). */
  private readonly notBefore = new Map<string, number>();

  constructor(private readonly deps: CommandExecutorDeps, options: CommandExecutorOptions = {}) {
    this.completeOn = options.completeOn ?? 'broadcast';
    this.stakingConfirmations = options.stakingConfirmations ?? 1;
    this.resumeAfterMs = options.resumeAfterMs ?? 30_000;
    this.batch = options.batch ?? 50;
    this.feeLimitSun = options.feeLimitSun ?? 100n * TRX;
    this.backoff = new RetryBackoff(options.retryBaseMs ?? 1_000, options.retryMaxMs ?? 60_000);
  }

  /** One pass over pending commands and abandoned running ones; returns what happened to each. */
  async runDue(): Promise<CommandOutcome[]> {
    const now = this.deps.clock.now();
    const pending = await this.deps.commands.listPending(EXECUTED_COMMAND_TYPES, this.batch);
    const running = (await this.deps.commands.listRunning(EXECUTED_COMMAND_TYPES, this.batch))
      .filter((c) => this.mine.has(c.commandNo) || (c.startedAt ?? 0) + this.resumeAfterMs <= now);
    const outcomes: CommandOutcome[] = [];
    for (const command of [...pending, ...running]) {
      if ((this.notBefore.get(command.commandNo) ?? 0) > now) continue;
      outcomes.push(await this.runOne(command));
    }
    return outcomes;
  }

  /** Commands this worker started and is still following (it need not wait resumeAfterMs for its own). */
  private readonly mine = new Set<string>();

  private async runOne(command: Command): Promise<CommandOutcome> {
    const commandNo = command.commandNo;
    try {
      const outcome = await this.advance(command);
      this.backoff.reset(commandNo);
      if (outcome !== 'waiting') this.notBefore.delete(commandNo);
      if (outcome !== 'waiting' && outcome !== 'sent') this.mine.delete(commandNo);
      return { commandNo, outcome };
    } catch (error) {
      if (!(error instanceof ConcurrencyConflict) && !(error instanceof DomainError) && !(error instanceof InfrastructureError)) throw error;
      try {
        return await this.recover(commandNo, error);
      } catch (again) {
        if (again instanceof ConcurrencyConflict) return this.lost(commandNo);
        if (!(again instanceof DomainError) && !(again instanceof InfrastructureError)) throw again;
        // The store failed while recording the failure: look again later.
        this.notBefore.set(commandNo, this.deps.clock.now() + this.backoff.next(commandNo));
        return { commandNo, outcome: 'retrying' };
      }
    }
  }

  private lost(commandNo: string): CommandOutcome {
    this.mine.delete(commandNo);
    return { commandNo, outcome: 'lost' };
  }

  /**
   * After a failed pass: transient errors, and store errors once a transaction is persisted (it may be on its way),
   * retry with backoff; other business or chain errors fail the command.
   */
  private async recover(commandNo: string, error: ConcurrencyConflict | DomainError | InfrastructureError): Promise<CommandOutcome> {
    if (error instanceof ConcurrencyConflict) return this.lost(commandNo);
    const current = await this.deps.commands.get(commandNo);
    if (current === null || (current.status !== COMMAND_STATUS.RUNNING && current.status !== COMMAND_STATUS.PENDING)) return this.lost(commandNo);
    const storeErrorAfterPersist = error instanceof InfrastructureError && current.transaction !== null && !error.code.startsWith('CHAIN-');
    if ((error instanceof InfrastructureError && error.transient) || current.status === COMMAND_STATUS.PENDING || storeErrorAfterPersist) {
      this.notBefore.set(commandNo, this.deps.clock.now() + this.backoff.next(commandNo));
      return { commandNo, outcome: 'retrying' };
    }
    this.backoff.reset(commandNo);
    this.mine.delete(commandNo);
    await this.finish(current, false, error.code, error.message);
    return { commandNo, outcome: 'failed' };
  }

  /** When this command counts as done: withdrawals on broadcast by default (spec §6), staking on its confirmation. */
  private completion(command: Command): 'broadcast' | Confirmations {
    return command.type === COMMAND_TYPE.WITHDRAWAL ? this.completeOn : this.stakingConfirmations;
  }

  private async advance(command: Command): Promise<CommandOutcome['outcome']> {
    if (command.status === COMMAND_STATUS.PENDING) return this.start(command);
    if (command.transaction === null) return this.send(command);
    const completeOn = this.completion(command);
    const state = await followUp(this.deps.chain, command.transaction, completeOn === 'broadcast' ? 1 : completeOn);
    switch (state.kind) {
      case 'confirmed':
        return this.succeed(command);
      case 'failed':
        return this.fail(command, 'CHAIN-TRANSACTION-FAILED', `transaction ${command.transaction.txid} failed on chain: ${state.reason}`);
      case 'rebuild': {
        const dropped: Command = { ...command, transaction: null, version: command.version + 1 };
        await this.deps.commands.update(dropped);
        return this.send(dropped);
      }
      case 'waiting':
        // In the pool (or just rebroadcast): under 'broadcast' that already is the spec's "broadcast successfully".
        if (completeOn === 'broadcast') return this.succeed(command);
        this.notBefore.set(command.commandNo, this.deps.clock.now() + 3_000);
        return 'waiting';
    }
  }

  /** Risk control first (blocked → REJECTED), then PENDING → RUNNING; the loser of a race gets a conflict. */
  private async start(command: Command): Promise<CommandOutcome['outcome']> {
    const verdict = await this.deps.risk.check(riskSubjectOf(command));
    const now = this.deps.clock.now();
    if (verdict.blocked) {
      const status = commandTransition(command.status, 'reject')!;
      await this.deps.commands.update({
        ...command, status, errorCode: 'RISK-REVIEW-BLOCKED', lastError: verdict.reason, finishedAt: now, version: command.version + 1,
      });
      return 'rejected';
    }
    const running: Command = { ...command, status: commandTransition(command.status, 'start')!, startedAt: now, version: command.version + 1 };
    await this.deps.commands.update(running);
    this.mine.add(command.commandNo);
    return this.send(running);
  }

  /** Balance on chain now (where the command spends one), prepare, persist (write-ahead), broadcast. */
  private async send(command: Command): Promise<CommandOutcome['outcome']> {
    const from = command.address ?? '';
    const plan = planCommand(command, this.deps.assets, this.feeLimitSun);
    if (plan.requires !== null) {
      const { asset, amount } = plan.requires;
      const available = asset.kind === 'trc20'
        ? await this.deps.chain.getTokenBalance(from, asset.contractAddress!)
        : await sweepableSun(this.deps.chain, NATIVE_SETTINGS, from, plan.intent.kind === 'transfer-trx' ? plan.intent.to : undefined);
      if (available < amount) {
        return this.fail(command, 'BIZ-INSUFFICIENT-BALANCE', `${from} holds ${available} ${asset.symbol}, ${amount} requested`);
      }
    }
    const tx = await this.deps.chain.prepare(await signerFor(this.deps, from), plan.intent);
    // broadcastAt is stamped in the write-ahead record itself, before sending: from this write on, an admin cancel
    // (allowed only before anything was broadcast) is refused, so a cancel can never race the broadcast below.
    const persisted: Command = {
      ...command, transaction: { ...toPrepared(tx), broadcastAt: this.deps.clock.now() }, version: command.version + 1,
    };
    await this.deps.commands.update(persisted);
    await broadcastPrepared(this.deps.chain, persisted.transaction!);
    if (this.completion(command) === 'broadcast') return this.succeed(persisted);
    this.notBefore.set(command.commandNo, this.deps.clock.now() + 3_000);
    return 'sent';
  }

  private async succeed(command: Command): Promise<CommandOutcome['outcome']> {
    await this.finish(command, true, null, null);
    return 'completed';
  }

  private async fail(command: Command, code: ErrorCode, message: string): Promise<CommandOutcome['outcome']> {
    await this.finish(command, false, code, message);
    return 'failed';
  }

  /** SUCCESS or FAILED (and, for a withdrawal, its withdrawal.* event) in one unit of work. */
  private async finish(command: Command, ok: boolean, errorCode: string | null, lastError: string | null): Promise<void> {
    const now = this.deps.clock.now();
    const status = commandTransition(command.status, ok ? 'succeed' : 'fail');
    if (status === null) throw new ConcurrencyConflict('command', command.commandNo);
    const done: Command = { ...command, status, errorCode, lastError, finishedAt: now, version: command.version + 1 };
    const events = done.type === COMMAND_TYPE.WITHDRAWAL ? [withdrawalEvent(done, this.deps.ids.uuid(), now)] : [];
    await this.deps.uow.commit({ commands: [done], events });
  }
}

/** Bandwidth reserve for a native withdrawal: the balance must also pay the transfer's bytes when bandwidth is out. */
const NATIVE_SETTINGS: StepSettings = {
  gasSun: 0n, burnEnabled: false, burnFundingSun: 0n, feeLimitSun: 0n, transferBytes: 300, sunPerByte: 1_000n,
};
