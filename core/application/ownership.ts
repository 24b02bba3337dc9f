import { DomainError } from '../domain/errors.js';
import { visibleTo } from '../domain/wallet-rules.js';
import type { UserId } from '../domain/model/common.js';
import type { WalletAddress } from '../domain/model/wallet.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';

/**
 * The caller's wallet at `address`, else BIZ-WALLET-ADDRESS-NOT-FOUND: 404 on wallet reads, 422 on create collection
 * and create cashier token (spec §7 lists both statuses for the one code). Another user's address behaves as missing.
 */
export async function ownedWallet(
  wallets: WalletRepository, userId: UserId, address: string, status: 404 | 422 = 404,
): Promise<WalletAddress> {
  const wallet = visibleTo(await wallets.findByAddress(address), userId);
  if (wallet === null) throw new DomainError('BIZ-WALLET-ADDRESS-NOT-FOUND', { status });
  return wallet;
}
