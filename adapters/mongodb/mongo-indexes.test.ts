import type { CreateIndexesOptions, IndexSpecification } from 'mongodb';
import { CLAIM_ORDER, NEWEST_FIRST } from './mongo-command-repository.js';
import { describe, expect, it } from 'vitest';
import { COLLECTIONS } from './collections.js';
import { ensureIndexes, INDEX_DEFINITIONS, type IndexTarget } from './mongo-indexes.js';

// Index specifications are data; a recording stand-in for the driver's Db is enough to check what ensureIndexes
// asks the server for. That the server then enforces them is the integration file's job.

interface RecordedIndex {
  readonly collection: string;
  readonly keys: IndexSpecification;
  readonly options: CreateIndexesOptions;
}

function recordingDb(): { db: IndexTarget; calls: RecordedIndex[] } {
  const calls: RecordedIndex[] = [];
  const db: IndexTarget = {
    collection: (name) => ({
      createIndex: async (keys, options) => {
        calls.push({ collection: name, keys, options });
        return String(options.name);
      },
    }),
  };
  return { db, calls };
}

function find(calls: readonly RecordedIndex[], collection: string, keys: Record<string, 1 | -1>): RecordedIndex | undefined {
  return calls.find((call) => call.collection === collection && JSON.stringify(call.keys) === JSON.stringify(keys));
}

describe('ensureIndexes', () => {
  it('creates the unique indexes that carry business rules', async () => {
    const { db, calls } = recordingDb();
    await ensureIndexes(db);
    const unique: [string, Record<string, 1 | -1>][] = [
      [COLLECTIONS.apiTokens, { tokenHash: 1 }],
      [COLLECTIONS.wallets, { address: 1 }],
      [COLLECTIONS.cashierTokens, { tokenHash: 1 }],
      [COLLECTIONS.deliveries, { eventId: 1 }],
      [COLLECTIONS.idempotency, { scope: 1, key: 1 }],
    ];
    for (const [collection, keys] of unique) {
      const index = find(calls, collection, keys);
      expect(index, `${collection} ${JSON.stringify(keys)}`).toBeDefined();
      expect(index!.options.unique).toBe(true);
      expect(index!.options.partialFilterExpression).toBeUndefined();
    }
  });

  it('makes the partial "one per" rules partial on exactly the documents that hold the slot', async () => {
    const { db, calls } = recordingDb();
    await ensureIndexes(db);
    // One verified account per e-mail; its pending registrations are many (issue #26 item 6).
    expect(find(calls, COLLECTIONS.accounts, { emailLower: 1 })?.options).toMatchObject({ unique: true, partialFilterExpression: { verified: true } });
    expect(find(calls, COLLECTIONS.wallets, { userId: 1, networkCode: 1 })?.options).toMatchObject({
      unique: true, partialFilterExpression: { addressType: 1 },
    });
    expect(find(calls, COLLECTIONS.commands, { lockedAddress: 1 })?.options).toMatchObject({
      unique: true, partialFilterExpression: { lockedAddress: { $exists: true } },
    });
    expect(find(calls, COLLECTIONS.cashierTokens, { activeSlot: 1 })?.options).toMatchObject({
      unique: true, partialFilterExpression: { activeSlot: { $exists: true } },
    });
  });

  it('expires idempotency records by their own purge date (TTL 0 s on purgeAt), nothing else by TTL', async () => {
    const { db, calls } = recordingDb();
    await ensureIndexes(db);
    const ttl = calls.filter((call) => call.options.expireAfterSeconds !== undefined);
    expect(ttl).toEqual([{ collection: COLLECTIONS.idempotency, keys: { purgeAt: 1 }, options: expect.objectContaining({ expireAfterSeconds: 0 }) }]);
  });

  it('serves the claim and listing queries: due tasks, due deliveries, the outbox, running commands, newest-first lists', async () => {
    const { db, calls } = recordingDb();
    await ensureIndexes(db);
    expect(find(calls, COLLECTIONS.tasks, { status: 1, nextRunAt: 1, insertedSeq: 1 })).toBeDefined();
    expect(find(calls, COLLECTIONS.deliveries, { status: 1, nextAttemptAt: 1, insertedSeq: 1 })).toBeDefined();
    expect(find(calls, COLLECTIONS.events, { dispatched: 1, occurredAt: 1, insertedSeq: 1 })).toBeDefined();
    // Newest-first pages: the sort the repositories use (ending on _id), served in full by the index.
    for (const collection of [COLLECTIONS.commands, COLLECTIONS.cashierTokens, COLLECTIONS.deliveries]) {
      expect(find(calls, collection, { userId: 1, ...NEWEST_FIRST })).toBeDefined();
    }
    expect(find(calls, COLLECTIONS.tasks, { address: 1, startedAt: -1, insertedSeq: -1 })).toBeDefined();
    // The runner's claim of commands (claimDue), in CLAIM_ORDER after the equality fields.
    expect(find(calls, COLLECTIONS.commands, { status: 1, type: 1, ...CLAIM_ORDER })).toBeDefined();
  });

  it('names every index, uniquely per collection, only on known collections, and asks the same on every run', async () => {
    const first = recordingDb();
    await ensureIndexes(first.db);
    const second = recordingDb();
    await ensureIndexes(second.db);
    expect(second.calls).toEqual(first.calls);
    expect(first.calls).toHaveLength(INDEX_DEFINITIONS.length);
    const known = new Set<string>(Object.values(COLLECTIONS));
    const names = new Set<string>();
    for (const call of first.calls) {
      expect(known.has(call.collection)).toBe(true);
      expect(typeof call.options.name).toBe('string');
      const qualified = `${call.collection}.${call.options.name}`;
      expect(names.has(qualified), qualified).toBe(false);
      names.add(qualified);
    }
  });

  it('passes copies: a caller mutating what it received cannot change the definitions', async () => {
    const { db, calls } = recordingDb();
    await ensureIndexes(db);
    (calls[0]!.keys as Record<string, number>)['tampered'] = 1;
    (calls[0]!.options as { name: string }).name = 'tampered';
    expect(INDEX_DEFINITIONS[0]!.keys).not.toHaveProperty('tampered');
    expect(INDEX_DEFINITIONS[0]!.options.name).not.toBe('tampered');
  });
});

describe('ensureIndexes on a changed index', () => {
  it('stops with a permanent error naming the index and the migration; other failures pass through', async () => {
    const conflicting: IndexTarget = {
      collection: () => ({ createIndex: () => Promise.reject(Object.assign(new Error('Index already exists with a different name'), { code: 86 })) }),
    };
    const error = await ensureIndexes(conflicting).then(() => null, (e: unknown) => e);
    expect((error as { transient?: boolean }).transient).toBe(false);
    expect((error as Error).message).toMatch(/index verified_email_unique on accounts exists with another definition.*dropIndex\('verified_email_unique'\)/);
    const outage = new Error('connection reset');
    await expect(ensureIndexes({ collection: () => ({ createIndex: () => Promise.reject(outage) }) })).rejects.toBe(outage);
  });
});
