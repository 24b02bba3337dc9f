import { randomBytes, randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import type { IdGenerator, Sequence } from '../../core/ports/id-generator.port.js';
import { COLLECTIONS } from './collections.js';
import { guarded, isDuplicateKey } from './mongo-support.js';

/** `counters`: one document per sequence holding the last value handed out. */
export interface CounterDocument {
  _id: string;
  value: number;
}

/**
 * Integer sequences shared by every process on the database: one `$inc` upsert per id, atomic on the server.
 * Two first-ever upserts of one sequence may race to insert the counter; the loser retries and increments.
 */
export class MongoIdGenerator implements IdGenerator {
  private readonly counters: Collection<CounterDocument>;

  constructor(db: Db) {
    this.counters = db.collection<CounterDocument>(COLLECTIONS.counters);
  }

  nextInt(sequence: Sequence): Promise<number> {
    return guarded('id sequence', async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          const doc = await this.counters.findOneAndUpdate(
            { _id: sequence },
            { $inc: { value: 1 } },
            { upsert: true, returnDocument: 'after' },
          );
          if (doc === null) throw new Error(`counter ${sequence} upsert returned nothing`);
          return doc.value;
        } catch (error) {
          if (!isDuplicateKey(error) || attempt >= 2) throw error;
        }
      }
    });
  }

  uuid(): string {
    return randomUUID();
  }

  randomBytes(length: number): Uint8Array {
    return new Uint8Array(randomBytes(length));
  }
}
