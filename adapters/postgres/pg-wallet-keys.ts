import type pg from 'pg';
import type { EncryptedEnvelope } from '../../core/domain/model/common.js';
import type { WalletAddress } from '../../core/domain/model/wallet.js';
import type { WalletKeyStore } from '../../core/ports/wallet-key-store.port.js';
import { insertRestoredWallet, replaceWalletKey } from '../records/wallet-restore.js';
import { PgEncryptedRecords } from './pg-encrypted-records.js';
import type { Row } from './pg-support.js';
import { PgWalletRepository, walletFromRow } from './pg-wallet-repository.js';

/** The WalletKeyStore port on PostgreSQL (keys:export / keys:import; contract: contracts-tests/wallet-key-store.contract.ts). */
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
    return insertRestoredWallet(this.wallets, wallet, async (atLeast) => {
      await this.pool.query(
        `INSERT INTO id_counters (sequence, last_value) VALUES ('wallet_address', $1)
         ON CONFLICT (sequence) DO UPDATE SET last_value = GREATEST(id_counters.last_value, EXCLUDED.last_value)`, [atLeast]);
    });
  }

  replaceKey(id: number, expected: EncryptedEnvelope, next: EncryptedEnvelope): Promise<boolean> {
    return replaceWalletKey(this.records, this.wallets, id, expected, next);
  }
}
