import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { DeveloperConfig, UserId } from '../../core/domain/model/index.js';
import type { DeveloperConfigRepository } from '../../core/ports/developer-config-repository.port.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

/** Developer configurations per user, saved with optimistic versions. */
export class MemoryDeveloperConfigRepository implements DeveloperConfigRepository {
  constructor(private readonly store: MemoryStore) {}

  async get(userId: UserId): Promise<DeveloperConfig | null> {
    const config = this.store.developerConfigs.get(userId);
    return config === undefined ? null : outboundCopy(config);
  }

  async save(config: DeveloperConfig): Promise<void> {
    const storedVersion = this.store.developerConfigs.get(config.userId)?.version ?? 0;
    if (storedVersion !== config.version - 1) throw new ConcurrencyConflict('developer config', String(config.userId));
    this.store.developerConfigs.set(config.userId, storedCopy(config));
  }

  async listPending(): Promise<DeveloperConfig[]> {
    // The table's index keeps them in list order; nothing else is read.
    return this.store.developerConfigs.pending.keys(true).map((userId) => outboundCopy(this.store.developerConfigs.get(userId)!));
  }
}
