import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Deposit, UserId } from '../../core/domain/model/index.js';
import type { DepositFilter, DepositInsert, DepositRepository } from '../../core/ports/deposit-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { outboundCopies, outboundCopy, storedCopy } from './frozen-copy.js';
import { IndexedTable, OrderedGroupIndex } from './indexed-table.js';
import { JournaledMap } from './memory-scope.js';
import type { MemoryStore } from './memory-store.js';
import { pageOf, pageOfKeys } from './paging.js';

/** Deposits by id; by user newest first (detectedAt, then the later inserted), the order of listByUser. */
export class DepositTable extends IndexedTable<string, Deposit> {
  readonly byUser = this.index(new OrderedGroupIndex<string, Deposit, UserId>((d) => d.userId, (d) => d.detectedAt, true));
  /** `${networkCode}\u0000${transferId}` -> depositId: the one-record-per-transfer rule. */
  readonly idsByTransfer = new JournaledMap<string, string>();
}

/** The key of DepositTable.idsByTransfer. */
export const transferKey = (networkCode: string, transferId: string): string => `${networkCode}\u0000${transferId}`;

/** Deposit records; the per-transfer uniqueness is checked and the row written in one synchronous step. */
export class MemoryDepositRepository implements DepositRepository {
  constructor(private readonly store: MemoryStore) {}

  async insert(deposit: Deposit): Promise<DepositInsert> {
    const table = this.store.deposits;
    const key = transferKey(deposit.networkCode, deposit.transferId);
    const existing = table.idsByTransfer.get(key);
    if (existing !== undefined) return { created: false, deposit: outboundCopy(table.get(existing)!) };
    if (table.has(deposit.depositId)) throw new ConcurrencyConflict('deposit', deposit.depositId);
    table.set(deposit.depositId, storedCopy(deposit));
    table.idsByTransfer.set(key, deposit.depositId);
    return { created: true, deposit: outboundCopy(deposit) };
  }

  async findById(depositId: string): Promise<Deposit | null> {
    const deposit = this.store.deposits.get(depositId);
    return deposit === undefined ? null : outboundCopy(deposit);
  }

  async findByTransfer(networkCode: string, transferId: string): Promise<Deposit | null> {
    const id = this.store.deposits.idsByTransfer.get(transferKey(networkCode, transferId));
    return id === undefined ? null : this.findById(id);
  }

  async update(deposit: Deposit): Promise<void> {
    const stored = this.store.deposits.get(deposit.depositId);
    if (stored === undefined || stored.version !== deposit.version - 1
      || stored.transferId !== deposit.transferId || stored.networkCode !== deposit.networkCode) {
      throw new ConcurrencyConflict('deposit', deposit.depositId);
    }
    this.store.deposits.set(deposit.depositId, storedCopy(deposit));
  }

  async listByUser(userId: UserId, filter: DepositFilter, page: PageRequest): Promise<Page<Deposit>> {
    const table = this.store.deposits;
    if (filter.address === undefined && filter.assetSymbol === undefined && filter.status === undefined) {
      return pageOfKeys(table, table.byUser.slice(userId, page.offset, page.limit));
    }
    const matching = table.byUser.keys(userId).map((id) => table.get(id)!).filter((d) => (filter.address === undefined || d.address === filter.address)
      && (filter.assetSymbol === undefined || d.assetSymbol === filter.assetSymbol) && (filter.status === undefined || d.status === filter.status));
    return pageOf(matching, page);
  }

  async listPendingUpTo(networkCode: string, blockNumber: number, limit: number): Promise<Deposit[]> {
    // A scan: pending records are few (they leave within the solidification delay) and the embedded store is small.
    const due = [...this.store.deposits.values()].filter((d) => d.status === 'pending' && d.networkCode === networkCode && d.blockNumber <= blockNumber)
      .sort((a, b) => a.blockNumber - b.blockNumber || (a.depositId < b.depositId ? -1 : a.depositId > b.depositId ? 1 : 0));
    return outboundCopies(due.slice(0, Math.max(0, limit)));
  }

  async listAutoCollectDue(networkCode: string, limit: number): Promise<Deposit[]> {
    // A scan, like listPendingUpTo: due triggers are few (each leaves at its first judgement unless the fee cap holds it).
    const due = [...this.store.deposits.values()]
      .filter((d) => (d.autoCollect === 'due' || d.autoCollectTask !== undefined) && d.networkCode === networkCode)
      .sort((a, b) => (a.confirmedAt ?? 0) - (b.confirmedAt ?? 0) || (a.depositId < b.depositId ? -1 : a.depositId > b.depositId ? 1 : 0));
    return outboundCopies(due.slice(0, Math.max(0, limit)));
  }
}
