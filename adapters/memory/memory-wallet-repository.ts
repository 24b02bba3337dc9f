import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { ADDRESS_TYPE, type AddressType, type UserId, type WalletAddress } from '../../core/domain/model/index.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import type { WalletInsertOutcome, WalletRepository } from '../../core/ports/wallet-repository.port.js';
import { outboundCopies, outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';
import { userNetwork } from './memory-tables.js';
import { pageOf, pageOfKeys } from './paging.js';

/** Wallet addresses; the main/quota rules are checked and the row written in one synchronous step. */
export class MemoryWalletRepository implements WalletRepository {
  constructor(private readonly store: MemoryStore) {}

  async insert(wallet: WalletAddress, limits: { readonly maxSubAddresses: number }): Promise<WalletInsertOutcome> {
    if (this.store.walletIdsByAddress.has(wallet.address)) return 'address-exists';
    if (this.store.wallets.has(wallet.id)) throw new ConcurrencyConflict('wallet address', String(wallet.id));
    if (wallet.addressType === ADDRESS_TYPE.MAIN) {
      if (this.mainOf(wallet.userId, wallet.networkCode) !== undefined) return 'main-exists';
    } else if (limits.maxSubAddresses !== -1 && this.subsOf(wallet.userId, wallet.networkCode) >= limits.maxSubAddresses) {
      return 'quota-exceeded';
    }
    this.store.wallets.set(wallet.id, storedCopy(wallet));
    this.store.walletIdsByAddress.set(wallet.address, wallet.id);
    return 'created';
  }

  async findByAddress(address: string): Promise<WalletAddress | null> {
    // Read here rather than through findById: one async hop less on every wallet-scoped API request.
    const id = this.store.walletIdsByAddress.get(address);
    const wallet = id === undefined ? undefined : this.store.wallets.get(id);
    return wallet === undefined ? null : outboundCopy(wallet);
  }

  async findById(id: number): Promise<WalletAddress | null> {
    const wallet = this.store.wallets.get(id);
    return wallet === undefined ? null : outboundCopy(wallet);
  }

  async findMain(userId: UserId, networkCode: string): Promise<WalletAddress | null> {
    const main = this.mainOf(userId, networkCode);
    return main === undefined ? null : outboundCopy(main);
  }

  async countSubs(userId: UserId, networkCode: string): Promise<number> {
    return this.subsOf(userId, networkCode);
  }

  async listByUser(userId: UserId, filter: { readonly addressType?: AddressType }, page: PageRequest): Promise<Page<WalletAddress>> {
    const byUser = this.store.wallets.byUser;
    if (filter.addressType === undefined) return pageOfKeys(this.store.wallets, byUser.slice(userId, page.offset, page.limit));
    const matching = byUser.keys(userId).map((id) => this.store.wallets.get(id)!).filter((w) => w.addressType === filter.addressType);
    return pageOf(matching, page);
  }

  async findManaged(addresses: readonly string[]): Promise<WalletAddress[]> {
    const ids = new Set<number>();
    for (const address of addresses) {
      const id = this.store.walletIdsByAddress.get(address);
      if (id !== undefined) ids.add(id);
    }
    return outboundCopies([...ids].map((id) => this.store.wallets.get(id)!));
  }

  private mainOf(userId: UserId, networkCode: string): WalletAddress | undefined {
    const [first] = this.store.wallets.mains.keys(userNetwork(userId, networkCode));
    return first === undefined ? undefined : this.store.wallets.get(first);
  }

  private subsOf(userId: UserId, networkCode: string): number {
    return this.store.wallets.subCounts.counts.get(userNetwork(userId, networkCode)) ?? 0;
  }
}
