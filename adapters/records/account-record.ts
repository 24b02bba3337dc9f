import type { Account, ApiToken, ServiceCode, Session, Subscription, TwoFactor } from '../../core/domain/model/account.js';
import { describeRecord } from './record-descriptor.js';
import { nullable } from './record-support.js';

/** `accounts`: `id` is the user id; `emailLower` is the e-mail as the case-insensitive unique rule compares it. */
export interface StoredAccount {
  id: number;
  email: string;
  emailLower: string;
  passwordHash: string;
  verified: boolean;
  verificationCodeHash: string | null;
  verificationExpiresAt: number | null;
  verificationAttempts: number;
  createdAt: number;
  /** The pending password reset; absent in records written before issue #14 (read as null). */
  passwordReset?: { codeHash: string; expiresAt: number; attempts: number } | null;
  /** TOTP two-factor (issue #26 item 3), the secret as its KeyCipher envelope; absent in older records (read as null). */
  twoFactor?: StoredTwoFactor | null;
  version: number;
}

/** The stored form of an account's TwoFactor: plain data, the secret still encrypted. */
export interface StoredTwoFactor {
  secret: { keyId: string; iv: string; ciphertext: string; tag: string };
  enabledAt: number | null;
  lastUsedStep: number;
  recoveryCodeHashes: string[];
  stepUp: { sessionHash: string; proofHash: string; at: number; scope?: string } | null;
  /** Issue #35 item 4; absent in older records (read as 0 and unlocked). */
  failedCodes?: number;
  lockedAt?: number | null;
}

function toStoredTwoFactor(twoFactor: TwoFactor): StoredTwoFactor {
  return {
    secret: { ...twoFactor.secret },
    enabledAt: twoFactor.enabledAt,
    lastUsedStep: twoFactor.lastUsedStep,
    recoveryCodeHashes: [...twoFactor.recoveryCodeHashes],
    stepUp: twoFactor.stepUp === null ? null : { ...twoFactor.stepUp },
    ...(twoFactor.failedCodes === undefined ? {} : { failedCodes: twoFactor.failedCodes }),
    ...(twoFactor.lockedAt === undefined ? {} : { lockedAt: twoFactor.lockedAt }),
  };
}

