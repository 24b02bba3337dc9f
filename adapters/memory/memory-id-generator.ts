import { randomBytes, randomUUID } from 'node:crypto';
import type { IdGenerator, Sequence } from '../../core/ports/id-generator.port.js';
import type { MemoryStore } from './memory-store.js';

/** Sequences kept in the memory store; UUIDs and random bytes from node:crypto. */
export class MemoryIdGenerator implements IdGenerator {
  constructor(private readonly store: MemoryStore) {}

  async nextInt(sequence: Sequence): Promise<number> {
    const next = (this.store.sequences.get(sequence) ?? 0) + 1;
    this.store.sequences.set(sequence, next);
    return next;
  }

  uuid(): string {
    return randomUUID();
  }

  randomBytes(length: number): Uint8Array {
    return new Uint8Array(randomBytes(length));
  }
}
