import { validationError } from '../domain/errors.js';
import { COMMAND_TYPE, type CommandType } from '../domain/model/command.js';
import type { UserId } from '../domain/model/common.js';
import type { Resource } from '../ports/chain-gateway.port.js';
import type { StakingService } from './application.js';
import { AuditTrail } from './audit-trail.js';
import type { ResolvedDeps } from './deps.js';
import { submitFundCommand, type FundCommandDeps } from './fund-commands.js';
import { fieldsOf, requireChainAmount, requireString, type Fields } from './input.js';
import { ownedWallet } from './ownership.js';
import type { CommandAcceptedView } from './views.js';

const RESOURCES: readonly Resource[] = ['ENERGY', 'BANDWIDTH'];
/** The operation a staking command's audit entry names (its route's last path segment). */
const STAKING_OPERATIONS: Partial<Record<CommandType, string>> = {
  [COMMAND_TYPE.STAKE]: 'stake', [COMMAND_TYPE.UNSTAKE]: 'unstake', [COMMAND_TYPE.WITHDRAW_UNSTAKED]: 'withdraw-unstaked',
  [COMMAND_TYPE.VOTE]: 'vote', [COMMAND_TYPE.WITHDRAW_REWARD]: 'withdraw-reward',
};
/** TRON accepts at most 30 witnesses in one vote transaction. */
const MAX_VOTES = 30;

function parseResource(fields: Fields): Resource {
  const value = requireString(fields, 'resource', 16);
  const resource = RESOURCES.find((r) => r === value);
  if (resource === undefined) throw validationError('resource', 'must be ENERGY or BANDWIDTH');
  return resource;
}

/** The ports the staking use cases touch, with those of queuing a fund-moving command. */
export type StakingDeps = Pick<ResolvedDeps, 'chain' | 'wallets' | 'auditLog' | 'uow'> & FundCommandDeps;

/** Staking operations (session token), each a fund-moving command executed later by the worker. */
export class StakingUseCases implements StakingService {
  private readonly audit: AuditTrail;

  constructor(private readonly deps: StakingDeps) {
    this.audit = new AuditTrail(deps);
  }

  /** Freezes `amount` SUN for the resource; the SUN is held as balance_locked of TRX while pending. */
  async stake(userId: UserId, address: string, body: unknown): Promise<CommandAcceptedView> {
    const fields = fieldsOf(body);
    const resource = parseResource(fields);
    const amount = requireChainAmount(fields);
    return this.submit(userId, address, COMMAND_TYPE.STAKE, amount, { resource, amount: amount.toString(10) });
  }

  /** Unfreezes staked SUN (not part of the available balance, so nothing is held). */
  async unstake(userId: UserId, address: string, body: unknown): Promise<CommandAcceptedView> {
    const fields = fieldsOf(body);
    const resource = parseResource(fields);
    const amount = requireChainAmount(fields);
    return this.submit(userId, address, COMMAND_TYPE.UNSTAKE, 0n, { resource, amount: amount.toString(10) });
  }

  async withdrawUnstaked(userId: UserId, address: string): Promise<CommandAcceptedView> {
    return this.submit(userId, address, COMMAND_TYPE.WITHDRAW_UNSTAKED, 0n, {});
  }

  /** body {votes: [{witness, count}]}: 1 to 30 distinct witness addresses, positive integer counts. */
  async vote(userId: UserId, address: string, body: unknown): Promise<CommandAcceptedView> {
    const raw = fieldsOf(body)['votes'];
    if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_VOTES) {
      throw validationError('votes', `must be a list of 1 to ${MAX_VOTES} votes`);
    }
    const votes = raw.map((entry: unknown, i) => {
      const vote = fieldsOf(entry, `votes[${i}]`);
      const witness = vote['witness'];
      if (typeof witness !== 'string' || !this.deps.chain.isAddress(witness)) {
        throw validationError(`votes[${i}].witness`, 'must be a valid address');
      }
      const count = vote['count'];
      if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1) {
        throw validationError(`votes[${i}].count`, 'must be a positive integer');
      }
      return { witness, count };
    });
    if (new Set(votes.map((v) => v.witness)).size !== votes.length) throw validationError('votes', 'must name each witness once');
    return this.submit(userId, address, COMMAND_TYPE.VOTE, 0n, { votes: JSON.stringify(votes) });
  }

  async withdrawReward(userId: UserId, address: string): Promise<CommandAcceptedView> {
    return this.submit(userId, address, COMMAND_TYPE.WITHDRAW_REWARD, 0n, {});
  }

  /** The path address must be the caller's (404 like every path address), then risk (403) and lock (409). */
  private async submit(
    userId: UserId, address: string, type: CommandType, lockedAmount: bigint, params: Record<string, string>,
  ): Promise<CommandAcceptedView> {
    const wallet = await ownedWallet(this.deps.wallets, userId, address);
    const command = await submitFundCommand(
      this.deps,
      { userId, operation: 'stake', address: wallet.address, assetSymbol: 'TRX', ...(lockedAmount > 0n ? { amount: lockedAmount } : {}) },
      { userId, type, address: wallet.address, assetSymbol: 'TRX', lockedAmount, params },
      // The queued command lands with its staking.requested entry (issue #35 item 8); a refused insert records nothing.
      (insert, queued) => this.audit.recordWith(insert, (outcome) => outcome === 'locked' ? [] : [{
        userId, action: 'staking.requested', actor: { kind: 'user', id: null },
        detail: { command_no: queued.commandNo, type: STAKING_OPERATIONS[type] ?? String(type), address: wallet.address, ...params },
      }]),
    );
    return { command_no: command.commandNo, status: command.status };
  }
}
