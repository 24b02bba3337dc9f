import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { IdGenerator, Sequence } from '../../core/ports/id-generator.port.js';
import { guarded } from './pg-support.js';

/**
 * Integer sequences shared by every process on the database: one upsert per id on `id_counters`, whose row lock
 * orders concurrent callers (each reads the value the previous one committed), so ids are distinct and dense. The
 * first call of a sequence inserts its row; concurrent first calls are settled by ON CONFLICT, never a retry.
 * UUIDs and random bytes come from node:crypto.
 */
export class PgIdGenerator implements IdGenerator {
  constructor(private readonly pool: pg.Pool) {}

  nextInt(sequence: Sequence): Promise<number> {
    return guarded('id sequence', async () => {
      const { rows } = await this.pool.query<{ last_value: number }>(
        `INSERT INTO id_counters (sequence, last_value) VALUES ($1, 1)
         ON CONFLICT (sequence) DO UPDATE SET last_value = id_counters.last_value + 1
         RETURNING last_value`,
        [sequence],
      );
      return rows[0]!.last_value;
    });
  }

  uuid(): string {
    return randomUUID();
  }

  randomBytes(length: number): Uint8Array {
    return new Uint8Array(randomBytes(length));
  }
}
