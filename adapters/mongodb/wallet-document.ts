import type { BalanceSnapshot, RefreshSource } from '../../core/domain/model/balance.js';
import type { EncryptedEnvelope, NetworkCode } from '../../core/domain/model/common.js';
import type { AddressStatus, AddressType, WalletAddress } from '../../core/domain/model/wallet.js';
import { decodeMoney, encodeMoney, nullable } from './mongo-support.js';

/** An AES-256-GCM envelope as stored (base64 fields, key id for rotation). */
export interface EnvelopeDocument {
  keyId: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

/** Domain value -> stored document: pure, a fresh object (amounts, where any, as decimal strings). */
export function toEnvelopeDocument(envelope: EncryptedEnvelope): EnvelopeDocument {
  return { keyId: envelope.keyId, iv: envelope.iv, ciphertext: envelope.ciphertext, tag: envelope.tag };
}

/** Stored document -> domain value; BSON null and a missing field both read as null. */
export function fromEnvelopeDocument(doc: EnvelopeDocument): EncryptedEnvelope {
  return { keyId: doc.keyId, iv: doc.iv, ciphertext: doc.ciphertext, tag: doc.tag };
}

/**
 * `wallet_addresses`: `_id` is wallet_address_id. Unique indexes: `address`, and (userId, networkCode) over
 * main addresses only (partial on addressType 1) — the store-level "one main address per network" rule.
 */
export interface WalletDocument {
  _id: number;
  userId: number;
  networkCode: NetworkCode;
  address: string;
  addressType: AddressType;
  label: string | null;
  status: AddressStatus;
  encryptedKey: EnvelopeDocument;
  createdAt: number;
  version: number;
}

/** Domain value -> stored document: pure, a fresh object (amounts, where any, as decimal strings). */
export function toWalletDocument(wallet: WalletAddress): WalletDocument {
  return {
    _id: wallet.id,
    userId: wallet.userId,
    networkCode: wallet.networkCode,
    address: wallet.address,
    addressType: wallet.addressType,
    label: wallet.label,
    status: wallet.status,
    encryptedKey: toEnvelopeDocument(wallet.encryptedKey),
    createdAt: wallet.createdAt,
    version: wallet.version,
  };
}

/** Stored document -> domain value; BSON null and a missing field both read as null. */
export function fromWalletDocument(doc: WalletDocument): WalletAddress {
  return {
    id: doc._id,
    userId: doc.userId,
    networkCode: doc.networkCode,
    address: doc.address,
    addressType: doc.addressType,
    label: nullable(doc.label),
    status: doc.status,
    encryptedKey: fromEnvelopeDocument(doc.encryptedKey),
    createdAt: doc.createdAt,
    version: doc.version,
  };
}

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

/** `balance_snapshots`: `_id` is the address; amounts are decimal strings. */
export interface BalanceDocument {
  _id: string;
  items: { symbol: string; available: string; updatedAt: number }[];
  refreshSource: RefreshSource;
  updatedAt: number;
}

/** Domain value -> stored document: pure, a fresh object (amounts, where any, as decimal strings). */
export function toBalanceDocument(snapshot: BalanceSnapshot): BalanceDocument {
  return {
    _id: snapshot.address,
    items: snapshot.items.map((item) => ({
      symbol: item.symbol,
      available: encodeMoney(item.available),
      updatedAt: item.updatedAt,
    })),
    refreshSource: snapshot.refreshSource,
    updatedAt: snapshot.updatedAt,
  };
}

/** Stored document -> domain value; BSON null and a missing field both read as null. */
export function fromBalanceDocument(doc: BalanceDocument): BalanceSnapshot {
  return {
    address: doc._id,
    items: doc.items.map((item) => ({
      symbol: item.symbol,
      available: decodeMoney(item.available, `balance ${item.symbol}`),
      updatedAt: item.updatedAt,
    })),
    refreshSource: doc.refreshSource,
    updatedAt: doc.updatedAt,
  };
}
