import type { EncryptedEnvelope } from '../domain/model/common.js';
import type { WalletAddress } from '../domain/model/wallet.js';

/**
 * The wallet records as the key backup tools see them (`keys:export`, `keys:import`; hosts/keys): every wallet, in
 * pages by id, and a record written back with its own id. Adapters: MemoryWalletKeys, PgWalletKeys, MongoWalletKeys;
 * contract: contracts-tests/wallet-key-store.contract.ts. Only the operator tools use it: the service's own use cases
 * never walk every wallet nor choose a wallet's id.
 */
export interface WalletKeyStore {
  /** Wallet records with id > afterId, id ascending, at most `limit`; an empty page is the end. */
  list(afterId: number, limit: number): Promise<WalletAddress[]>;
  findByAddress(address: string): Promise<WalletAddress | null>;
  /**
   * Writes a restored record as given (its id kept): false, nothing written, when its id or address is taken or its
   * user already has a main address on the network. The store's wallet sequence then stands past the id (never lower),
   * so the next wallet the service creates gets a free id.
   */
  insert(wallet: WalletAddress): Promise<boolean>;
  /** Sets wallet `id`'s key envelope only while it still holds `expected` (compare-and-set; the version is bumped). */
  replaceKey(id: number, expected: EncryptedEnvelope, next: EncryptedEnvelope): Promise<boolean>;
}
