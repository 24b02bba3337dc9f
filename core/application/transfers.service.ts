import { validationError } from '../domain/errors.js';
import { COMMAND_TYPE } from '../domain/model/command.js';
import type { UserId } from '../domain/model/common.js';
import type { TransfersService } from './application.js';
import { AuditTrail } from './audit-trail.js';
import { assetOf } from './collection-starter.js';
import type { ResolvedDeps } from './deps.js';
import { submitFundCommand, type FundCommandDeps } from './fund-commands.js';
import { fieldsOf, requireChainAmount, requireString } from './input.js';
import { ownedWallet } from './ownership.js';
import type { CommandAcceptedView } from './views.js';

/** The ports the transfer use case touches, with those of queuing a fund-moving command. */
export type TransfersDeps = Pick<ResolvedDeps, 'chain' | 'wallets' | 'assets' | 'auditLog'> & FundCommandDeps;

/** Withdrawals (session token): a PENDING WITHDRAWAL command the worker signs and broadcasts later. */
export class TransfersUseCases implements TransfersService {
  private readonly audit: AuditTrail;

  constructor(private readonly deps: TransfersDeps) {
    this.audit = new AuditTrail(deps);
  }

  /**
   * Order: fields present, amount (BIZ-AMOUNT-INVALID), to_address syntax (VALIDATION-ERROR), from_address owned
   * (422 BIZ-WALLET-ADDRESS-NOT-FOUND, as for every body-named address), asset, risk (403, recorded REJECTED),
   * lock (409). The amount is held as balance_locked while the command is active; the balance itself is checked
   * on chain by the worker, since the cached snapshot may be stale.
   */
  async create(userId: UserId, body: unknown): Promise<CommandAcceptedView> {
    const fields = fieldsOf(body);
    const from = requireString(fields, 'from_address', 128);
    const to = requireString(fields, 'to_address', 128);
    const symbol = requireString(fields, 'asset_symbol', 32);
    const amount = requireChainAmount(fields);
    if (!this.deps.chain.isAddress(to)) throw validationError('to_address', 'is not a valid address');
    if (to === from) throw validationError('to_address', 'must differ from from_address');
    const wallet = await ownedWallet(this.deps.wallets, userId, from);
    const asset = assetOf(this.deps, wallet, symbol);
    const command = await submitFundCommand(
      this.deps,
      { userId, operation: 'withdrawal', address: wallet.address, toAddress: to, assetSymbol: asset.symbol, amount },
      {
        userId, type: COMMAND_TYPE.WITHDRAWAL, address: wallet.address, assetSymbol: asset.symbol, lockedAmount: amount,
        params: { to_address: to, amount: amount.toString(10) },
      },
    );
    await this.audit.record({
      userId, action: 'withdrawal.requested', actor: { kind: 'user', id: null },
      detail: { command_no: command.commandNo, from_address: wallet.address, to_address: to, asset_symbol: asset.symbol, amount: amount.toString(10) },
    });
    return { command_no: command.commandNo, status: command.status };
  }
}
