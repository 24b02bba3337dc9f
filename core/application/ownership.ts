import { DomainError } from '../domain/errors.js';
import { visibleTo } from '../domain/wallet-rules.js';
import type { UserId } from '../domain/model/common.js';
import type { WalletAddress } from '../domain/model/wallet.js';
import type { WalletRepository } from '../ports/wallet-repository.port.js';

/**
 * The caller's wallet at `address`, else BIZ-WALLET-ADDRESS-NOT-FOUND. Another user's address behaves as missing.
 * Spec §7 answers this code differently on wallet reads and where a body names the address; that is the API route's
 * choice (hosts/api/error-status.ts), not this function's.
 */
export async function ownedWallet(wallets: WalletRepository, userId: UserId, address: string): Promise<WalletAddress> {
  const wallet = visibleTo(await wallets.findByAddress(address), userId);
  if (wallet === null) throw new DomainError('BIZ-WALLET-ADDRESS-NOT-FOUND');
  return wallet;
}
