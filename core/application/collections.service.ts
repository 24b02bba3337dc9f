import { DomainError, validationError } from '../domain/errors.js';
import { parsePageQuery, toItemsPage } from '../domain/pagination.js';
import { visibleTo } from '../domain/wallet-rules.js';
import type { UserId } from '../domain/model/common.js';
import { COLLECTION_STATUS, type CollectionStatus, type CollectionTask } from '../domain/model/collection-task.js';
import { ADDRESS_TYPE } from '../domain/model/wallet.js';
import type { CollectionsService } from './application.js';
import { AuditTrail } from './audit-trail.js';
import { assetOf, startCollection, sweepableOnChainOrRefuse, type CollectionStarterDeps } from './collection-starter.js';
import type { ResolvedDeps } from './deps.js';
import { bookedCollectionFees, toCollectionCostView, type CollectionCostView } from './collection-cost-view.js';
import { fieldsOf, optionalEnum, optionalString, requireString } from './input.js';
import { toTaskListItemView, toTaskView } from './mappers.js';
import { ownedWallet } from './ownership.js';
import type { CollectionTaskListItemView, CollectionTaskView, ItemsPage } from './views.js';

const TASK_STATUSES = Object.values(COLLECTION_STATUS) as CollectionStatus[];

/** The ports the collection use cases touch, with those of starting a collection. */
export type CollectionsDeps = Pick<ResolvedDeps, 'wallets' | 'tasks' | 'assets' | 'chain'> & CollectionStarterDeps
  & Partial<Pick<ResolvedDeps, 'auditLog'>>;

/** Wallet-side collection (sweep) tasks (spec §4 "Collection"). */
export class CollectionsUseCases implements CollectionsService {
  constructor(private readonly deps: CollectionsDeps) {}

  /**
   * Checks in this order: address missing or another user's (422 BIZ-WALLET-ADDRESS-NOT-FOUND), not a sub-address,
   * unknown asset, risk (403), active command (409), then a cached balance a sweep cannot move (dust: 422
   * BIZ-AMOUNT-BELOW-MINIMUM, before any task exists). Idempotency-Key replay is the host's concern.
   */
  async create(userId: UserId, body: unknown): Promise<CollectionTaskView> {
    const fields = fieldsOf(body);
    const address = requireString(fields, 'address', 128);
    const symbol = requireString(fields, 'asset_symbol', 32);
    const wallet = await ownedWallet(this.deps.wallets, userId, address);
    if (wallet.addressType !== ADDRESS_TYPE.SUB) throw new DomainError('BIZ-ADDRESS-TYPE-NOT-SUB');
    const asset = assetOf(this.deps, wallet, symbol);
    const { auditLog } = this.deps;
    // The command and its task land with collection.requested (issue #35 item 8), naming the token or member that asked.
    const scope = auditLog === undefined ? undefined : (commit: () => Promise<void>, task: CollectionTask) => new AuditTrail({ auditLog, uow: this.deps.uow, clock: this.deps.clock })
      .recordWith(commit, () => ({
        userId, action: 'collection.requested', actor: { kind: 'user', id: null },
        detail: { task_no: task.taskNo, command_no: task.commandNo, address: task.address, asset_symbol: task.assetSymbol },
      }));
    return toTaskView(await startCollection(this.deps, wallet, asset, async (available) => {
      await sweepableOnChainOrRefuse(this.deps.chain, asset, wallet.address, available);
    }, {}, scope));
  }

  async get(userId: UserId, taskNo: string): Promise<CollectionTaskView> {
    return toTaskView(await this.owned(userId, taskNo));
  }

  /**
   * What the task cost so far, from its receipts (extension; docs/decisions.md 53): owner-scoped exactly like
   * {@link get}, so another user's task is 404 BIZ-COLLECTION-TASK-NOT-FOUND like a missing one.
   */
  /** `status` (a task status) and `address` (a sub-address) filter; paged exactly like GET /commands (issue #34). */
  async list(userId: UserId, query: unknown): Promise<ItemsPage<CollectionTaskListItemView>> {
    const fields = fieldsOf(query, 'query');
    const status = optionalEnum(fields, 'status', TASK_STATUSES);
    const address = optionalString(fields, 'address', 128);
    if (address === '') throw validationError('address', 'must not be empty');
    const page = parsePageQuery(fields, 'standard');
    const filter = { ...(status === undefined ? {} : { status }), ...(address === null ? {} : { address }) };
    const found = await this.deps.tasks.listByUser(userId, filter, page);
    return toItemsPage(found.items.map(toTaskListItemView), found.total, page.page, page.perPage);
  }

  /** Once the task is booked in the ledger (issue #36), its chain fees are read from the books (toCollectionCostView). */
  async costs(userId: UserId, taskNo: string): Promise<CollectionCostView> {
    const task = await this.owned(userId, taskNo);
    const { ledger } = this.deps as Partial<Pick<ResolvedDeps, 'ledger'>>;
    return toCollectionCostView(task, ledger === undefined ? null : await bookedCollectionFees(ledger, task));
  }

  private async owned(userId: UserId, taskNo: string): Promise<CollectionTask> {
    const task = visibleTo(await this.deps.tasks.get(taskNo), userId);
    if (task === null) throw new DomainError('BIZ-COLLECTION-TASK-NOT-FOUND');
    return task;
  }
}
