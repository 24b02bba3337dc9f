import type { UserId } from '../domain/model/common.js';
import type { DeveloperConfig } from '../domain/model/webhook.js';

export interface DeveloperConfigRepository {
  get(userId: UserId): Promise<DeveloperConfig | null>;
  /** Inserts (version 1) or replaces (stored version `version - 1`); else ConcurrencyConflict. */
  save(config: DeveloperConfig): Promise<void>;
  /** Configurations with a URL waiting for review, oldest pendingSince first. */
  listPending(): Promise<DeveloperConfig[]>;
}
