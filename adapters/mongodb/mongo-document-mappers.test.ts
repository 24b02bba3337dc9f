import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { BSON, type Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { holdsAddressLock } from '../records/command-record.js';
import {
  account, apiToken, balance, cashierToken, command, delivery, developerConfig, event, ms, optMs, session, subscription, task, wallet,
} from '../records/testing/record-arbitraries.js';
import { commandInsertDocument } from './mongo-command-repository.js';
import {
  fromAccountDocument, fromApiTokenDocument, fromBalanceDocument, fromCashierTokenDocument, fromCollectionTaskDocument,
  fromCommandDocument, fromDeveloperConfigDocument, fromIdempotencyDocument, fromSessionDocument, fromSubscriptionDocument,
  fromWalletDocument, fromWebhookDeliveryDocument, fromWebhookEventDocument, purgeTime, toAccountDocument, toApiTokenDocument,
  toBalanceDocument, toCashierTokenDocument, toCollectionTaskDocument, toCommandDocument, toDeveloperConfigDocument,
  toIdempotencyDocument, toSessionDocument, toSubscriptionDocument, toWalletDocument, toWebhookDeliveryDocument,
  toWebhookEventDocument,
} from './mongo-documents.js';

// Mappers are pure, so they are checked here without a server: domain -> document -> BSON bytes -> document ->
// domain must be the identity, and no amount may ever reach the driver as a number (a double loses precision).
// What the shared record codecs guarantee for every store (JSON values, money as strings) is checked in
// adapters/records/record-codecs.test.ts; this file checks what MongoDB adds: BSON, `_id`, and its own fields.

/** What the driver does to a document on the way to the server and back. */
function throughBson<D extends Document>(doc: D): D {
  return BSON.deserialize(BSON.serialize(doc)) as D;
}

/** Fails on any bigint anywhere in a document: the driver would refuse it or (with useBigInt64) store an int64. */
function expectNoBigInt(value: unknown, path = 'doc'): void {
  expect(typeof value, path).not.toBe('bigint');
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    for (const [key, inner] of Object.entries(value)) expectNoBigInt(inner, `${path}.${key}`);
  }
}

/** Drops top-level nulls: a field written as null and a field never written must read the same. */
function withoutNulls<D extends Document>(doc: D): D {
  return Object.fromEntries(Object.entries(doc).filter(([, value]) => value !== null)) as D;
}

function roundTrips<T, D extends Document>(name: string, arb: fc.Arbitrary<T>, to: (value: T) => D, from: (doc: D) => T): void {
  it(`${name}: domain -> document -> BSON -> domain is the identity, and missing equals null`, () => {
    fc.assert(fc.property(arb, (value) => {
      const doc = to(value);
      expectNoBigInt(doc);
      expect(from(throughBson(doc))).toEqual(value);
      expect(from(throughBson(withoutNulls(doc)))).toEqual(value);
    }), { numRuns: runs(60) });
  }, 20_000);
}

/** The document's key is `_id`, the first field (as before the records were shared), and no `id` field is written. */
function keyedBy<T>(name: string, arb: fc.Arbitrary<T>, to: (value: T) => { _id: unknown }, key: (value: T) => unknown): void {
  it(`${name}: \`_id\` is the domain key, written first, and the document has no \`id\``, () => {
    fc.assert(fc.property(arb, (value) => {
      const doc = to(value);
      expect(Object.keys(doc)[0]).toBe('_id');
      expect(doc._id).toBe(key(value));
      expect(doc).not.toHaveProperty('id');
    }), { numRuns: runs(20) });
  });
}

describe('MongoDB document mappers', () => {
  roundTrips('account', account, toAccountDocument, fromAccountDocument);
  roundTrips('session', session, toSessionDocument, fromSessionDocument);
  roundTrips('subscription', subscription, toSubscriptionDocument, fromSubscriptionDocument);
  roundTrips('api token', apiToken, toApiTokenDocument, fromApiTokenDocument);
  roundTrips('wallet address', wallet, toWalletDocument, fromWalletDocument);
  roundTrips('balance snapshot', balance, toBalanceDocument, fromBalanceDocument);
  roundTrips('command', command, toCommandDocument, fromCommandDocument);
  roundTrips('collection task', task, toCollectionTaskDocument, fromCollectionTaskDocument);
  roundTrips('cashier token', cashierToken, toCashierTokenDocument, fromCashierTokenDocument);
  roundTrips('developer config', developerConfig, toDeveloperConfigDocument, fromDeveloperConfigDocument);
  roundTrips('webhook event', event, toWebhookEventDocument, fromWebhookEventDocument);
  roundTrips('webhook delivery', delivery, toWebhookDeliveryDocument, fromWebhookDeliveryDocument);

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

  keyedBy('account', account, toAccountDocument, (a) => a.id);
  keyedBy('session', session, toSessionDocument, (s) => s.tokenHash);
  keyedBy('subscription', subscription, toSubscriptionDocument, (s) => `${s.userId}:${s.serviceCode}`);
  keyedBy('api token', apiToken, toApiTokenDocument, (t) => t.id);
  keyedBy('wallet address', wallet, toWalletDocument, (w) => w.id);
  keyedBy('balance snapshot', balance, toBalanceDocument, (b) => b.address);
  keyedBy('command', command, toCommandDocument, (c) => c.commandNo);
  keyedBy('collection task', task, toCollectionTaskDocument, (t) => t.taskNo);
  keyedBy('cashier token', cashierToken, toCashierTokenDocument, (t) => t.tokenNo);
  keyedBy('developer config', developerConfig, toDeveloperConfigDocument, (d) => d.userId);
  keyedBy('webhook event', event, toWebhookEventDocument, (e) => e.eventId);
  keyedBy('webhook delivery', delivery, toWebhookDeliveryDocument, (d) => d.deliveryId);

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
