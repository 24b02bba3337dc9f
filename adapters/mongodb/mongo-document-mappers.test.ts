import fc from 'fast-check';
import { BSON, type Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { holdsAddressLock } from '../records/command-record.js';
import { ms, optMs, command } from '../records/testing/record-arbitraries.js';
import { commandInsertDocument } from './mongo-command-repository.js';
import { fromIdempotencyDocument, purgeTime, toIdempotencyDocument } from './mongo-documents.js';

// Mappers are pure, so they are checked here without a server. The records' documents come from their descriptors
// and are checked for every descriptor in mongo-table.test.ts (domain -> document -> BSON -> domain, `_id`, no bigint);
// this file checks the documents that are not a record's: the idempotency record's and a command's insert.
// What the shared record codecs guarantee for every store (JSON values, money as strings) is checked in
// adapters/records/record-codecs.test.ts; this file checks what MongoDB adds: BSON, `_id`, and its own fields.

/** What the driver does to a document on the way to the server and back. */
function throughBson<D extends Document>(doc: D): D {
  return BSON.deserialize(BSON.serialize(doc)) as D;
}

describe('MongoDB document mappers', () => {
  it('idempotency records keep epoch ms and a BSON date to purge at, never before the record expires', () => {
    fc.assert(fc.property(ms, fc.integer({ min: 1, max: 2 * 86_400_000 }), ms, optMs, (createdAt, windowMs, wallNow, lease) => {
      const record = {
        scope: 's', key: 'k', requestHash: 'h', state: 'in-progress' as const, response: null, createdAt, expiresAt: createdAt + windowMs,
        ...(lease === null ? {} : { leaseExpiresAt: lease }),
      };
      const doc = throughBson(toIdempotencyDocument(record, purgeTime(record.expiresAt, windowMs, wallNow)));
      expect(doc.purgeAt).toBeInstanceOf(Date);
      expect(doc.purgeAt.getTime()).toBeGreaterThanOrEqual(record.expiresAt);
      expect(doc.purgeAt.getTime()).toBeGreaterThanOrEqual(wallNow + windowMs);
      expect(fromIdempotencyDocument(doc)).toEqual(record);
    }));
  });

  it('writes a command as it always has: the record\'s fields, then the insertion stamp and, while it holds the lock, lockedAddress', () => {
    // Hand-copied from the `commands` documents stored before the records were shared: a renamed field is a migration.
    const fields = [
      '_id', 'userId', 'type', 'status', 'address', 'assetSymbol', 'lockedAmount', 'params', 'transaction', 'errorCode', 'lastError',
      'createdAt', 'startedAt', 'finishedAt', 'nextRunAt', 'lease', 'version',
    ];
    fc.assert(fc.property(command, fc.boolean(), (value, markLock) => {
      const locks = markLock && holdsAddressLock(value);
      const doc = commandInsertDocument(value, markLock);
      // A withdrawal's approval (issue #26) is the one later field, present only on a command that has one.
      expect(Object.keys(doc)).toEqual([...fields, ...(value.approval == null ? [] : ['approval']), 'insertedSeq', ...(locks ? ['lockedAddress'] : [])]);
      expect(typeof doc.insertedSeq).toBe('number');
      if (locks) expect(doc.lockedAddress).toBe(value.address);
    }));
  });
});

describe('MongoDB command claim (the workflow runner)', () => {
  it('claims PENDING/RUNNING commands of the types that are due and unleased, and fences by the version', async () => {
    const { claimFilter, claimUpdate } = await import('./mongo-command-repository.js');
    expect(claimFilter([2, 4], 1_000)).toEqual({
      status: { $in: [1, 2] },
      type: { $in: [2, 4] },
      $and: [
        { $or: [{ nextRunAt: { $exists: false } }, { nextRunAt: { $lte: 1_000 } }] },
        { $or: [{ lease: { $exists: false } }, { lease: null }, { 'lease.expiresAt': { $lte: 1_000 } }] },
      ],
    });
    expect(claimUpdate('w1', 1_000, 60_000)).toEqual({ $set: { lease: { owner: 'w1', expiresAt: 61_000 } }, $inc: { version: 1 } });
  });
});
