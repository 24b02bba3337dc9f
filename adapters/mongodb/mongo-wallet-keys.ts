import type { Db, MongoClient } from 'mongodb';
import type { EncryptedEnvelope } from '../../core/domain/model/common.js';
import type { WalletAddress } from '../../core/domain/model/wallet.js';
import type { WalletKeyStore } from '../../core/ports/wallet-key-store.port.js';
import { insertRestoredWallet, replaceWalletKey } from '../records/wallet-restore.js';
import { COLLECTIONS } from './collections.js';
import { fromWalletDocument, type WalletDocument } from './mongo-documents.js';
import { MongoEncryptedRecords } from './mongo-encrypted-records.js';
import type { CounterDocument } from './mongo-id-generator.js';
import { MongoWalletRepository } from './mongo-wallet-repository.js';

/** The WalletKeyStore port on MongoDB (keys:export / keys:import; contract: contracts-tests/wallet-key-store.contract.ts). */
export class MongoWalletKeys implements WalletKeyStore {
  private readonly wallets: MongoWalletRepository;
  private readonly records: MongoEncryptedRecords;

  /** `client` null: no multi-document transactions (a standalone server), as MongoWalletRepository. */
  constructor(private readonly db: Db, client: MongoClient | null) {
    this.wallets = new MongoWalletRepository(db, client);
    this.records = new MongoEncryptedRecords(db);
  }

  async list(afterId: number, limit: number): Promise<WalletAddress[]> {
    const docs = await this.db.collection<WalletDocument>(COLLECTIONS.wallets).find({ _id: { $gt: afterId } }).sort({ _id: 1 }).limit(limit).toArray();
    return docs.map(fromWalletDocument);
  }

  findByAddress(address: string): Promise<WalletAddress | null> {
    return this.wallets.findByAddress(address);
  }

  insert(wallet: WalletAddress): Promise<boolean> {
    return insertRestoredWallet(this.wallets, wallet, async (atLeast) => {
      await this.db.collection<CounterDocument>(COLLECTIONS.counters).updateOne({ _id: 'wallet_address' }, { $max: { value: atLeast } }, { upsert: true });
    });
  }

  replaceKey(id: number, expected: EncryptedEnvelope, next: EncryptedEnvelope): Promise<boolean> {
    return replaceWalletKey(this.records, this.wallets, id, expected, next);
  }
}
