import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { ADDRESS_TYPE, type AddressType, type UserId, type WalletAddress } from '../../core/domain/model/index.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import type { WalletInsertOutcome, WalletRepository } from '../../core/ports/wallet-repository.port.js';
import { WALLET_RECORD } from '../records/wallet-record.js';
import { prepared } from './pg-prepared.js';
import { guarded, inTransaction, isUniqueViolation, type Queryable, type Row } from './pg-support.js';
import { PgTable } from './pg-table.js';

/**
 * First key of the two-key advisory locks of the sub-address quota (the second is `user:network` hashed to 32 bits).
 * A hash collision only makes two (user, network) pairs wait for each other.
 */
export const WALLET_QUOTA_LOCK_SPACE = 0x77717461; // "wqta"

/** The `wallet_addresses` table, from the record's descriptor. */
const WALLETS = new PgTable(WALLET_RECORD);
const TABLE = WALLETS.table;
const ADDRESS_CONSTRAINT = 'wallet_addresses_address_unique';
const ONE_MAIN_CONSTRAINT = 'wallet_addresses_one_main';
const PRIMARY_KEY_CONSTRAINT = 'wallet_addresses_pkey';
/** Row of `wallet_addresses` -> domain wallet (also read by the key backup tool, hosts/keys). */
export function walletFromRow(row: Row): WalletAddress {
  return WALLETS.fromRow(row);
}

/**
 * Wallet addresses. "One main address per (user, network)" is a partial unique index. The sub-address quota is
 * counted and kept in one transaction holding the (user, network) advisory lock: every other sub-address insert of
 * that pair, from any process, waits, and (READ COMMITTED) its count, a later statement, sees what the holder
 * committed. A unique address is the unique constraint, whichever user or network races for it.
 */
export class PgWalletRepository implements WalletRepository {
  constructor(private readonly pool: pg.Pool) {}

  insert(wallet: WalletAddress, limits: { readonly maxSubAddresses: number }): Promise<WalletInsertOutcome> {
    return guarded('wallet insert', async () => {
            try {
        if (wallet.addressType === ADDRESS_TYPE.MAIN) {
          // A transaction of its own, or a savepoint inside an atomic scope (the creation's audit entry, issue #35
          // item 8): a duplicate then undoes only this insert, and classifyDuplicate can still read.
          await inTransaction(this.pool, (client) => WALLETS.insert(client, wallet));
          return 'created';
        }
        return await inTransaction(this.pool, async (client) => {
          await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2::text))',
            [WALLET_QUOTA_LOCK_SPACE, `${wallet.userId}:${wallet.networkCode}`]);
          // Same precedence as the memory adapter: a known address wins over the quota verdict.
          if (await addressTaken(client, wallet.address)) return 'address-exists';
          if (limits.maxSubAddresses !== -1 && (await countSubs(client, wallet.userId, wallet.networkCode)) >= limits.maxSubAddresses) {
            return 'quota-exceeded';
          }
          await WALLETS.insert(client, wallet);
          return 'created';
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        return this.classifyDuplicate(wallet, error);
      }
    });
  }

  findByAddress(address: string): Promise<WalletAddress | null> {
    return guarded('wallet read', () => this.findOne('address = $1', [address]));
  }

  findById(id: number): Promise<WalletAddress | null> {
    return guarded('wallet read', () => this.findOne('id = $1', [id]));
  }

  findMain(userId: UserId, networkCode: string): Promise<WalletAddress | null> {
    return guarded('wallet read', () =>
      this.findOne(`user_id = $1 AND network_code = $2 AND address_type = ${ADDRESS_TYPE.MAIN}`, [userId, networkCode]));
  }

  countSubs(userId: UserId, networkCode: string): Promise<number> {
    return guarded('wallet count', () => countSubs(this.pool, userId, networkCode));
  }

  listByUser(userId: UserId, filter: { readonly addressType?: AddressType }, page: PageRequest): Promise<Page<WalletAddress>> {
    return guarded('wallet list', () => {
      const params: unknown[] = [userId];
      let where = 'user_id = $1';
      if (filter.addressType !== undefined) where += ` AND address_type = $${params.push(filter.addressType)}`;
      return WALLETS.page(this.pool, { where, order: 'id', params }, page);
    });
  }

  findManaged(addresses: readonly string[]): Promise<WalletAddress[]> {
    return guarded('wallet read', async () => {
      const unique = [...new Set(addresses)];
      if (unique.length === 0) return [];
      const found = await WALLETS.select(this.pool, 'address = ANY($1::text[])', [unique]);
      const byAddress = new Map(found.map((wallet) => [wallet.address, wallet]));
      // In the order asked, like the memory adapter.
      return unique.flatMap((address) => byAddress.get(address) ?? []);
    });
  }

  private async findOne(where: string, params: unknown[]): Promise<WalletAddress | null> {
    return WALLETS.first(prepared(this.pool), where, params);
  }

  /**
   * Which rule a unique violation stands for. The server reports only the first index it checked, so a read settles
   * the precedence the other stores keep: a known address first, then a reused id (a caller bug), then the main rule.
   */
  private async classifyDuplicate(wallet: WalletAddress, error: unknown): Promise<WalletInsertOutcome> {
    if (isUniqueViolation(error, ADDRESS_CONSTRAINT) || (await addressTaken(this.pool, wallet.address))) return 'address-exists';
    if (isUniqueViolation(error, PRIMARY_KEY_CONSTRAINT)) throw new ConcurrencyConflict('wallet address', String(wallet.id));
    if (isUniqueViolation(error, ONE_MAIN_CONSTRAINT)) return 'main-exists';
    throw error;
  }
}

async function addressTaken(q: Queryable, address: string): Promise<boolean> {
  const { rows } = await q.query(`SELECT 1 FROM ${TABLE} WHERE address = $1`, [address]);
  return rows.length > 0;
}

async function countSubs(q: Queryable, userId: UserId, networkCode: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `SELECT count(*)::bigint AS n FROM ${TABLE} WHERE user_id = $1 AND network_code = $2 AND address_type = ${ADDRESS_TYPE.SUB}`,
    [userId, networkCode],
  );
  return rows[0]!.n;
}
