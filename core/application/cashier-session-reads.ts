import type { CashierToken, Deposit } from '../domain/model/index.js';
import type { CashierSessionSource, CashierTokenRepository } from '../ports/cashier-token-repository.port.js';
import type { CollectionTaskRepository } from '../ports/collection-task-repository.port.js';
import type { DepositRepository } from '../ports/deposit-repository.port.js';
import type { DeveloperConfigRepository } from '../ports/developer-config-repository.port.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';

/** The single reads (and the slide) CashierTokenRepository.readSession stands for. */
export interface CashierSessionPorts {
  readonly cashierTokens: Pick<CashierTokenRepository, 'extendExpiry'>;
  readonly wallets: Pick<WalletRepository, 'findById'>;
  readonly tasks: Pick<CollectionTaskRepository, 'findLatestByAddress'>;
  readonly developerConfigs: Pick<DeveloperConfigRepository, 'get'>;
  readonly deposits: Pick<DepositRepository, 'listByUser'>;
}

const PAGE = 100;

/**
 * readSession by the single reads, sent together after the slide: the memory and MongoDB stores' implementation and
 * the reference PostgreSQL's one statement is compared with.
 */
export async function readSessionBySingleReads(
  ports: CashierSessionPorts, token: CashierToken, expiresAt: number,
): Promise<CashierSessionSource | null> {
  await ports.cashierTokens.extendExpiry(token.tokenNo, expiresAt);
  const [wallet, latestTask, config, deposits] = await Promise.all([
    ports.wallets.findById(token.walletAddressId), ports.tasks.findLatestByAddress(token.address),
    ports.developerConfigs.get(token.userId), paymentDeposits(ports.deposits, token),
  ]);
  if (wallet === null) return null;
  return {
    wallet: { id: wallet.id, address: wallet.address, networkCode: wallet.networkCode, label: wallet.label },
    latestTask,
    config: config === null ? null : {
      minCollectAmounts: config.minCollectAmounts,
      ...(config.autoCollect === undefined ? {} : { autoCollect: config.autoCollect }),
      ...(config.displayName === undefined ? {} : { displayName: config.displayName }),
    },
    deposits,
  };
}

/** The deposits that may pay the token's request, newest first, read page by page until one is older than the token. */
async function paymentDeposits(deposits: CashierSessionPorts['deposits'], token: CashierToken): Promise<Pick<Deposit, 'txid' | 'amount' | 'status' | 'detectedAt'>[]> {
  const request = token.payment;
  if (request === undefined) return [];
  const found: Pick<Deposit, 'txid' | 'amount' | 'status' | 'detectedAt'>[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await deposits.listByUser(token.userId, { address: token.address, assetSymbol: request.assetSymbol }, { offset, limit: PAGE });
    for (const d of page.items) {
      if (d.detectedAt < token.createdAt) return found;
      found.push({ txid: d.txid, amount: d.amount, status: d.status, detectedAt: d.detectedAt });
    }
    if (page.items.length < PAGE) return found;
  }
}
