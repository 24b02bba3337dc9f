import type { CreateIndexesOptions, IndexSpecification } from 'mongodb';
import { ADDRESS_TYPE } from '../../core/domain/model/wallet.js';
import { StoreError } from '../../core/domain/errors.js';
import { COLLECTIONS, type CollectionName } from './collections.js';

/** One index of the store: the collection, its key pattern and its options (always named, so re-runs are no-ops). */
export interface IndexDefinition {
  readonly collection: CollectionName;
  readonly keys: Readonly<Record<string, 1 | -1>>;
  readonly options: CreateIndexesOptions & { readonly name: string };
}

/** Only a document that carries the field takes part in a partial index (a "slot" that is present or absent). */
const present = (field: string) => ({ partialFilterExpression: { [field]: { $exists: true } } });

/**
 * Every index the repositories rely on. The unique ones are business rules enforced by the server across processes
 * (one email, one main address per network, one active command per address, one active cashier token per address,
 * one delivery per event, one idempotency record per scope and key); the others serve the repositories' queries.
 */
export const INDEX_DEFINITIONS: readonly IndexDefinition[] = [
  // One verified account per e-mail; pending registrations of it are many (issue #26 item 6). Replaces `email_unique`,
  // which an upgraded database drops by hand (docs/operations.md, "Upgrades").
  { collection: COLLECTIONS.accounts, keys: { emailLower: 1 }, options: { name: 'verified_email_unique', unique: true, partialFilterExpression: { verified: true } } },
  { collection: COLLECTIONS.accounts, keys: { emailLower: 1, createdAt: 1 }, options: { name: 'pending_by_email', partialFilterExpression: { verified: false } } },
  // The expiry of unverified accounts (deleteUnverifiedCreatedBefore, issue #14) reads only the unverified ones.
  { collection: COLLECTIONS.accounts, keys: { createdAt: 1 }, options: { name: 'unverified_by_age', partialFilterExpression: { verified: false } } },
  // A password reset revokes every session of its user (revokeAllOfUser, issue #14).
  { collection: COLLECTIONS.sessions, keys: { userId: 1 }, options: { name: 'by_user' } },
  { collection: COLLECTIONS.apiTokens, keys: { tokenHash: 1 }, options: { name: 'token_hash_unique', unique: true } },
  // The per-user cap of unrevoked tokens (issue #13): one token per (user, slot); revoking frees the slot.
  { collection: COLLECTIONS.apiTokens, keys: { userId: 1, activeSlot: 1 }, options: { name: 'active_slot_unique', unique: true, ...present('activeSlot') } },
  { collection: COLLECTIONS.wallets, keys: { address: 1 }, options: { name: 'address_unique', unique: true } },
  {
    collection: COLLECTIONS.wallets, keys: { userId: 1, networkCode: 1 },
    options: { name: 'main_per_network_unique', unique: true, partialFilterExpression: { addressType: ADDRESS_TYPE.MAIN } },
  },
  { collection: COLLECTIONS.wallets, keys: { userId: 1, _id: 1 }, options: { name: 'by_user' } },
  // One deposit record per transfer (issue #24): a rescan, a restart or a second scanner meets this index.
  { collection: COLLECTIONS.deposits, keys: { networkCode: 1, transferId: 1 }, options: { name: 'transfer_unique', unique: true } },
  // The books (issue #36): a cause is booked once per user; entries are read in booking order, by transaction, and per account.
  { collection: COLLECTIONS.ledgerTransactions, keys: { userId: 1, causeType: 1, causeId: 1 }, options: { name: 'cause_unique', unique: true } },
  { collection: COLLECTIONS.ledgerEntries, keys: { userId: 1, seq: 1 }, options: { name: 'by_user_seq' } },
  { collection: COLLECTIONS.ledgerEntries, keys: { transactionId: 1, seq: 1 }, options: { name: 'by_transaction' } },
  { collection: COLLECTIONS.ledgerEntries, keys: { userId: 1, accountKey: 1, occurredAt: -1, seq: -1 }, options: { name: 'by_account_latest' } },
  { collection: COLLECTIONS.deposits, keys: { userId: 1, detectedAt: -1, insertedSeq: -1, _id: -1 }, options: { name: 'by_user_newest_id' } },
  { collection: COLLECTIONS.deposits, keys: { networkCode: 1, blockNumber: 1, _id: 1 }, options: { name: 'pending_by_block', partialFilterExpression: { status: 'pending' } } },
  { collection: COLLECTIONS.deposits, keys: { networkCode: 1, confirmedAt: 1, _id: 1 }, options: { name: 'auto_collect_due', partialFilterExpression: { autoCollect: 'due' } } },
  // Issue #34: started triggers whose task the auto collector follows (listAutoCollectDue's other half).
  { collection: COLLECTIONS.deposits, keys: { networkCode: 1, confirmedAt: 1, _id: 1 }, options: { name: 'auto_collect_followed', partialFilterExpression: { autoCollectTask: { $type: 'string' } } } },
  { collection: COLLECTIONS.commands, keys: { lockedAddress: 1 }, options: { name: 'address_lock_unique', unique: true, ...present('lockedAddress') } },
  { collection: COLLECTIONS.commands, keys: { address: 1, status: 1 }, options: { name: 'active_by_address' } },
  // Newest-first pages end their sort on `_id`: `insertedSeq` is unique only per process, so two processes' inserts in
  // one millisecond could tie and a page boundary could repeat or skip one. Renamed from `by_user_newest` (drop the old
  // index after upgrading: docs/operations.md, "Upgrades").
  { collection: COLLECTIONS.commands, keys: { userId: 1, createdAt: -1, insertedSeq: -1, _id: -1 }, options: { name: 'by_user_newest_id' } },
  // The workflow runner's claim of commands (claimDue): active commands of its types, earliest due first.
  { collection: COLLECTIONS.commands, keys: { status: 1, type: 1, nextRunAt: 1, createdAt: 1, insertedSeq: 1 }, options: { name: 'claim_due' } },
  // The ledger's catch-up pass over the withdrawals (listFinishedSince, issue #36).
  { collection: COLLECTIONS.commands, keys: { type: 1, status: 1, finishedAt: 1, _id: 1 }, options: { name: 'finished' } },
  { collection: COLLECTIONS.tasks, keys: { status: 1, nextRunAt: 1, insertedSeq: 1 }, options: { name: 'due' } },
  { collection: COLLECTIONS.tasks, keys: { address: 1, startedAt: -1, insertedSeq: -1 }, options: { name: 'latest_by_address' } },
  { collection: COLLECTIONS.tasks, keys: { userId: 1, startedAt: -1, insertedSeq: -1, _id: -1 }, options: { name: 'by_user_newest' } },
  // The ledger's catch-up pass (listFinishedSince, issue #36).
  { collection: COLLECTIONS.tasks, keys: { status: 1, finishedAt: 1, _id: 1 }, options: { name: 'finished' } },
  // Reclaim claims (claimReclaimDue): only pending reclaims are indexed, so the ever-growing FAILED history is never scanned.
  { collection: COLLECTIONS.tasks, keys: { 'reclaim.nextRunAt': 1, insertedSeq: 1 }, options: { name: 'reclaim_due', partialFilterExpression: { 'reclaim.status': 'pending' } } },
  { collection: COLLECTIONS.cashierTokens, keys: { tokenHash: 1 }, options: { name: 'token_hash_unique', unique: true } },
  { collection: COLLECTIONS.cashierTokens, keys: { activeSlot: 1 }, options: { name: 'active_slot_unique', unique: true, ...present('activeSlot') } },
  { collection: COLLECTIONS.cashierTokens, keys: { userId: 1, createdAt: -1, insertedSeq: -1, _id: -1 }, options: { name: 'by_user_newest_id' } },
  {
    collection: COLLECTIONS.cashierTokens, keys: { userId: 1, 'payment.reference': 1, createdAt: -1, insertedSeq: -1, _id: -1 },
    options: { name: 'by_reference', partialFilterExpression: { 'payment.reference': { $type: 'string' } } },
  },
  { collection: COLLECTIONS.cashierTokens, keys: { 'payment.deadline': 1, _id: 1 }, options: { name: 'payment_watched', partialFilterExpression: { 'payment.watched': true } } },
  { collection: COLLECTIONS.developerConfigs, keys: { pendingSince: 1, _id: 1 }, options: { name: 'pending_review', partialFilterExpression: { pendingUrl: { $type: 'string' } } } },
  { collection: COLLECTIONS.events, keys: { dispatched: 1, occurredAt: 1, insertedSeq: 1 }, options: { name: 'undispatched' } },
  { collection: COLLECTIONS.deliveries, keys: { eventId: 1 }, options: { name: 'event_unique', unique: true } },
  { collection: COLLECTIONS.deliveries, keys: { status: 1, nextAttemptAt: 1, insertedSeq: 1 }, options: { name: 'due' } },
  { collection: COLLECTIONS.deliveries, keys: { userId: 1, createdAt: -1, insertedSeq: -1, _id: -1 }, options: { name: 'by_user_newest_id' } },
  // The delivery log filtered by status (issue #15).
  { collection: COLLECTIONS.deliveries, keys: { userId: 1, status: 1, createdAt: -1, insertedSeq: -1, _id: -1 }, options: { name: 'by_user_status_newest' } },
  { collection: COLLECTIONS.idempotency, keys: { scope: 1, key: 1 }, options: { name: 'scope_key_unique', unique: true } },
  // `purgeAt` is the record's own expiry (24 h after creation for the API's window, never earlier on wall time):
  // expireAfterSeconds 0 lets the TTL monitor delete it then. Correctness never waits for the monitor.
  { collection: COLLECTIONS.idempotency, keys: { purgeAt: 1 }, options: { name: 'purge_ttl', expireAfterSeconds: 0 } },
  { collection: COLLECTIONS.riskEntries, keys: { insertedSeq: 1 }, options: { name: 'insertion_order' } },
  // One audit entry per (account, seq) (issue #26): two appends racing for one seq, exactly one lands.
  { collection: COLLECTIONS.auditEntries, keys: { userId: 1, seq: 1 }, options: { name: 'user_seq_unique', unique: true } },
  // Issue #26: the velocity totals (a user's withdrawals of an asset by creation time), the allow-list by age, the review queue.
  { collection: COLLECTIONS.commands, keys: { userId: 1, assetSymbol: 1, type: 1, createdAt: 1 }, options: { name: 'withdrawal_velocity' } },
  { collection: COLLECTIONS.allowListEntries, keys: { userId: 1, createdAt: 1, address: 1 }, options: { name: 'by_user_age' } },
  { collection: COLLECTIONS.withdrawalPolicies, keys: { approvalPendingSince: 1, insertedSeq: 1 }, options: { name: 'pending_review' } },
  // Teams (issue #35 item 1), as PostgreSQL's account_members: one member per (account, e-mail), which also lists an
  // account's members; a user joins at most one team (only a joined member has a numeric userId); invitations by e-mail.
  { collection: COLLECTIONS.accountMembers, keys: { accountId: 1, email: 1 }, options: { name: 'account_email_unique', unique: true } },
  { collection: COLLECTIONS.accountMembers, keys: { userId: 1 }, options: { name: 'user_unique', unique: true, partialFilterExpression: { userId: { $type: 'number' } } } },
  { collection: COLLECTIONS.accountMembers, keys: { email: 1 }, options: { name: 'invitation_by_email', partialFilterExpression: { invitationHash: { $type: 'string' } } } },
];

