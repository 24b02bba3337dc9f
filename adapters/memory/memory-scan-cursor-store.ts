import type { ScanCheckpoint, ScanClaim, ScanCursorStore } from '../../core/ports/scan-cursor-store.port.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';

interface Entry {
  readonly version: number;
  readonly owner: string;
  readonly until: number;
  readonly checkpoint: ScanCheckpoint | null;
}

/** Scanner checkpoints in memory (the embedded default and tests), under the port's lease and version rules. */
export class MemoryScanCursorStore implements ScanCursorStore {
  private readonly entries = new Map<string, Entry>();

  async claim(name: string, owner: string, now: number, until: number): Promise<ScanClaim> {
    const entry = this.entries.get(name);
    if (entry !== undefined && entry.owner !== owner && entry.until > now) return { held: false, owner: entry.owner, until: entry.until };
    const version = (entry?.version ?? 0) + 1;
    this.entries.set(name, { version, owner, until, checkpoint: entry?.checkpoint ?? null });
    return { held: true, version, checkpoint: entry?.checkpoint == null ? null : outboundCopy(entry.checkpoint) };
  }

  async genesisIds(): Promise<readonly string[]> {
    return [...new Set([...this.entries.values()].flatMap((e) => (e.checkpoint?.genesis === undefined ? [] : [e.checkpoint.genesis])))];
  }

  async save(name: string, owner: string, version: number, checkpoint: ScanCheckpoint, until: number): Promise<number | null> {
    const entry = this.entries.get(name);
    if (entry === undefined || entry.owner !== owner || entry.version !== version) return null;
    this.entries.set(name, { version: version + 1, owner, until, checkpoint: storedCopy(checkpoint) });
    return version + 1;
  }
}
