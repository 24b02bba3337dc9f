import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { EncryptedEnvelope } from '../../core/domain/model/common.js';
import type { WalletAddress } from '../../core/domain/model/wallet.js';
import type { EncryptedRecordStore } from '../../core/ports/encrypted-record-store.port.js';
import type { WalletRepository } from '../../core/ports/wallet-repository.port.js';

/**
 * WalletKeyStore.insert on a durable store: the restored record goes through the store's own WalletRepository.insert
 * (its unique address and one-main rules, and MongoDB's sub-address counter), with no quota — the backup's records
 * were within their quotas when made. Then the store's `wallet_address` sequence is raised to at least the id (never
 * lowered), or the next wallet created would be handed a taken id.
 */
export async function insertRestoredWallet(wallets: WalletRepository, wallet: WalletAddress, raise: (atLeast: number) => Promise<void>): Promise<boolean> {
  let inserted: boolean;
  try {
    inserted = (await wallets.insert(wallet, { maxSubAddresses: -1 })) === 'created';
  } catch (error) {
    if (error instanceof ConcurrencyConflict) return false; // the id is taken
    throw error;
  }
  if (inserted) await raise(wallet.id);
  return inserted;
}

/** WalletKeyStore.replaceKey on a durable store: the wallet's key, as its EncryptedRecordStore's compare-and-set. */
export async function replaceWalletKey(
  records: EncryptedRecordStore, wallets: WalletRepository, id: number, expected: EncryptedEnvelope, next: EncryptedEnvelope,
): Promise<boolean> {
  const wallet = await wallets.findById(id);
  if (wallet === null) return false;
  return records.replace({ kind: 'wallet-key', id: String(id), aad: wallet.address, envelope: expected }, next);
}
