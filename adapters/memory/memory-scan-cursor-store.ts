import type { ScanCursorStore } from '../../core/ports/scan-cursor-store.port.js';

/** Scanner cursors in memory (the embedded default and tests); forward-only like every ScanCursorStore. */
export class MemoryScanCursorStore implements ScanCursorStore {
  private readonly cursors = new Map<string, number>();

  async get(name: string): Promise<number | null> {
    return this.cursors.get(name) ?? null;
  }

  async advance(name: string, block: number): Promise<void> {
    if (!Number.isSafeInteger(block) || block < 0) throw new RangeError(`scan cursor must be a block number, got ${block}`);
    const stored = this.cursors.get(name);
    if (stored === undefined || block > stored) this.cursors.set(name, block);
  }
}
