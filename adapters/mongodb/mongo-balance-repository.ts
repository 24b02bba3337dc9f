import type { Collection, Db } from 'mongodb';
import type { BalanceSnapshot } from '../../core/domain/model/index.js';
import type { BalanceRepository, BalanceViewSource } from '../../core/ports/balance-repository.port.js';
import { COLLECTIONS } from './collections.js';
import { activeOn } from './mongo-command-repository.js';
import type { BalanceDocument, CommandDocument, WalletDocument } from './mongo-documents.js';
import { guarded, isDuplicateKey } from './mongo-support.js';
import { BALANCE_RECORD, WALLET_RECORD } from '../records/wallet-record.js';
import { COMMAND_RECORD } from '../records/command-record.js';
import { fromDocument, toDocument } from './mongo-table.js';

/** Cached balance snapshots per address; an older snapshot never replaces a newer one. */
export class MongoBalanceRepository implements BalanceRepository {
  private readonly balances: Collection<BalanceDocument>;
  private readonly wallets: Collection<WalletDocument>;
  private readonly commands: Collection<CommandDocument>;

  constructor(db: Db) {
    this.balances = db.collection<BalanceDocument>(COLLECTIONS.balances);
    this.wallets = db.collection<WalletDocument>(COLLECTIONS.wallets);
    this.commands = db.collection<CommandDocument>(COLLECTIONS.commands);
  }

  get(address: string): Promise<BalanceSnapshot | null> {
    return guarded('balance read', async () => {
      const doc = await this.balances.findOne({ _id: address });
      return doc === null ? null : fromDocument(BALANCE_RECORD, doc);
    });
  }

  /** Three reads sent together (a collection per record; no join worth its cost here). */
  readView(address: string): Promise<BalanceViewSource | null> {
    return guarded('balance read', async () => {
      const [wallet, snapshot, active] = await Promise.all([
        this.wallets.findOne({ address }),
        this.balances.findOne({ _id: address }),
        this.commands.findOne(activeOn(address), { sort: { createdAt: 1, insertedSeq: 1 } }),
      ]);
      if (wallet === null) return null;
      const { userId, networkCode, createdAt } = fromDocument(WALLET_RECORD, wallet);
      const command = active === null ? null : fromDocument(COMMAND_RECORD, active);
      return {
        wallet: { userId, networkCode, address, createdAt },
        snapshot: snapshot === null ? null : fromDocument(BALANCE_RECORD, snapshot),
        active: command === null ? null : { assetSymbol: command.assetSymbol, lockedAmount: command.lockedAmount },
      };
    });
  }

  put(snapshot: BalanceSnapshot): Promise<void> {
    return guarded('balance write', async () => {
      const doc = toDocument(BALANCE_RECORD, snapshot);
      const notNewer = { _id: doc._id, updatedAt: { $lte: doc.updatedAt } };
      try {
        // Replaces a snapshot that is not newer, or inserts when there is none.
        await this.balances.replaceOne(notNewer, doc, { upsert: true });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // The upsert found no match and lost the insert to a concurrent put: a snapshot exists now but may be
        // older than ours, so try the conditional replace once more, without inserting (snapshots are never deleted).
        await this.balances.replaceOne(notNewer, doc);
      }
    });
  }

  /** One put after the other: each is a conditional upsert with its own duplicate-key retry. */
  async putAll(snapshots: readonly BalanceSnapshot[]): Promise<void> {
    for (const snapshot of snapshots) await this.put(snapshot);
  }
}
