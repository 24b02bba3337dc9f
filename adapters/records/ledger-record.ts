import { ledgerAccountKey, type LedgerAccountKind, type LedgerEntry } from '../../core/domain/ledger.js';
import { decodeMoney, encodeMoney, nullable } from './record-support.js';

/**
 * `ledger_entries`: one flat record per entry (`id` is the entry id); money as decimal strings; `seq` orders the
 * user's entries in booking order (assigned by the store). `accountKey` (ledgerAccountKey) is what balances and the
 * per-account lock are keyed by, with the user. Unique in every store: the entry id, and the cause per user in
 * `ledger_transactions`.
 */
export interface StoredLedgerEntry {
  id: string;
  transactionId: string;
  userId: number;
  occurredAt: number;
  accountKey: string;
  kind: LedgerAccountKind;
  networkCode: string;
  assetSymbol: string;
  address: string | null;
  amount: string;
  balanceAfter: string;
  causeType: string;
  causeId: string;
  causeTxid: string | null;
  reverses: string | null;
  seq: number;
}

/** Domain value -> stored record (pure, a fresh object); `seq` is the store's booking position. */
export function toStoredLedgerEntry(e: LedgerEntry, seq: number): StoredLedgerEntry {
  return {
    id: e.entryId, transactionId: e.transactionId, userId: e.userId, occurredAt: e.occurredAt, accountKey: ledgerAccountKey(e.account),
    kind: e.account.kind, networkCode: e.account.networkCode, assetSymbol: e.account.assetSymbol, address: e.account.address,
    amount: encodeMoney(e.amount), balanceAfter: encodeMoney(e.balanceAfter), causeType: e.cause.type, causeId: e.cause.id,
    causeTxid: e.cause.txid ?? null, reverses: e.reverses, seq,
  };
}

/** Stored record -> domain value; a malformed amount is a store fault; a null txid reads as none. */
export function fromStoredLedgerEntry(r: StoredLedgerEntry): LedgerEntry {
  const txid = nullable(r.causeTxid);
  return {
    entryId: r.id, transactionId: r.transactionId, userId: r.userId, occurredAt: r.occurredAt,
    account: { kind: r.kind, networkCode: r.networkCode, assetSymbol: r.assetSymbol, address: nullable(r.address) },
    amount: decodeMoney(r.amount, 'ledger amount'), balanceAfter: decodeMoney(r.balanceAfter, 'ledger balance_after'),
    cause: { type: r.causeType, id: r.causeId, ...(txid === null ? {} : { txid }) }, reverses: nullable(r.reverses),
  };
}
