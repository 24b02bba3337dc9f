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

  async replace(kind: OperatorStatusKind, body: OperatorStatusRecord['body'], at: number, expected: OperatorStatusRecord['body'] | null): Promise<boolean> {
    const stored = this.records.get(kind);
    const current = stored === undefined ? null : (JSON.parse(stored) as OperatorStatusRecord).body;
    if (!sameJson(current, expected)) return false;
    this.records.set(kind, JSON.stringify({ kind, body, at }));
    return true;
  }

  async get(kind: OperatorStatusKind): Promise<OperatorStatusRecord | null> {
    const stored = this.records.get(kind);
    return stored === undefined ? null : (JSON.parse(stored) as OperatorStatusRecord);
  }
}

/** JSON equality, whatever the order of object keys (as PostgreSQL's jsonb compares). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k)
    && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
