import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { EncryptedEnvelope } from '../../core/domain/model/common.js';
import type { WalletAddress } from '../../core/domain/model/wallet.js';
import type { WalletKeyStore } from '../../core/ports/wallet-key-store.port.js';
import { outboundCopy } from './frozen-copy.js';
import { MemoryEncryptedRecords } from './memory-encrypted-records.js';
import type { MemoryStore } from './memory-store.js';
import { MemoryWalletRepository } from './memory-wallet-repository.js';

/**
 * The WalletKeyStore port in memory (tests, and the reference of contracts-tests/wallet-key-store.contract.ts). A
 * restored record goes through MemoryWalletRepository.insert (its unique address and one-main rules) with no quota,
 * and the wallet sequence is raised past its id.
 */
export class MemoryWalletKeys implements WalletKeyStore {
  private readonly wallets: MemoryWalletRepository;
  private readonly records: MemoryEncryptedRecords;

  constructor(private readonly store: MemoryStore) {
    this.wallets = new MemoryWalletRepository(store);
    this.records = new MemoryEncryptedRecords(store);
  }

  async list(afterId: number, limit: number): Promise<WalletAddress[]> {
    return [...this.store.wallets.values()].filter((w) => w.id > afterId).sort((a, b) => a.id - b.id).slice(0, limit).map(outboundCopy);
  }

  findByAddress(address: string): Promise<WalletAddress | null> {
    return this.wallets.findByAddress(address);
  }

  async insert(wallet: WalletAddress): Promise<boolean> {
    try {
      if ((await this.wallets.insert(wallet, { maxSubAddresses: -1 })) !== 'created') return false;
    } catch (error) {
      if (error instanceof ConcurrencyConflict) return false; // the id is taken
      throw error;
    }
    this.store.sequences.set('wallet_address', Math.max(this.store.sequences.get('wallet_address') ?? 0, wallet.id));
    return true;
  }

  async replaceKey(id: number, expected: EncryptedEnvelope, next: EncryptedEnvelope): Promise<boolean> {
    const wallet = this.store.wallets.get(id);
    if (wallet === undefined) return false;
    return this.records.replace({ kind: 'wallet-key', id: String(id), aad: wallet.address, envelope: expected }, next);
  }
}
