import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { AllowListEntry, UserId, WithdrawalPolicy } from '../../core/domain/model/index.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import type { WithdrawalPolicyRepository } from '../../core/ports/withdrawal-policy-repository.port.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import { JournaledMap } from './memory-scope.js';
import type { MemoryStore } from './memory-store.js';

/** The allow-list order: oldest first, then by address. */
function byAge(a: AllowListEntry, b: AllowListEntry): number {
  return a.createdAt - b.createdAt || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0);
}

/** Withdrawal policies (optimistic versions) and allow-lists, in the embedded store. */
export class MemoryWithdrawalPolicyRepository implements WithdrawalPolicyRepository {
  /** Order of first save, the tie-break of the pending list (the durable stores' insertion order). */
  private readonly firstSaved = new Map<UserId, number>();

  constructor(private readonly store: MemoryStore) {}

  async get(userId: UserId): Promise<WithdrawalPolicy | null> {
    const policy = this.store.withdrawalPolicies.get(userId);
    return policy === undefined ? null : outboundCopy(policy);
  }

  async save(policy: WithdrawalPolicy): Promise<void> {
    const storedVersion = this.store.withdrawalPolicies.get(policy.userId)?.version ?? 0;
    if (storedVersion !== policy.version - 1) throw new ConcurrencyConflict('withdrawal policy', String(policy.userId));
    if (!this.firstSaved.has(policy.userId)) this.firstSaved.set(policy.userId, this.firstSaved.size);
    this.store.withdrawalPolicies.set(policy.userId, storedCopy(policy));
  }

  async listPendingApprovalUrls(): Promise<WithdrawalPolicy[]> {
    const pending = [...this.store.withdrawalPolicies.values()].filter((p) => p.approval.pendingUrl !== null);
    pending.sort((a, b) => (a.approval.pendingSince ?? -Infinity) - (b.approval.pendingSince ?? -Infinity)
      || (this.firstSaved.get(a.userId) ?? 0) - (this.firstSaved.get(b.userId) ?? 0));
    return pending.map((p) => outboundCopy(p));
  }

  async addAllowListEntry(entry: AllowListEntry, maxEntries: number): Promise<'created' | 'exists' | 'full'> {
    const list = this.store.allowLists.get(entry.userId) ?? new JournaledMap<string, AllowListEntry>();
    if (list.has(entry.address)) return 'exists';
    if (list.size >= maxEntries) return 'full';
    list.set(entry.address, storedCopy(entry));
    this.store.allowLists.set(entry.userId, list);
    return 'created';
  }

  async findAllowListEntry(userId: UserId, address: string): Promise<AllowListEntry | null> {
    const entry = this.store.allowLists.get(userId)?.get(address);
    return entry === undefined ? null : outboundCopy(entry);
  }

  async listAllowList(userId: UserId, page: PageRequest): Promise<Page<AllowListEntry>> {
    const all = [...(this.store.allowLists.get(userId)?.values() ?? [])].sort(byAge);
    return { items: all.slice(page.offset, page.offset + page.limit).map((e) => outboundCopy(e)), total: all.length };
  }

  async removeAllowListEntry(userId: UserId, address: string): Promise<boolean> {
    return this.store.allowLists.get(userId)?.delete(address) ?? false;
  }
}
