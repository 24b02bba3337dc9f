import type pg from 'pg';
import type { Db, MongoClient } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { EncryptedEnvelope } from '../../core/domain/model/common.js';
import type { WalletAddress } from '../../core/domain/model/wallet.js';
import type { WalletRepository } from '../../core/ports/wallet-repository.port.js';
import { outboundCopy, storedCopy } from '../../adapters/memory/frozen-copy.js';
import type { MemoryStore } from '../../adapters/memory/memory-store.js';
import { MemoryWalletRepository } from '../../adapters/memory/memory-wallet-repository.js';
import { COLLECTIONS } from '../../adapters/mongodb/collections.js';
import { fromWalletDocument, type WalletDocument } from '../../adapters/mongodb/mongo-documents.js';
import type { CounterDocument } from '../../adapters/mongodb/mongo-id-generator.js';
import { MongoWalletRepository } from '../../adapters/mongodb/mongo-wallet-repository.js';
import { PgWalletRepository, walletFromRow } from '../../adapters/postgres/pg-wallet-repository.js';
import type { Row } from '../../adapters/postgres/pg-support.js';
import type { WalletKeyStore } from './key-backup.js';
import type { EncryptedRecordStore } from './key-rotation.js';
import { MongoEncryptedRecords } from './mongo-encrypted-records.js';
import { PgEncryptedRecords } from './pg-encrypted-records.js';

/**
 * A restored record goes through the store's own WalletRepository.insert (its unique address and one-main rules, and
 * MongoDB's sub-address counter), with no quota: the backup's records were within their quotas when made.
 */
async function insertRestored(wallets: WalletRepository, wallet: WalletAddress): Promise<boolean> {
  try {
    return (await wallets.insert(wallet, { maxSubAddresses: -1 })) === 'created';
  } catch (error) {
    if (error instanceof ConcurrencyConflict) return false; // the id is taken
    throw error;
  }
}

/**
 * After a restore the store's `wallet_address` sequence must be past every restored id, or the next wallet created
 * would be handed a taken id: each store raises its counter to at least the id (never lowers it).
 */
type RaiseSequence = (atLeast: number) => Promise<void>;

async function insertAndRaise(wallets: WalletRepository, wallet: WalletAddress, raise: RaiseSequence): Promise<boolean> {
  const inserted = await insertRestored(wallets, wallet);
  if (inserted) await raise(wallet.id);
  return inserted;
}

/** keys:rotate's compare-and-set of a wallet's envelope, shared by the durable stores. */
function replaceThrough(records: EncryptedRecordStore, wallets: WalletRepository) {
  return async (id: number, expected: EncryptedEnvelope, next: EncryptedEnvelope): Promise<boolean> => {
    const wallet = await wallets.findById(id);
    if (wallet === null) return false;
    return records.replace({ kind: 'wallet-key', id: String(id), aad: wallet.address, envelope: expected }, next);
  };
}

/** The PostgreSQL store's wallets for keys:export / keys:import. */
export class PgWalletKeys implements WalletKeyStore {
  private readonly wallets: PgWalletRepository;
  private readonly records: PgEncryptedRecords;

  constructor(private readonly pool: pg.Pool) {
    this.wallets = new PgWalletRepository(pool);
    this.records = new PgEncryptedRecords(pool);
  }

  async list(afterId: number, limit: number): Promise<WalletAddress[]> {
    const { rows } = await this.pool.query('SELECT * FROM wallet_addresses WHERE id > $1 ORDER BY id LIMIT $2', [afterId, limit]);
    return (rows as Row[]).map(walletFromRow);
  }

  findByAddress(address: string): Promise<WalletAddress | null> {
    return this.wallets.findByAddress(address);
  }

  insert(wallet: WalletAddress): Promise<boolean> {
    return insertAndRaise(this.wallets, wallet, async (atLeast) => {
      await this.pool.query(
        `INSERT INTO id_counters (sequence, last_value) VALUES ('wallet_address', $1)
         ON CONFLICT (sequence) DO UPDATE SET last_value = GREATEST(id_counters.last_value, EXCLUDED.last_value)`, [atLeast]);
    });
  }

  replaceKey(id: number, expected: EncryptedEnvelope, next: EncryptedEnvelope): Promise<boolean> {
    return replaceThrough(this.records, this.wallets)(id, expected, next);
  }
}

/** The MongoDB store's wallets for keys:export / keys:import. */
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
    return insertAndRaise(this.wallets, wallet, async (atLeast) => {
      await this.db.collection<CounterDocument>(COLLECTIONS.counters).updateOne({ _id: 'wallet_address' }, { $max: { value: atLeast } }, { upsert: true });
    });
  }

  replaceKey(id: number, expected: EncryptedEnvelope, next: EncryptedEnvelope): Promise<boolean> {
    return replaceThrough(this.records, this.wallets)(id, expected, next);
  }
}

/** The memory store's wallets (tests, and the reference of the contract suite). */
export class MemoryWalletKeys implements WalletKeyStore {
  private readonly wallets: MemoryWalletRepository;

  constructor(private readonly store: MemoryStore) {
    this.wallets = new MemoryWalletRepository(store);
  }

  async list(afterId: number, limit: number): Promise<WalletAddress[]> {
    return [...this.store.wallets.values()].filter((w) => w.id > afterId).sort((a, b) => a.id - b.id).slice(0, limit).map(outboundCopy);
  }

  findByAddress(address: string): Promise<WalletAddress | null> {
    return this.wallets.findByAddress(address);
  }

  insert(wallet: WalletAddress): Promise<boolean> {
    return insertAndRaise(this.wallets, wallet, async (atLeast) => {
      this.store.sequences.set('wallet_address', Math.max(this.store.sequences.get('wallet_address') ?? 0, atLeast));
    });
  }

  async replaceKey(id: number, expected: EncryptedEnvelope, next: EncryptedEnvelope): Promise<boolean> {
    const wallet = this.store.wallets.get(id);
    const held = wallet?.encryptedKey;
    if (wallet === undefined || held === undefined || held.keyId !== expected.keyId || held.iv !== expected.iv || held.ciphertext !== expected.ciphertext) return false;
    this.store.wallets.set(id, storedCopy({ ...wallet, encryptedKey: next, version: wallet.version + 1 }));
    return true;
  }
}
