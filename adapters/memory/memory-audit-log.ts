import type { AuditEntry, UserId } from '../../core/domain/model/index.js';
import type { AuditLog } from '../../core/ports/audit-log.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { outboundCopies, outboundCopy, storedCopy } from './frozen-copy.js';
import { recordUndo } from './memory-scope.js';
import type { MemoryStore } from './memory-store.js';

/** The audit chains in memory: one array per account, entry i at seq i + 1 (insert refuses anything else). */
export class MemoryAuditLog implements AuditLog {
  constructor(private readonly store: MemoryStore) {}

  async head(userId: UserId): Promise<AuditEntry | null> {
    const chain = this.store.auditChains.get(userId);
    const last = chain?.[chain.length - 1];
    return last === undefined ? null : outboundCopy(last);
  }

  async insert(entry: AuditEntry): Promise<boolean> {
    // No await between the check and the write: atomic on the event loop.
    const chain = this.store.auditChains.get(entry.userId) ?? [];
    if (entry.seq !== chain.length + 1) return false;
    chain.push(storedCopy(entry));
    recordUndo(() => {
      chain.length = entry.seq - 1;
    });
    this.store.auditChains.set(entry.userId, chain);
    return true;
  }

  async list(userId: UserId, page: PageRequest): Promise<Page<AuditEntry>> {
    const chain = this.store.auditChains.get(userId) ?? [];
    const end = Math.max(chain.length - page.offset, 0);
    const start = Math.max(end - page.limit, 0);
    return { items: outboundCopies(chain.slice(start, end).reverse()), total: chain.length };
  }

  async readChain(userId: UserId, afterSeq: number, limit: number): Promise<AuditEntry[]> {
    const chain = this.store.auditChains.get(userId) ?? [];
    return outboundCopies(chain.slice(Math.max(afterSeq, 0), Math.max(afterSeq, 0) + limit));
  }

  async listAccounts(afterUserId: UserId, limit: number): Promise<UserId[]> {
    return [...this.store.auditChains.keys()].filter((id) => id > afterUserId).sort((a, b) => a - b).slice(0, limit);
  }
}
