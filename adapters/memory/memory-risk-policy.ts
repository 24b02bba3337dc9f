import type { RiskEntry, RiskEntryKind, RiskPolicy, RiskSubject } from '../../core/ports/risk-policy.port.js';
import { outboundCopies, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

function keyOf(kind: RiskEntryKind, value: string): string {
  return `${kind}:${value}`;
}

/** The deny-list in the memory store: a user id, the acting address or the destination address can be listed. */
export class MemoryRiskPolicy implements RiskPolicy {
  constructor(private readonly store: MemoryStore) {}

  async check(subject: RiskSubject): ReturnType<RiskPolicy['check']> {
    const candidates = [keyOf('user', String(subject.userId)), keyOf('address', subject.address)];
    if (subject.toAddress !== undefined) candidates.push(keyOf('address', subject.toAddress));
    for (const candidate of candidates) {
      const entry = this.store.riskEntries.get(candidate);
      if (entry !== undefined) return { blocked: true, reason: entry.reason ?? `${entry.kind} is on the deny-list` };
    }
    return { blocked: false };
  }

  async deny(entry: RiskEntry): Promise<void> {
    this.store.riskEntries.set(keyOf(entry.kind, entry.value), storedCopy(entry));
  }

  async allow(kind: RiskEntryKind, value: string): Promise<boolean> {
    return this.store.riskEntries.delete(keyOf(kind, value));
  }

  async list(): Promise<RiskEntry[]> {
    return outboundCopies(this.store.riskEntries.values());
  }
}