/** The part of the driver's Db that ensureIndexes uses (a recording fake satisfies it in unit tests). */
export interface IndexTarget {
  collection(name: string): { createIndex(keys: IndexSpecification, options: CreateIndexesOptions): Promise<string> };
}

/** The server's refusals of an index whose name exists with other keys or options (IndexOptionsConflict, IndexKeySpecsConflict). */
const INDEX_CONFLICT_CODES = new Set([85, 86]);

/**
 * Creates every index of INDEX_DEFINITIONS, one after the other. Idempotent: an existing index with the same name
 * and definition is left alone. A same-named index with another definition (a release changed it without renaming,
 * or someone edited it by hand) stops start-up with a permanent StoreError naming the index and the migration.
 */
export async function ensureIndexes(db: IndexTarget): Promise<void> {
  for (const index of INDEX_DEFINITIONS) {
    try {
      await db.collection(index.collection).createIndex({ ...index.keys }, { ...index.options });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'number' || !INDEX_CONFLICT_CODES.has(code)) throw error;
      throw new StoreError('SERVICE-UNAVAILABLE', `MongoDB index ${index.options.name} on ${index.collection} exists with another definition `
        + `than this release's ${JSON.stringify(index.keys)}: migrate with db.${index.collection}.dropIndex('${index.options.name}') `
        + 'and restart, which rebuilds it (docs/operations.md, "Upgrades")', { transient: false, cause: error });
    }
  }
}
