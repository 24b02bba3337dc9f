import type { IdempotencyRecord, WalletAddress } from '../../core/domain/model/index.js';
import type { StoredAccount, StoredApiToken, StoredSession, StoredSubscription } from '../records/account-record.js';
import type { StoredCashierToken } from '../records/cashier-token-record.js';
import type { StoredCollectionTask } from '../records/collection-task-record.js';
import type { StoredCommand } from '../records/command-record.js';
import { fromStoredIdempotency, toStoredIdempotency, type StoredIdempotency } from '../records/idempotency-record.js';
import { WALLET_RECORD, type StoredBalance, type StoredWallet } from '../records/wallet-record.js';
import type { StoredDeveloperConfig, StoredWebhookDelivery, StoredWebhookEvent } from '../records/webhook-record.js';
import type { MongoDocument } from './mongo-support.js';
import { fromDocument } from './mongo-table.js';

/**
 * The documents of the MongoDB collections: each is a shared record with `_id` for `id` (see toMongoDocument), plus
 * the fields only MongoDB needs. Those are decided by the writer, never by a record codec, and the codecs ignore them
 * on the way back. The mapping itself comes from each record's descriptor (mongo-table.ts).
 */

/** Insertion order, the tie-break of "newest first" and "latest" (see insertionStamp). Set on insert only. */
interface InsertionOrdered {
  insertedSeq?: number;
}

export type AccountDocument = MongoDocument<StoredAccount>;
export type SessionDocument = MongoDocument<StoredSession>;
export type SubscriptionDocument = MongoDocument<StoredSubscription>;
export type WalletDocument = MongoDocument<StoredWallet>;
export type BalanceDocument = MongoDocument<StoredBalance>;
export type DeveloperConfigDocument = MongoDocument<StoredDeveloperConfig>;
export type CollectionTaskDocument = MongoDocument<StoredCollectionTask> & InsertionOrdered;
export type WebhookEventDocument = MongoDocument<StoredWebhookEvent> & InsertionOrdered;
export type WebhookDeliveryDocument = MongoDocument<StoredWebhookDelivery> & InsertionOrdered;

/**
 * `api_tokens`. `activeSlot` is 0..cap-1 while unrevoked (unset on revoke): unique per user through a partial index,
 * which makes the per-user cap atomic across processes (createWithinCap). Tokens stored before the cap have none and
 * are not counted.
 */
export type ApiTokenDocument = MongoDocument<StoredApiToken> & { activeSlot?: number };

/**
 * `commands`. `lockedAddress` is present only while the command holds its address's lock (see holdsAddressLock); a
 * unique index partial on its existence makes "one active fund-moving command per address" a store rule.
 */
export type CommandDocument = MongoDocument<StoredCommand> & InsertionOrdered & { lockedAddress?: string };

/**
 * `cashier_tokens`. `activeSlot` (the address) is present while the token may still count as the address's active
 * token; a unique index partial on its existence allows one holder per address. Because expiry is time-based, an
 * expired holder is evicted from the slot (not deleted) by the next insert.
 */
export type CashierTokenDocument = MongoDocument<StoredCashierToken> & InsertionOrdered & { activeSlot?: string };

/**
 * `wallet_quotas`: how many sub-addresses a user has on a network, `_id` `${userId}:${networkCode}`. Every
 * sub-address insert increments it in the insert's transaction, so concurrent inserts serialise on this document.
 */
export interface WalletQuotaDocument {
  _id: string;
  subs: number;
}

/** The `_id` of a quota counter: one per (user, network). */
export function walletQuotaKey(userId: number, networkCode: string): string {
  return `${userId}:${networkCode}`;
}

/**
 * A stored wallet address as its domain value (the key store's walk of wallet_addresses reads it). Every other
 * collection maps through its record's descriptor (mongo-table.ts: toDocument, fromDocument).
 */
export function fromWalletDocument(doc: WalletDocument): WalletAddress {
  return fromDocument(WALLET_RECORD, doc);
}

/**
 * `idempotency_records`: the record as it is (its `_id` is the driver's ObjectId and never leaves the adapter), plus
 * `purgeAt`, a BSON date for the TTL index. `expiresAt` still decides whether a record counts, because TTL deletion
 * runs only about once a minute.
 */
export type IdempotencyDocument = StoredIdempotency & { purgeAt: Date };

/** Domain value -> document: the record, then its purge time. */
export function toIdempotencyDocument(record: IdempotencyRecord, purgeAt: Date): IdempotencyDocument {
  return { ...toStoredIdempotency(record), purgeAt };
}

/** Document -> domain value (`purgeAt` and `_id` are the adapter's). */
export function fromIdempotencyDocument(doc: IdempotencyDocument): IdempotencyRecord {
  return fromStoredIdempotency(doc);
}

/**
 * When the TTL monitor may delete the record: never before its logical expiry on the store's clock, and never
 * before the same window measured on wall time — a test clock set in 1970 must not let the monitor purge a record
 * the store still considers live. In production both clocks agree.
 */
export function purgeTime(expiresAt: number, windowMs: number, wallNow: number): Date {
  return new Date(Math.max(expiresAt, wallNow + windowMs));
}
