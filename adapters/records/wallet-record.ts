import type { BalanceSnapshot, RefreshSource } from '../../core/domain/model/balance.js';
import type { EncryptedEnvelope, NetworkCode } from '../../core/domain/model/common.js';
import type { AddressStatus, AddressType, WalletAddress } from '../../core/domain/model/wallet.js';
import { decodeMoney, encodeMoney, nullable } from './record-support.js';
import { describeRecord } from './record-descriptor.js';

/** An AES-256-GCM envelope as stored (base64 fields, key id for rotation). */
export interface StoredEnvelope {
  keyId: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredEnvelope(envelope: EncryptedEnvelope): StoredEnvelope {
  return { keyId: envelope.keyId, iv: envelope.iv, ciphertext: envelope.ciphertext, tag: envelope.tag };
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredEnvelope(doc: StoredEnvelope): EncryptedEnvelope {
  return { keyId: doc.keyId, iv: doc.iv, ciphertext: doc.ciphertext, tag: doc.tag };
}

/**
 * `wallet_addresses`: `id` is wallet_address_id. Unique in every store: `address`, and (userId, networkCode) among
 * main addresses (addressType 1) — the store-level "one main address per network" rule.
 */
export interface StoredWallet {
  id: number;
  userId: number;
  networkCode: NetworkCode;
  address: string;
  addressType: AddressType;
  label: string | null;
  status: AddressStatus;
  encryptedKey: StoredEnvelope;
  createdAt: number;
  version: number;
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredWallet(wallet: WalletAddress): StoredWallet {
  return {
    id: wallet.id,
    userId: wallet.userId,
    networkCode: wallet.networkCode,
    address: wallet.address,
    addressType: wallet.addressType,
    label: wallet.label,
    status: wallet.status,
    encryptedKey: toStoredEnvelope(wallet.encryptedKey),
    createdAt: wallet.createdAt,
    version: wallet.version,
  };
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredWallet(doc: StoredWallet): WalletAddress {
  return {
    id: doc.id,
    userId: doc.userId,
    networkCode: doc.networkCode,
    address: doc.address,
    addressType: doc.addressType,
    label: nullable(doc.label),
    status: doc.status,
    encryptedKey: fromStoredEnvelope(doc.encryptedKey),
    createdAt: doc.createdAt,
    version: doc.version,
  };
}

/** `balance_snapshots`: `id` is the address; amounts are decimal strings. */
export interface StoredBalance {
  id: string;
  items: { symbol: string; available: string; updatedAt: number }[];
  refreshSource: RefreshSource;
  updatedAt: number;
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredBalance(snapshot: BalanceSnapshot): StoredBalance {
  return {
    id: snapshot.address,
    items: snapshot.items.map((item) => ({
      symbol: item.symbol,
      available: encodeMoney(item.available),
      updatedAt: item.updatedAt,
    })),
    refreshSource: snapshot.refreshSource,
    updatedAt: snapshot.updatedAt,
  };
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredBalance(doc: StoredBalance): BalanceSnapshot {
  return {
    address: doc.id,
    items: doc.items.map((item) => ({
      symbol: item.symbol,
      available: decodeMoney(item.available, `balance ${item.symbol}`),
      updatedAt: item.updatedAt,
    })),
    refreshSource: doc.refreshSource,
    updatedAt: doc.updatedAt,
  };
}

/** Wallet addresses; the encrypted key as JSONB. */
export const WALLET_RECORD = describeRecord({
  name: 'wallet address', table: 'wallet_addresses', collection: 'wallet_addresses', encode: toStoredWallet, decode: fromStoredWallet,
  fields: {
    id: 'id', userId: 'user_id', networkCode: 'network_code', address: 'address', addressType: 'address_type', label: 'label',
    status: 'status', encryptedKey: { column: 'encrypted_key', codec: 'jsonb' }, createdAt: 'created_at', version: 'version',
  },
});

/** Balance snapshots, one per address; the items as JSONB (no query reads them; amounts stay decimal strings). */
export const BALANCE_RECORD = describeRecord({
  name: 'balance snapshot', table: 'balance_snapshots', collection: 'balance_snapshots', encode: toStoredBalance, decode: fromStoredBalance,
  fields: { id: 'address', items: { column: 'items', codec: 'jsonb' }, refreshSource: 'refresh_source', updatedAt: 'updated_at' },
});
