import type { OperatorStatusKind, OperatorStatusRecord, OperatorStatusStore } from '../../core/ports/operator-status-store.port.js';

/** The operator status in memory (the embedded default and tests): the newest record of each kind, copied in and out. */
export class MemoryOperatorStatusStore implements OperatorStatusStore {
  private readonly records = new Map<OperatorStatusKind, string>();

  async put(kind: OperatorStatusKind, body: OperatorStatusRecord['body'], at: number): Promise<boolean> {
    const stored = this.records.get(kind);
    if (stored !== undefined && (JSON.parse(stored) as OperatorStatusRecord).at > at) return false;
    this.records.set(kind, JSON.stringify({ kind, body, at }));
    return true;
  }

  async get(kind: OperatorStatusKind): Promise<OperatorStatusRecord | null> {
    const stored = this.records.get(kind);
    return stored === undefined ? null : (JSON.parse(stored) as OperatorStatusRecord);
  }
}