function fromStoredTwoFactor(doc: StoredTwoFactor): TwoFactor {
  return {
    secret: { keyId: doc.secret.keyId, iv: doc.secret.iv, ciphertext: doc.secret.ciphertext, tag: doc.secret.tag },
    enabledAt: nullable(doc.enabledAt),
    lastUsedStep: doc.lastUsedStep,
    recoveryCodeHashes: [...doc.recoveryCodeHashes],
    stepUp: doc.stepUp == null ? null : {
      sessionHash: doc.stepUp.sessionHash, proofHash: doc.stepUp.proofHash, at: doc.stepUp.at,
      ...(doc.stepUp.scope == null ? {} : { scope: doc.stepUp.scope }),
    },
    ...(doc.failedCodes == null ? {} : { failedCodes: doc.failedCodes }),
    ...(doc.lockedAt === undefined ? {} : { lockedAt: nullable(doc.lockedAt) }),
  };
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredAccount(account: Account): StoredAccount {
  return {
    id: account.id,
    email: account.email,
    emailLower: account.email.toLowerCase(),
    passwordHash: account.passwordHash,
    verified: account.verified,
    verificationCodeHash: account.verificationCodeHash,
    verificationExpiresAt: account.verificationExpiresAt,
    verificationAttempts: account.verificationAttempts,
    createdAt: account.createdAt,
    passwordReset: account.passwordReset == null ? null : { ...account.passwordReset },
    twoFactor: account.twoFactor == null ? null : toStoredTwoFactor(account.twoFactor),
    version: account.version,
  };
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredAccount(doc: StoredAccount): Account {
  return {
    id: doc.id,
    email: doc.email,
    passwordHash: doc.passwordHash,
    verified: doc.verified,
    verificationCodeHash: nullable(doc.verificationCodeHash),
    verificationExpiresAt: nullable(doc.verificationExpiresAt),
    verificationAttempts: doc.verificationAttempts,
    createdAt: doc.createdAt,
    passwordReset: doc.passwordReset == null
      ? null : { codeHash: doc.passwordReset.codeHash, expiresAt: doc.passwordReset.expiresAt, attempts: doc.passwordReset.attempts },
    twoFactor: doc.twoFactor == null ? null : fromStoredTwoFactor(doc.twoFactor),
    version: doc.version,
  };
}

/** `sessions`: `id` is the SHA-256 of the `st_` token. */
export interface StoredSession {
  id: string;
  userId: number;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredSession(session: Session): StoredSession {
  return {
    id: session.tokenHash,
    userId: session.userId,
    createdAt: session.createdAt,
    expiresAt: session.expiresAt,
    revokedAt: session.revokedAt,
  };
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredSession(doc: StoredSession): Session {
  return {
    tokenHash: doc.id,
    userId: doc.userId,
    createdAt: doc.createdAt,
    expiresAt: doc.expiresAt,
    revokedAt: nullable(doc.revokedAt),
  };
}

/** `subscriptions`: one per (user, service); `id` is `${userId}:${serviceCode}`. */
export interface StoredSubscription {
  id: string;
  userId: number;
  serviceCode: ServiceCode;
  planCode: string;
  status: 'active' | 'cancelled';
  /** Null when the plan sets no sub-address quota (a `developer` subscription). */
  maxSubAddresses: number | null;
  activatedAt: number;
  version: number;
}

/** The `id` of a subscription: one record per (user, service). */
export function subscriptionKey(userId: number, serviceCode: ServiceCode): string {
  return `${userId}:${serviceCode}`;
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredSubscription(subscription: Subscription): StoredSubscription {
  return {
    id: subscriptionKey(subscription.userId, subscription.serviceCode),
    userId: subscription.userId,
    serviceCode: subscription.serviceCode,
    planCode: subscription.planCode,
    status: subscription.status,
    maxSubAddresses: subscription.meta.maxSubAddresses ?? null,
    activatedAt: subscription.activatedAt,
    version: subscription.version,
  };
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredSubscription(doc: StoredSubscription): Subscription {
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

/** `api_tokens`: `id` is the token id; `tokenHash` is unique. */
export interface StoredApiToken {
  id: number;
  userId: number;
  name: string;
  tokenHash: string;
  abilities: string[];
  createdAt: number;
  revokedAt: number | null;
  /** Absent in records written before issue #13: read as null. */
  lastUsedAt?: number | null;
  /** Absent in records written before issue #35: read as null (never expires, not marked). */
  expiresAt?: number | null;
  reviewSince?: number | null;
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredApiToken(token: ApiToken): StoredApiToken {
  return {
    id: token.id,
    userId: token.userId,
    name: token.name,
    tokenHash: token.tokenHash,
    abilities: [...token.abilities],
    createdAt: token.createdAt,
    revokedAt: token.revokedAt,
    lastUsedAt: token.lastUsedAt,
    expiresAt: token.expiresAt ?? null,
    reviewSince: token.reviewSince ?? null,
  };
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredApiToken(doc: StoredApiToken): ApiToken {
  return {
    id: doc.id,
    userId: doc.userId,
    name: doc.name,
    tokenHash: doc.tokenHash,
    abilities: [...doc.abilities],
    createdAt: doc.createdAt,
    revokedAt: nullable(doc.revokedAt),
    lastUsedAt: nullable(doc.lastUsedAt),
    expiresAt: nullable(doc.expiresAt),
    reviewSince: nullable(doc.reviewSince),
  };
}

/** Accounts: `email_key` is the e-mail folded as the unique rule of verified accounts compares it. */
export const ACCOUNT_RECORD = describeRecord({
  name: 'account', table: 'accounts', collection: 'accounts', encode: toStoredAccount, decode: fromStoredAccount,
  fields: {
    id: 'id', email: 'email', emailLower: 'email_key', passwordHash: 'password_hash', verified: 'verified',
    verificationCodeHash: 'verification_code_hash', verificationExpiresAt: 'verification_expires_at',
    verificationAttempts: 'verification_attempts', createdAt: 'created_at',
    passwordReset: { column: 'password_reset', codec: 'jsonb' }, twoFactor: { column: 'two_factor', codec: 'jsonb' }, version: 'version',
  },
});

/** Sessions, keyed by the SHA-256 of their token. */
export const SESSION_RECORD = describeRecord({
  name: 'session', table: 'sessions', collection: 'sessions', encode: toStoredSession, decode: fromStoredSession,
  fields: { id: 'token_hash', userId: 'user_id', createdAt: 'created_at', expiresAt: 'expires_at', revokedAt: 'revoked_at' },
});

/** Subscriptions, one per (user, service). */
export const SUBSCRIPTION_RECORD = describeRecord({
  name: 'subscription', table: 'subscriptions', collection: 'subscriptions', encode: toStoredSubscription, decode: fromStoredSubscription,
  fields: {
    id: 'subscription_key', userId: 'user_id', serviceCode: 'service_code', planCode: 'plan_code', status: 'status',
    maxSubAddresses: 'max_sub_addresses', activatedAt: 'activated_at', version: 'version',
  },
});

/** Developer API tokens; the hash is unique too. */
export const API_TOKEN_RECORD = describeRecord({
  name: 'api token', table: 'api_tokens', collection: 'api_tokens', encode: toStoredApiToken, decode: fromStoredApiToken,
  fields: {
    id: 'id', userId: 'user_id', name: 'name', tokenHash: 'token_hash', abilities: 'abilities', createdAt: 'created_at',
    revokedAt: 'revoked_at', lastUsedAt: 'last_used_at', expiresAt: 'expires_at', reviewSince: 'review_since',
  },
});
