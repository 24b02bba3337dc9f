import type { UserId } from '../domain/model/common.js';
import type { AddressType, WalletAddress } from '../domain/model/wallet.js';
import type { Page, PageRequest } from './page.js';

export type WalletInsertOutcome = 'created' | 'main-exists' | 'quota-exceeded' | 'address-exists';

export interface WalletRepository {
  /**
   * Inserts atomically under the two rules the store must enforce even between processes:
   * a main address is refused when the user has one for the network ('main-exists'); a sub-address is refused when
   * the user already has `maxSubAddresses` sub-addresses on the network ('quota-exceeded'; -1 means unlimited).
   */
  insert(wallet: WalletAddress, limits: { readonly maxSubAddresses: number }): Promise<WalletInsertOutcome>;
  /** Global lookup by on-chain address (ownership is checked by the caller). */
  findByAddress(address: string): Promise<WalletAddress | null>;
  findById(id: number): Promise<WalletAddress | null>;
  findMain(userId: UserId, networkCode: string): Promise<WalletAddress | null>;
  countSubs(userId: UserId, networkCode: string): Promise<number>;
  /** The user's addresses ordered by id ascending, optionally of one type. */
  listByUser(userId: UserId, filter: { readonly addressType?: AddressType }, page: PageRequest): Promise<Page<WalletAddress>>;
  /** Which of the given addresses are managed here (for the block scanner); unknown ones are left out. */
  findManaged(addresses: readonly string[]): Promise<WalletAddress[]>;
}
