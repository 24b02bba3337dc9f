import { DomainError } from '../../domain/errors.js';
import type { AssetRegistry } from '../../domain/assets.js';
import type { Asset } from '../../domain/model/asset.js';
import { COMMAND_TYPE, type Command, type CommandType } from '../../domain/model/command.js';
import type { Resource, TransactionIntent } from '../../ports/chain-gateway.port.js';
import type { RiskSubject } from '../../ports/risk-policy.port.js';

/** The command types the command executor runs (everything fund-moving except COLLECTION, which has its tasks). */
export const EXECUTED_COMMAND_TYPES: readonly CommandType[] = [
  COMMAND_TYPE.WITHDRAWAL, COMMAND_TYPE.STAKE, COMMAND_TYPE.UNSTAKE, COMMAND_TYPE.WITHDRAW_UNSTAKED,
  COMMAND_TYPE.VOTE, COMMAND_TYPE.WITHDRAW_REWARD,
];

/** What a command sends: the intent, and the on-chain balance it needs first (null when the chain itself checks). */
export interface CommandPlan {
  readonly intent: TransactionIntent;
  readonly requires: { readonly asset: Asset; readonly amount: bigint } | null;
}

function param(command: Command, name: string): string {
  const value = command.params[name];
  // The use cases wrote these params; a missing one is a corrupted command, failed rather than guessed.
  if (value === undefined) throw new DomainError('VALIDATION-ERROR', { message: `command ${command.commandNo} has no ${name}` });
  return value;
}

function resource(command: Command): Resource {
  const value = param(command, 'resource');
  if (value !== 'ENERGY' && value !== 'BANDWIDTH') throw new DomainError('VALIDATION-ERROR', { message: `unknown resource ${value}` });
  return value;
}

function assetOf(assets: AssetRegistry, command: Command): Asset {
  const asset = assets.find('TRON', command.assetSymbol ?? 'TRX');
  if (asset === null) throw new DomainError('BIZ-ASSET-NOT-FOUND', { message: `asset ${command.assetSymbol ?? ''} is not configured` });
  return asset;
}

/** The transaction a command asks for, from the parameters its use case stored. */
export function planCommand(command: Command, assets: AssetRegistry, feeLimitSun: bigint): CommandPlan {
  switch (command.type) {
    case COMMAND_TYPE.WITHDRAWAL: {
      const asset = assetOf(assets, command);
      const to = param(command, 'to_address');
      const amount = BigInt(param(command, 'amount'));
      const intent: TransactionIntent = asset.kind === 'trc20'
        ? { kind: 'transfer-trc20', contract: asset.contractAddress!, to, amount, feeLimitSun }
        : { kind: 'transfer-trx', to, amountSun: amount };
      return { intent, requires: { asset, amount } };
    }
    case COMMAND_TYPE.STAKE: {
      const amount = BigInt(param(command, 'amount'));
      return { intent: { kind: 'freeze', resource: resource(command), amountSun: amount }, requires: { asset: assetOf(assets, command), amount } };
    }
    case COMMAND_TYPE.UNSTAKE:
      return { intent: { kind: 'unfreeze', resource: resource(command), amountSun: BigInt(param(command, 'amount')) }, requires: null };
    case COMMAND_TYPE.WITHDRAW_UNSTAKED:
      return { intent: { kind: 'withdraw-unfrozen' }, requires: null };
    case COMMAND_TYPE.VOTE:
      return { intent: { kind: 'vote', votes: JSON.parse(param(command, 'votes')) as { witness: string; count: number }[] }, requires: null };
    case COMMAND_TYPE.WITHDRAW_REWARD:
      return { intent: { kind: 'withdraw-reward' }, requires: null };
    default:
      throw new DomainError('VALIDATION-ERROR', { message: `command type ${command.type} is not executed here` });
  }
}

/** What risk control looks at for the command (the same subject its use case checked at creation). */
export function riskSubjectOf(command: Command): RiskSubject {
  const base = { userId: command.userId, address: command.address ?? '', assetSymbol: command.assetSymbol ?? 'TRX' };
  if (command.type === COMMAND_TYPE.WITHDRAWAL) {
    return { ...base, operation: 'withdrawal', toAddress: command.params['to_address'] ?? '', amount: BigInt(command.params['amount'] ?? '0') };
  }
  return { ...base, operation: 'stake', ...(command.lockedAmount > 0n ? { amount: command.lockedAmount } : {}) };
}
