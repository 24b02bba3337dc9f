import fc from 'fast-check';
import { WEBHOOK_EVENT_TYPES, type WebhookEvent } from '../../../core/domain/model/webhook.js';
import { PAYMENT_STATUSES } from '../../../core/domain/model/payment-request.js';

/**
 * Domain values as the durable stores receive them, for the record codec tests of every store (test support: no
 * production code imports this). Times stay below 2100, so epoch ms are exact as JSON, BSON or SQL numbers; amounts
 * go far beyond 2^53 and 2^64, and below zero, because the money encoding must not care.
 */

export const ms = fc.integer({ min: 0, max: 4_102_444_800_000 }); // up to 2100: epoch ms stay exact as numbers
export const optMs = fc.option(ms, { nil: null });
export const id = fc.integer({ min: 1, max: 2 ** 31 - 1 });
export const text = fc.string({ maxLength: 24 });
export const optText = fc.option(text, { nil: null });
export const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
export const address = fc.stringMatching(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
/** Amounts far beyond 2^53 and 2^64, and negative ones: the encoding must not care. */
export const money = fc.bigInt({ min: -(2n ** 100n), max: 2n ** 100n });
export const symbol = fc.constantFrom('TRX', 'USDT', 'USDC', 'BTT');
export const version = fc.integer({ min: 1, max: 1_000_000 });
export const envelope = fc.record({ keyId: text, iv: text, ciphertext: text, tag: text });
export const lease = fc.option(fc.record({ owner: text, expiresAt: ms }), { nil: null });
export const transaction = fc.option(fc.record(
  { txid: hex64, signedJson: fc.json(), expiresAt: ms, broadcastAt: optMs, refusal: fc.option(text, { nil: null }) },
  { requiredKeys: ['txid', 'signedJson', 'expiresAt', 'broadcastAt'] },
), { nil: null });

export const account = fc.record({
  id, email: fc.emailAddress(), passwordHash: text, verified: fc.boolean(), verificationCodeHash: fc.option(hex64, { nil: null }),
  verificationExpiresAt: optMs, verificationAttempts: fc.nat(10), createdAt: ms, version,
  passwordReset: fc.option(fc.record({ codeHash: hex64, expiresAt: ms, attempts: fc.nat(10) }), { nil: null }),
  twoFactor: fc.option(fc.record({
    secret: envelope, enabledAt: optMs, lastUsedStep: fc.nat(), recoveryCodeHashes: fc.array(hex64, { maxLength: 10 }),
    stepUp: fc.option(fc.record({ sessionHash: hex64, proofHash: hex64, at: ms }), { nil: null }),
  }), { nil: null }),
});
export const session = fc.record({ tokenHash: hex64, userId: id, createdAt: ms, expiresAt: ms, revokedAt: optMs });
export const subscription = fc.record({
  userId: id, serviceCode: fc.constantFrom('developer' as const, 'sub_address' as const), planCode: text,
  status: fc.constantFrom('active' as const, 'cancelled' as const),
  meta: fc.oneof(fc.constant({}), fc.record({ maxSubAddresses: fc.integer({ min: -1, max: 100_000 }) })), activatedAt: ms, version,
});
export const apiToken = fc.record({ id, userId: id, name: text, tokenHash: hex64, abilities: fc.array(text, { maxLength: 3 }), createdAt: ms, revokedAt: optMs, lastUsedAt: optMs, expiresAt: optMs, reviewSince: optMs });
export const wallet = fc.record({
  id, userId: id, networkCode: fc.constant('TRON' as const), address, addressType: fc.constantFrom(1 as const, 2 as const),
  label: optText, status: fc.constantFrom(0 as const, 1 as const), encryptedKey: envelope, createdAt: ms, version,
});
export const balance = fc.record({
  address, refreshSource: fc.constantFrom(1 as const, 2 as const), updatedAt: ms,
  items: fc.array(fc.record({ symbol, available: money, updatedAt: ms }), { maxLength: 4 }),
});
/** A withdrawal's approval sub-state (issue #26). */
export const commandApproval = fc.record({
  state: fc.constantFrom('awaiting' as const, 'approved' as const, 'denied' as const, 'expired' as const), deadline: ms, attempts: fc.nat(1_000),
  lastAttemptAt: optMs, lastRefusal: optText, decidedAt: optMs, requestedBy: id, decidedBy: id,
}, { requiredKeys: ['state', 'deadline', 'attempts', 'lastAttemptAt', 'lastRefusal', 'decidedAt'] });
export const command = fc.record({
  commandNo: text, userId: id, type: fc.integer({ min: 1, max: 8 }) as fc.Arbitrary<1>, status: fc.integer({ min: 1, max: 6 }) as fc.Arbitrary<1>,
  address: fc.option(address, { nil: null }), assetSymbol: fc.option(symbol, { nil: null }), lockedAmount: money,
  params: fc.dictionary(fc.string({ maxLength: 8 }), text, { maxKeys: 4 }), transaction, errorCode: optText, lastError: optText,
  createdAt: ms, startedAt: optMs, finishedAt: optMs, nextRunAt: ms, lease, version, approval: commandApproval,
}, { requiredKeys: ['commandNo', 'userId', 'type', 'status', 'address', 'assetSymbol', 'lockedAmount', 'params', 'transaction', 'errorCode',
  'lastError', 'createdAt', 'startedAt', 'finishedAt', 'nextRunAt', 'lease', 'version'] });

/** A withdrawal policy and an allow-list entry (issue #26). */
export const withdrawalPolicy = fc.record({
  userId: id, allowListOnly: fc.boolean(),
  limits: fc.dictionary(symbol, fc.record({
    maxAmount24h: fc.option(money, { nil: null }), maxCount1h: fc.option(fc.nat(1_000), { nil: null }), approvalThreshold: fc.option(money, { nil: null }),
  }), { maxKeys: 3 }),
  approval: fc.record({
    url: optText, pendingUrl: optText, pendingSince: optMs, verifiedAt: optMs, reviewNote: optText,
    secret: fc.option(envelope, { nil: null }), timeoutMinutes: fc.integer({ min: 1, max: 10_080 }),
  }),
  updatedAt: ms, version,
});
export const allowListEntry = fc.record({ userId: id, address, label: optText, createdAt: ms, activeFrom: ms });
export const collectionStatus = fc.constantFrom(1 as const, 2 as const, 6 as const, 8 as const, 11 as const, 12 as const, 15 as const, 16 as const, 17 as const);
export const task = fc.record({
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
    dryRun: fc.record({ amount: money, energy: fc.nat(200_000), subTrxSun: money, at: ms, factor: fc.nat(200_000), period: ms }, { requiredKeys: ['amount', 'energy', 'subTrxSun', 'at'] }),
  }, { requiredKeys: ['path', 'provider', 'energy', 'activate', 'subNeedsSun', 'fundSun', 'sourceSun', 'estimatedCostSun', 'options'] }),
  cost: fc.record({
    bandwidthSun: money, energySun: money, activationSun: money, rentalSun: money, lentSun: money, returnedSun: money,
    txids: fc.array(hex64, { maxLength: 3 }),
  }),
}, { requiredKeys: [
  'taskNo', 'commandNo', 'userId', 'networkCode', 'assetSymbol', 'address', 'mainAddress', 'status', 'energyPath', 'steps', 'sweptAmount',
  'sweepTxHash', 'errorCode', 'lastError', 'nextRunAt', 'lease', 'startedAt', 'finishedAt', 'version',
] });
export const cashierToken = fc.record({
  tokenNo: text, tokenHash: hex64, userId: id, walletAddressId: id, address, networkCode: fc.constant('TRON' as const),
  status: fc.constantFrom('active' as const, 'disabled' as const), ttlMinutes: fc.constantFrom(60 as const, 120 as const, 480 as const, 1440 as const),
  expiresAt: ms, disabledAt: optMs, disableReason: optText, createdAt: ms, version,
  // Absent on tokens without a payment request (issue #25).
  payment: fc.record({
    assetSymbol: symbol, amount: money, reference: optText, description: optText, deadline: ms,
    status: fc.constantFrom(...PAYMENT_STATUSES), received: money,
    collect: fc.constantFrom(null, 'due' as const, 'started' as const, 'skipped' as const), watched: fc.boolean(),
    // Absent unless a forward waits after a refusal (issue #34).
    forwardWait: fc.record({ code: text, reason: text, attempts: fc.integer({ min: 1, max: 1_000 }), since: ms, nextAttemptAt: ms }),
    // Absent unless a started forward's task is followed (issue #34).
    forwardTask: text,
    // Absent unless the request was refunded (issue #36 item 4).
    refunds: fc.array(fc.record({ commandNo: text, amount: money, requestedAt: ms }), { minLength: 1, maxLength: 3 }),
  }, { requiredKeys: ['assetSymbol', 'amount', 'reference', 'description', 'deadline', 'status', 'received', 'collect', 'watched'] }),
}, { requiredKeys: [
  'tokenNo', 'tokenHash', 'userId', 'walletAddressId', 'address', 'networkCode', 'status', 'ttlMinutes', 'expiresAt',
  'disabledAt', 'disableReason', 'createdAt', 'version',
] });
export const developerConfig = fc.record({
  userId: id, url: optText, pendingUrl: optText, pendingSince: optMs, verifiedAt: optMs, reviewNote: optText,
  secret: fc.option(envelope, { nil: null }),
  previousSecret: fc.option(fc.record({ secret: envelope, validUntil: ms }), { nil: null }), minCollectAmounts: fc.dictionary(symbol, money, { maxKeys: 3 }), version,
  // Absent on configurations saved before issue #24 item 4.
  autoCollect: fc.dictionary(symbol, fc.record({ minAmount: money, maxFeeSun: money }), { maxKeys: 2 }),
  // Absent on configurations saved before issue #25.
  displayName: text,
}, { requiredKeys: [
  'userId', 'url', 'pendingUrl', 'pendingSince', 'verifiedAt', 'reviewNote', 'secret', 'previousSecret', 'minCollectAmounts', 'version',
] });
export const eventType = fc.constantFrom(...WEBHOOK_EVENT_TYPES);
export const event = fc.record({
  eventId: fc.uuid(), userId: id, eventType, occurredAt: ms, dispatched: fc.boolean(),
  // A payload is JSON as it travels: JSON.stringify writes -0 as 0 (and so does BSON), so only JSON-normal values are generated.
  payload: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown), { maxKeys: 5 }),
}) as fc.Arbitrary<WebhookEvent>;
export const delivery = fc.record({
  deliveryId: text, eventId: fc.uuid(), userId: id, eventType, url: optText, status: fc.integer({ min: 1, max: 6 }) as fc.Arbitrary<1>,
  attempts: fc.array(fc.record({
    at: ms, httpStatus: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }), error: optText, durationMs: fc.nat(15_000),
    response: optText, redelivery: fc.boolean(), url: optText,
  }), { maxLength: 3 }),
  nextAttemptAt: optMs, lease, createdAt: ms, version,
});
