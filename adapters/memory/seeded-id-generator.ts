import { createHash } from 'node:crypto';
import type { IdGenerator, Sequence } from '../../core/ports/id-generator.port.js';

/**
 * A deterministic IdGenerator for tests: the same seed gives the same sequence of UUIDs and bytes, so a failing
 * run can be replayed. Bytes are SHA-256 of (seed, counter) — predictable by design; never use it in production.
 */
export class SeededIdGenerator implements IdGenerator {
  private readonly sequences = new Map<Sequence, number>();
  private counter = 0;

  constructor(private readonly seed: string | number = 1) {}

  async nextInt(sequence: Sequence): Promise<number> {
    const next = (this.sequences.get(sequence) ?? 0) + 1;
    this.sequences.set(sequence, next);
    return next;
  }

  uuid(): string {
    const bytes = this.randomBytes(16);
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const hex = Buffer.from(bytes).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  randomBytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let filled = 0; filled < length; filled += 32) {
      const block = createHash('sha256').update(`${this.seed}:${this.counter++}`).digest();
      out.set(block.subarray(0, Math.min(32, length - filled)), filled);
    }
    return out;
  }
}
