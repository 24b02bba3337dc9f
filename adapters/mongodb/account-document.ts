import type { Account, ApiToken, ServiceCode, Session, Subscription } from '../../core/domain/model/account.js';
import { nullable } from './mongo-support.js';

/** `accounts`: `_id` is the user id; `emailLower` carries the case-insensitive unique index. */
export interface AccountDocument {
  _id: number;
  email: string;
  emailLower: string;
  passwordHash: string;
  verified: boolean;
  verificationCodeHash: string | null;
  verificationExpiresAt: number | null;
  verificationAttempts: number;
  createdAt: number;
  /** The pending password reset; absent in documents written before issue #14 (read as null). */
  passwordReset?: { codeHash: string; expiresAt: number; attempts: number } | null;
  version: number;
}

/** Domain value -> stored document: pure, a fresh object (amounts, where any, as decimal strings). */
export function toAccountDocument(account: Account): AccountDocument {
  return {
    _id: account.id,
    email: account.email,
    emailLower: account.email.toLowerCase(),
    passwordHash: account.passwordHash,
    verified: account.verified,
    verificationCodeHash: account.verificationCodeHash,
    verificationExpiresAt: account.verificationExpiresAt,
    verificationAttempts: account.verificationAttempts,
    createdAt: account.createdAt,
    passwordReset: account.passwordReset == null ? null : { ...account.passwordReset },
    version: account.version,
  };
}

/** Stored document -> domain value; BSON null and a missing field both read as null. */
export function fromAccountDocument(doc: AccountDocument): Account {
  return {
    id: doc._id,
    email: doc.email,
    passwordHash: doc.passwordHash,
    verified: doc.verified,
    verificationCodeHash: nullable(doc.verificationCodeHash),
    verificationExpiresAt: nullable(doc.verificationExpiresAt),
    verificationAttempts: doc.verificationAttempts,
    createdAt: doc.createdAt,
    passwordReset: doc.passwordReset == null
      ? null : { codeHash: doc.passwordReset.codeHash, expiresAt: doc.passwordReset.expiresAt, attempts: doc.passwordReset.attempts },
    version: doc.version,
  };
}

/** `sessions`: `_id` is the SHA-256 of the `st_` token. */
export interface SessionDocument {
  _id: string;
  userId: number;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

/** Domain value -> stored document: pure, a fresh object (amounts, where any, as decimal strings). */
export function toSessionDocument(session: Session): SessionDocument {
  return {
    _id: session.tokenHash,
    userId: session.userId,
    createdAt: session.createdAt,
    expiresAt: session.expiresAt,
    revokedAt: session.revokedAt,
  };
}

/** Stored document -> domain value; BSON null and a missing field both read as null. */
export function fromSessionDocument(doc: SessionDocument): Session {
  return {
    tokenHash: doc._id,
    userId: doc.userId,
    createdAt: doc.createdAt,
    expiresAt: doc.expiresAt,
    revokedAt: nullable(doc.revokedAt),
  };
}

/** `subscriptions`: one per (user, service); `_id` is `${userId}:${serviceCode}`. */
export interface SubscriptionDocument {
  _id: string;
  userId: number;
  serviceCode: ServiceCode;
  planCode: string;
  status: 'active' | 'cancelled';
  /** Null when the plan sets no sub-address quota (a `developer` subscription). */
  maxSubAddresses: number | null;
  activatedAt: number;
  version: number;
}

/** The `_id` of a subscription: one document per (user, service). */
export function subscriptionKey(userId: number, serviceCode: ServiceCode): string {
  return `${userId}:${serviceCode}`;
}

/** Domain value -> stored document: pure, a fresh object (amounts, where any, as decimal strings). */
export function toSubscriptionDocument(subscription: Subscription): SubscriptionDocument {
  return {
    _id: subscriptionKey(subscription.userId, subscription.serviceCode),
    userId: subscription.userId,
    serviceCode: subscription.serviceCode,
    planCode: subscription.planCode,
    status: subscription.status,
    maxSubAddresses: subscription.meta.maxSubAddresses ?? null,
    activatedAt: subscription.activatedAt,
    version: subscription.version,
  };
}

/** Stored document -> domain value; BSON null and a missing field both read as null. */
export function fromSubscriptionDocument(doc: SubscriptionDocument): Subscription {
  const max = nullable(doc.maxSubAddresses);
  return {
    userId: doc.userId,
    serviceCode: doc.serviceCode,
    planCode: doc.planCode,
    status: doc.status,
    meta: max === null ? {} : { maxSubAddresses: max },
    activatedAt: doc.activatedAt,
    version: doc.version,
  };
}

/** `api_tokens`: `_id` is the token id; `tokenHash` is unique. */
export interface ApiTokenDocument {
  _id: number;
  userId: number;
  name: string;
  tokenHash: string;
  abilities: string[];
  createdAt: number;
  revokedAt: number | null;
  /** Absent in documents written before issue #13: read as null. */
  lastUsedAt?: number | null;
  /**
   * 0..cap-1 while unrevoked (unset on revoke): unique per user through a partial index, which makes the per-user
   * cap atomic across processes (createWithinCap). Tokens stored before the cap have none and are not counted.
   */
  activeSlot?: number;
}

/** Domain value -> stored document: pure, a fresh object (amounts, where any, as decimal strings). */
export function toApiTokenDocument(token: ApiToken): ApiTokenDocument {
  return {
    _id: token.id,
    userId: token.userId,
    name: token.name,
    tokenHash: token.tokenHash,
    abilities: [...token.abilities],
    createdAt: token.createdAt,
    revokedAt: token.revokedAt,
    lastUsedAt: token.lastUsedAt,
  };
}

/** Stored document -> domain value; BSON null and a missing field both read as null. */
export function fromApiTokenDocument(doc: ApiTokenDocument): ApiToken {
  return {
    id: doc._id,
    userId: doc.userId,
    name: doc.name,
    tokenHash: doc.tokenHash,
    abilities: [...doc.abilities],
    createdAt: doc.createdAt,
    revokedAt: nullable(doc.revokedAt),
    lastUsedAt: nullable(doc.lastUsedAt),
  };
}
