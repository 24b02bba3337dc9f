import type {
  Account, ApiToken, BalanceSnapshot, CashierToken, CollectionTask, Command, DeveloperConfig, Session, Subscription,
  WalletAddress, WebhookDelivery, WebhookEvent,
} from '../../core/domain/model/index.js';

/** 2026-01-01T00:00:00Z: the suites' reference time; entities are stamped relative to it. */
export const T0 = Date.UTC(2026, 0, 1);
export const MINUTE = 60_000;

/** A TRON-looking base58 address, distinct per `n` (the stores treat addresses as opaque strings). */
export function addressOf(n: number): string {
  return `T${String(n).padStart(33, '9')}`;
}

const ENVELOPE = { keyId: 'k1', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' } as const;

export function anAccount(overrides: Partial<Account> = {}): Account {
  return {
    id: 1, email: 'alice@example.com', passwordHash: 'scrypt$1$1$1$c2FsdA==$aGFzaA==', verified: false,
    verificationCodeHash: 'ab'.repeat(32), verificationExpiresAt: T0 + 15 * MINUTE, verificationAttempts: 0,
    createdAt: T0, passwordReset: null, twoFactor: null, version: 1, ...overrides,
  };
}

export function aSession(overrides: Partial<Session> = {}): Session {
  return { tokenHash: 'a1'.repeat(32), userId: 1, createdAt: T0, expiresAt: T0 + 1440 * MINUTE, revokedAt: null, ...overrides };
}

export function aSubscription(overrides: Partial<Subscription> = {}): Subscription {
  return {
    userId: 1, serviceCode: 'sub_address', planCode: 'starter', status: 'active', meta: { maxSubAddresses: 10 },
    activatedAt: T0, version: 1, ...overrides,
  };
}

export function anApiToken(overrides: Partial<ApiToken> = {}): ApiToken {
  return {
    id: 1, userId: 1, name: 'ci', tokenHash: 'b2'.repeat(32), abilities: ['api:access'], createdAt: T0, revokedAt: null, lastUsedAt: null,
    expiresAt: null, reviewSince: null,
    ...overrides,
  };
}

export function aWallet(overrides: Partial<WalletAddress> = {}): WalletAddress {
  const id = overrides.id ?? 1;
  return {
    id, userId: 1, networkCode: 'TRON', address: addressOf(id), addressType: 2, label: null, status: 1,
    encryptedKey: ENVELOPE, createdAt: T0 + id, version: 1, ...overrides,
  };
}

export function aBalance(overrides: Partial<BalanceSnapshot> = {}): BalanceSnapshot {
  return {
    address: addressOf(1), refreshSource: 1, updatedAt: T0,
    items: [{ symbol: 'TRX', available: 1_000_000n, updatedAt: T0 }, { symbol: 'USDT', available: 2n ** 70n, updatedAt: T0 }],
    ...overrides,
  };
}

export function aCommand(overrides: Partial<Command> = {}): Command {
  return {
    commandNo: 'C0001', userId: 1, type: 3, status: 1, address: addressOf(1), assetSymbol: 'USDT', lockedAmount: 5n,
    params: { to: addressOf(2) }, transaction: null, errorCode: null, lastError: null, createdAt: T0, startedAt: null,
    finishedAt: null, nextRunAt: T0, lease: null, version: 1, ...overrides,
  };
}

export function aTask(overrides: Partial<CollectionTask> = {}): CollectionTask {
  return {
    taskNo: 'K0001', commandNo: 'C0001', userId: 1, networkCode: 'TRON', assetSymbol: 'USDT', address: addressOf(1),
    mainAddress: addressOf(900), status: 1, energyPath: null, steps: [], sweptAmount: null, sweepTxHash: null,
    errorCode: null, lastError: null, nextRunAt: T0, lease: null, startedAt: T0, finishedAt: null, version: 1,
    ...overrides,
  };
}

export function aCashierToken(overrides: Partial<CashierToken> = {}): CashierToken {
  return {
    tokenNo: 'CT0001', tokenHash: 'c3'.repeat(32), userId: 1, walletAddressId: 1, address: addressOf(1),
    networkCode: 'TRON', status: 'active', ttlMinutes: 60, expiresAt: T0 + 60 * MINUTE, disabledAt: null,
    disableReason: null, createdAt: T0, version: 1, ...overrides,
  };
}

export function aDeveloperConfig(overrides: Partial<DeveloperConfig> = {}): DeveloperConfig {
  return {
    userId: 1, url: null, pendingUrl: null, pendingSince: null, verifiedAt: null, reviewNote: null, secret: ENVELOPE,
    previousSecret: null, minCollectAmounts: { USDT: 1_000_000n }, version: 1, ...overrides,
  };
}

export function anEvent(overrides: Partial<WebhookEvent> = {}): WebhookEvent {
  const eventId = overrides.eventId ?? '00000000-0000-4000-8000-000000000001';
  return {
    eventId, userId: 1, eventType: 'collection.completed', occurredAt: T0, dispatched: false,
    payload: { event_id: eventId, event_type: 'collection.completed', occurred_at: '2026-01-01T00:00:00+00:00', swept_amount: 5 },
    ...overrides,
  };
}

export function aDelivery(overrides: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return {
    deliveryId: 'D0001', eventId: '00000000-0000-4000-8000-000000000001', userId: 1, eventType: 'collection.completed',
    url: 'https://hooks.example.com/in', status: 1, attempts: [], nextAttemptAt: T0, lease: null, createdAt: T0,
    version: 1, ...overrides,
  };
}
