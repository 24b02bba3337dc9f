import fc from 'fast-check';
import { BSON, type Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { InfrastructureError } from '../../core/domain/errors.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEvent } from '../../core/domain/model/webhook.js';
import {
  fromAccountDocument, fromApiTokenDocument, fromSessionDocument, fromSubscriptionDocument, toAccountDocument,
  toApiTokenDocument, toSessionDocument, toSubscriptionDocument,
} from './account-document.js';
import { fromCashierTokenDocument, toCashierTokenDocument } from './cashier-token-document.js';
import { fromCollectionTaskDocument, toCollectionTaskDocument } from './collection-task-document.js';
import { fromCommandDocument, toCommandDocument } from './command-document.js';
import { fromIdempotencyDocument, purgeTime, toIdempotencyDocument } from './idempotency-document.js';
import { decodeMoney, encodeMoney } from './mongo-support.js';
import { fromBalanceDocument, fromWalletDocument, toBalanceDocument, toWalletDocument } from './wallet-document.js';
import {
  fromDeveloperConfigDocument, fromWebhookDeliveryDocument, fromWebhookEventDocument, toDeveloperConfigDocument,
  toWebhookDeliveryDocument, toWebhookEventDocument,
} from './webhook-document.js';

// Mappers are pure, so they are checked here without a server: domain -> document -> BSON bytes -> document ->
// domain must be the identity, and no amount may ever reach the driver as a number (a double loses precision).

const ms = fc.integer({ min: 0, max: 4_102_444_800_000 }); // up to 2100: epoch ms as BSON numbers stay exact
const optMs = fc.option(ms, { nil: null });
const id = fc.integer({ min: 1, max: 2 ** 31 - 1 });
const text = fc.string({ maxLength: 24 });
const optText = fc.option(text, { nil: null });
const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
const address = fc.stringMatching(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
/** Amounts far beyond 2^53 and 2^64, and negative ones: the encoding must not care. */
const money = fc.bigInt({ min: -(2n ** 100n), max: 2n ** 100n });
const symbol = fc.constantFrom('TRX', 'USDT', 'USDC', 'BTT');
const version = fc.integer({ min: 1, max: 1_000_000 });
const envelope = fc.record({ keyId: text, iv: text, ciphertext: text, tag: text });
const lease = fc.option(fc.record({ owner: text, expiresAt: ms }), { nil: null });
const transaction = fc.option(fc.record(
  { txid: hex64, signedJson: fc.json(), expiresAt: ms, broadcastAt: optMs, refusal: fc.option(text, { nil: null }) },
  { requiredKeys: ['txid', 'signedJson', 'expiresAt', 'broadcastAt'] },
), { nil: null });

const account = fc.record({
  id, email: fc.emailAddress(), passwordHash: text, verified: fc.boolean(), verificationCodeHash: fc.option(hex64, { nil: null }),
  verificationExpiresAt: optMs, verificationAttempts: fc.nat(10), createdAt: ms, version,
  passwordReset: fc.option(fc.record({ codeHash: hex64, expiresAt: ms, attempts: fc.nat(10) }), { nil: null }),
});
const session = fc.record({ tokenHash: hex64, userId: id, createdAt: ms, expiresAt: ms, revokedAt: optMs });
const subscription = fc.record({
  userId: id, serviceCode: fc.constantFrom('developer' as const, 'sub_address' as const), planCode: text,
  status: fc.constantFrom('active' as const, 'cancelled' as const),
  meta: fc.oneof(fc.constant({}), fc.record({ maxSubAddresses: fc.integer({ min: -1, max: 100_000 }) })), activatedAt: ms, version,
});
const apiToken = fc.record({ id, userId: id, name: text, tokenHash: hex64, abilities: fc.array(text, { maxLength: 3 }), createdAt: ms, revokedAt: optMs, lastUsedAt: optMs });
const wallet = fc.record({
  id, userId: id, networkCode: fc.constant('TRON' as const), address, addressType: fc.constantFrom(1 as const, 2 as const),
  label: optText, status: fc.constantFrom(0 as const, 1 as const), encryptedKey: envelope, createdAt: ms, version,
});
const balance = fc.record({
  address, refreshSource: fc.constantFrom(1 as const, 2 as const), updatedAt: ms,
  items: fc.array(fc.record({ symbol, available: money, updatedAt: ms }), { maxLength: 4 }),
});
const command = fc.record({
  commandNo: text, userId: id, type: fc.integer({ min: 1, max: 8 }) as fc.Arbitrary<1>, status: fc.integer({ min: 1, max: 6 }) as fc.Arbitrary<1>,
  address: fc.option(address, { nil: null }), assetSymbol: fc.option(symbol, { nil: null }), lockedAmount: money,
  params: fc.dictionary(fc.string({ maxLength: 8 }), text, { maxKeys: 4 }), transaction, errorCode: optText, lastError: optText,
  createdAt: ms, startedAt: optMs, finishedAt: optMs, nextRunAt: ms, lease, version,
});
const collectionStatus = fc.constantFrom(1 as const, 2 as const, 6 as const, 8 as const, 11 as const, 12 as const, 15 as const, 16 as const, 17 as const);
const task = fc.record({
  taskNo: text, commandNo: text, userId: id, networkCode: fc.constant('TRON' as const), assetSymbol: symbol, address, mainAddress: address,
  status: collectionStatus, energyPath: fc.constantFrom(null, 'self' as const, 'rental' as const, 'burn' as const),
  steps: fc.array(fc.record({ status: collectionStatus, transaction, orderRef: optText, startedAt: ms, completedAt: optMs }), { maxLength: 3 }),
  sweptAmount: fc.option(money, { nil: null }), sweepTxHash: fc.option(hex64, { nil: null }), errorCode: optText, lastError: optText,
  nextRunAt: ms, lease, startedAt: ms, finishedAt: optMs, version,
  plan: fc.record({
    path: fc.constantFrom('none' as const, 'self' as const, 'rental' as const, 'burn' as const), provider: fc.option(text, { nil: null }),
    energy: fc.nat(200_000), activate: fc.boolean(), subNeedsSun: money, fundSun: money, sourceSun: money, estimatedCostSun: money,
    options: fc.array(fc.record({
      path: fc.constantFrom('none' as const, 'self' as const, 'rental' as const, 'burn' as const), provider: fc.option(text, { nil: null }),
      costSun: money, refusal: fc.option(text, { nil: null }),
    }), { maxLength: 3 }),
  }),
  cost: fc.record({
    bandwidthSun: money, energySun: money, activationSun: money, rentalSun: money, lentSun: money, returnedSun: money,
    txids: fc.array(hex64, { maxLength: 3 }),
  }),
}, { requiredKeys: [
  'taskNo', 'commandNo', 'userId', 'networkCode', 'assetSymbol', 'address', 'mainAddress', 'status', 'energyPath', 'steps', 'sweptAmount',
  'sweepTxHash', 'errorCode', 'lastError', 'nextRunAt', 'lease', 'startedAt', 'finishedAt', 'version',
] });
const cashierToken = fc.record({
  tokenNo: text, tokenHash: hex64, userId: id, walletAddressId: id, address, networkCode: fc.constant('TRON' as const),
  status: fc.constantFrom('active' as const, 'disabled' as const), ttlMinutes: fc.constantFrom(60 as const, 120 as const, 480 as const, 1440 as const),
  expiresAt: ms, disabledAt: optMs, disableReason: optText, createdAt: ms, version,
});
const developerConfig = fc.record({
  userId: id, url: optText, pendingUrl: optText, pendingSince: optMs, verifiedAt: optMs, reviewNote: optText,
  secret: fc.option(envelope, { nil: null }),
  previousSecret: fc.option(fc.record({ secret: envelope, validUntil: ms }), { nil: null }), minCollectAmounts: fc.dictionary(symbol, money, { maxKeys: 3 }), version,
});
const eventType = fc.constantFrom(...WEBHOOK_EVENT_TYPES);
const event = fc.record({
  eventId: fc.uuid(), userId: id, eventType, occurredAt: ms, dispatched: fc.boolean(),
  // A payload is JSON as it travels: JSON.stringify writes -0 as 0 (and so does BSON), so only JSON-normal values are generated.
  payload: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown), { maxKeys: 5 }),
}) as fc.Arbitrary<WebhookEvent>;
const delivery = fc.record({
  deliveryId: text, eventId: fc.uuid(), userId: id, eventType, url: optText, status: fc.integer({ min: 1, max: 6 }) as fc.Arbitrary<1>,
  attempts: fc.array(fc.record({
    at: ms, httpStatus: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }), error: optText, durationMs: fc.nat(15_000),
    response: optText, redelivery: fc.boolean(), url: optText,
  }), { maxLength: 3 }),
  nextAttemptAt: optMs, lease, createdAt: ms, version,
});

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
    }), { numRuns: 60 });
  }, 20_000);
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

  it('stores every amount as a decimal integer string', () => {
    fc.assert(fc.property(command, task, balance, developerConfig, (c, t, b, d) => {
      expect(toCommandDocument(c).lockedAmount).toBe(c.lockedAmount.toString());
      expect(toCollectionTaskDocument(t).sweptAmount).toBe(t.sweptAmount === null ? null : t.sweptAmount.toString());
      expect(toBalanceDocument(b).items.map((i) => i.available)).toEqual(b.items.map((i) => i.available.toString()));
      for (const { symbol: s, amount } of toDeveloperConfigDocument(d).minCollectAmounts) expect(amount).toBe(d.minCollectAmounts[s]!.toString());
    }));
  });

  it('keeps command params and webhook payload keys out of field names', () => {
    const doc = toCommandDocument({ ...fc.sample(command, { numRuns: 1, seed: 1 })[0]!, params: { '$where': 'x', 'a.b': 'y' } });
    expect(doc.params).toEqual([{ name: '$where', value: 'x' }, { name: 'a.b', value: 'y' }]);
    const eventDoc = toWebhookEventDocument({ ...fc.sample(event, { numRuns: 1, seed: 1 })[0]!, payload: { '$set': 1, 'a.b': [2] } });
    expect(Object.keys(eventDoc)).not.toContain('payload');
    expect(JSON.parse(eventDoc.payloadJson)).toEqual({ '$set': 1, 'a.b': [2] });
  });

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

  it('decodeMoney refuses anything but an integer string: a stored double or a malformed value is a store fault', () => {
    fc.assert(fc.property(money, (amount) => {
      expect(decodeMoney(encodeMoney(amount), 'x')).toBe(amount);
    }));
    for (const bad of [1.5, 12, '1.5', '', '01', '+1', '1e3', ' 1', null, undefined, { $numberDecimal: '1' }]) {
      expect(() => decodeMoney(bad, 'amount'), String(bad)).toThrow(InfrastructureError);
    }
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
