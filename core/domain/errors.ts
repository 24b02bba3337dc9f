/**
 * The one error catalogue: every code the service can answer with, its HTTP status and its default message.
 * Codes of spec §7 first, then the ones DESIGN.md and the issues decide. No HTTP status is chosen outside this table.
 */
export const ERROR_CATALOGUE = {
  // spec §7
  'BIZ-NETWORK-NOT-FOUND': { status: 422, message: 'network code unknown or unavailable' },
  'BIZ-ADDRESS-TYPE-NOT-ALLOWED': { status: 422, message: 'unsupported address type' },
  'BIZ-MAIN-ADDRESS-ALREADY-EXISTS': { status: 409, message: 'main address exists for the network' },
  'BIZ-MAIN-ADDRESS-REQUIRED': { status: 422, message: 'create the main address first' },
  'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED': { status: 422, message: 'active sub-address subscription required' },
  'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED': { status: 422, message: 'plan quota exceeded' },
  // 404 on wallet reads; the 422 variant below is used on create collection and create cashier token.
  'BIZ-WALLET-ADDRESS-NOT-FOUND': { status: 404, message: 'address missing or not the caller\'s' },
  'BIZ-ASSET-NOT-FOUND': { status: 422, message: 'asset symbol unknown' },
  'BIZ-AMOUNT-INVALID': { status: 422, message: 'amount must be a positive integer string' },
  'BIZ-COMMAND-LOCKED': { status: 409, message: 'address already has an active command' },
  'BIZ-COMMAND-NOT-FOUND': { status: 404, message: 'command number unknown' },
  'CHAIN-BALANCE-QUERY-FAILED': { status: 502, message: 'on-chain balance query failed' },
  'BIZ-CHAIN-RESOURCES-NOT-SUPPORTED': { status: 422, message: 'network has no resource staking' },
  'BIZ-ADDRESS-TYPE-NOT-SUB': { status: 422, message: 'collection or cashier token on a non-sub-address' },
  'RISK-REVIEW-BLOCKED': { status: 403, message: 'blocked by risk control' },
  'BIZ-COLLECTION-TASK-NOT-FOUND': { status: 404, message: 'task unknown' },
  'CASHIER-TOKEN-ACTIVE-EXISTS': { status: 409, message: 'active cashier token exists for the address' },
  'CASHIER-TOKEN-NOT-FOUND': { status: 404, message: 'unknown or not the caller\'s' },
  'CASHIER-TOKEN-ALREADY-DISABLED': { status: 409, message: 'already disabled' },
  'CASHIER-TOKEN-MISSING': { status: 401, message: 'no cashier bearer token' },
  'CASHIER-TOKEN-INVALID': { status: 401, message: 'invalid, expired or disabled' },
  'BIZ-AMOUNT-BELOW-MINIMUM': { status: 422, message: 'balance below minimum collect threshold' },
  // spec: "status not stated" — decided 422 (docs/decisions.md)
  'VALIDATION-ERROR': { status: 422, message: 'validation failed' },
  'BIZ-WEBHOOK-URL-BLOCKED': { status: 422, message: 'loopback, private or link-local webhook address' },
  'BIZ-WEBHOOK-URL-UNVERIFIED': { status: 422, message: 'webhook test before URL approval' },

  // DESIGN.md: idempotency, protocol, infrastructure
  'IDEMPOTENCY-KEY-REUSED': { status: 422, message: 'idempotency key reused with a different request' },
  'IDEMPOTENCY-KEY-IN-PROGRESS': { status: 409, message: 'a request with this idempotency key is still in progress' },
  'UNAUTHENTICATED': { status: 401, message: 'invalid or missing token' },
  'FORBIDDEN': { status: 403, message: 'authenticated but not authorized' },
  'NOT-FOUND': { status: 404, message: 'resource not found' },
  'METHOD-NOT-ALLOWED': { status: 405, message: 'method not allowed' },
  'PAYLOAD-TOO-LARGE': { status: 413, message: 'request body exceeds 64 KiB' },
  // Answered by the HTTP server itself before any route runs (issue #13): malformed framing, slow or oversized headers.
  'BAD-REQUEST': { status: 400, message: 'malformed HTTP request' },
  'REQUEST-TIMEOUT': { status: 408, message: 'the request was not received in time' },
  'HEADERS-TOO-LARGE': { status: 431, message: 'request headers exceed 16 KiB' },
  'RATE-LIMITED': { status: 429, message: 'rate limit exceeded' },
  'INTERNAL-ERROR': { status: 500, message: 'internal error' },
  'SERVICE-UNAVAILABLE': { status: 503, message: 'a backing service is unavailable; retry later' },
  'CHAIN-BROADCAST-FAILED': { status: 502, message: 'on-chain broadcast failed' },
  'CHAIN-NODE-UNAVAILABLE': { status: 502, message: 'chain node unreachable or failing' },
  'CHAIN-TRANSACTION-FAILED': { status: 502, message: 'on-chain transaction failed' },

  // accounts, subscriptions, tokens (DESIGN.md "Accounts and session tokens")
  'AUTH-EMAIL-TAKEN': { status: 409, message: 'an account with this email exists' },
  'AUTH-INVALID-CREDENTIALS': { status: 401, message: 'email or password is wrong' },
  'AUTH-NOT-VERIFIED': { status: 403, message: 'account email is not verified' },
  'AUTH-VERIFICATION-FAILED': { status: 422, message: 'verification code wrong or expired' },
  'AUTH-RESET-FAILED': { status: 422, message: 'password reset code wrong, used or expired' },
  'BIZ-SERVICE-NOT-FOUND': { status: 422, message: 'service code unknown' },
  'BIZ-PLAN-NOT-FOUND': { status: 422, message: 'plan code unknown for the service' },
  'BIZ-DEVELOPER-SUBSCRIPTION-REQUIRED': { status: 422, message: 'active developer subscription required' },
  'API-TOKEN-NOT-FOUND': { status: 404, message: 'API token unknown or not the caller\'s' },
  // issue #13: unrevoked Developer API Tokens per user are capped (docs/decisions.md 60).
  'BIZ-API-TOKEN-QUOTA-EXCEEDED': { status: 422, message: 'too many API tokens; revoke one first' },

  // admin and collection execution
  'BIZ-USER-NOT-FOUND': { status: 404, message: 'user unknown' },
  'BIZ-WEBHOOK-NOT-PENDING': { status: 409, message: 'no webhook URL is pending review' },
  // issue #15: the delivery log and redelivery (docs/decisions.md 69).
  'WEBHOOK-DELIVERY-NOT-FOUND': { status: 404, message: 'delivery unknown or not the caller\'s' },
  'WEBHOOK-DELIVERY-SKIPPED': { status: 409, message: 'a SKIPPED delivery is never replayed (spec §3)' },
  'WEBHOOK-DELIVERY-IN-PROGRESS': { status: 409, message: 'the delivery is still being attempted on its schedule' },
  'BIZ-COMMAND-NOT-CANCELLABLE': { status: 409, message: 'command is terminal or already broadcast' },
  // Never an HTTP answer: the error_code a collection task records when the platform cancels it (admin cancel).
  'BIZ-COMMAND-CANCELLED': { status: 409, message: 'cancelled by the platform' },
  'BIZ-ILLEGAL-TRANSITION': { status: 409, message: 'state transition not allowed' },
  'BIZ-INSUFFICIENT-BALANCE': { status: 422, message: 'balance too low for the operation' },
  'BIZ-ENERGY-UNAVAILABLE': { status: 502, message: 'no energy source can cover the transfer' },
  'BIZ-ENERGY-TIMEOUT': { status: 502, message: 'energy not ready within 60 s' },
  'BIZ-NOTHING-TO-COLLECT': { status: 422, message: 'the sub-address holds none of the asset' },
  // The node's dry run (triggerconstantcontract) says the token transfer would revert: a blacklisted address or a
  // paused token. Found before anything is spent.
  'BIZ-TRANSFER-WOULD-REVERT': { status: 422, message: 'the token contract refuses the transfer (blacklisted address or paused token)' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** Codes that describe an infrastructure failure rather than a business outcome. */
const INFRASTRUCTURE_CODES = new Set<ErrorCode>([
  'CHAIN-BALANCE-QUERY-FAILED', 'CHAIN-BROADCAST-FAILED', 'CHAIN-NODE-UNAVAILABLE', 'CHAIN-TRANSACTION-FAILED',
  'SERVICE-UNAVAILABLE', 'INTERNAL-ERROR',
]);

export function isInfrastructureCode(code: ErrorCode): boolean {
  return INFRASTRUCTURE_CODES.has(code);
}

export interface ErrorFields {
  /** Overrides the catalogue message (e.g. to name the invalid field). Never carries secrets or internals. */
  readonly message?: string;
  /** Overrides the catalogue status where the spec lists one code with two statuses (BIZ-WALLET-ADDRESS-NOT-FOUND). */
  readonly status?: number;
  /** The invalid field, for VALIDATION-ERROR. */
  readonly field?: string;
  /** Extra headers the host should send (Retry-After for 429). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

/** An expected business outcome with a catalogue code (quota exceeded, token expired, illegal transition ...). */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, fields: ErrorFields = {}) {
    super(fields.message ?? ERROR_CATALOGUE[code].message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'DomainError';
    this.code = code;
    this.status = fields.status ?? ERROR_CATALOGUE[code].status;
    this.field = fields.field;
    this.headers = fields.headers ?? {};
  }
}

/** A failure of something the core depends on (node, store, lock service). Carries a catalogue code for the host. */
export class InfrastructureError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** True when retrying the same call later may succeed (node timeout, Redis down). */
  readonly transient: boolean;

  constructor(code: ErrorCode, message: string, options: { transient?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'InfrastructureError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.transient = options.transient ?? true;
  }
}

/** Options of {@link ChainError}. */
export interface ChainErrorOptions {
  readonly transient?: boolean;
  readonly cause?: unknown;
  /** The node's own Retry-After (HTTP 429/403 over quota), in milliseconds; null when it gave none. */
  readonly retryAfterMs?: number | null;
  /** What the node said when it answered with a refusal (TAPOS_ERROR, CONTRACT_VALIDATE_ERROR, HTTP_403 ...). */
  readonly nodeCode?: string | null;
}

/**
 * A failure on the way to or from the chain node (unreachable, timed out, refused, over quota, error body). Only
 * chain adapters throw it; the workflow runner tells it apart from a store failure by its class, never by its code.
 */
export class ChainError extends InfrastructureError {
  readonly retryAfterMs: number | null;
  readonly nodeCode: string | null;

  constructor(code: ErrorCode, message: string, options: ChainErrorOptions = {}) {
    super(code, message, { ...(options.transient === undefined ? {} : { transient: options.transient }), cause: options.cause });
    this.name = 'ChainError';
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.nodeCode = options.nodeCode ?? null;
  }
}

/** A failure of a store (database, lock service): the write may or may not have been applied. */
export class StoreError extends InfrastructureError {
  constructor(code: ErrorCode, message: string, options: { transient?: boolean; cause?: unknown } = {}) {
    super(code, message, options);
    this.name = 'StoreError';
  }
}

/** Raised by stores when an optimistic write finds a newer version than expected. */
export class ConcurrencyConflict extends Error {
  constructor(readonly entity: string, readonly id: string) {
    super(`${entity} ${id} was changed concurrently`);
    this.name = 'ConcurrencyConflict';
  }
}

/** 422 VALIDATION-ERROR naming the field. */
export function validationError(field: string, problem: string): DomainError {
  return new DomainError('VALIDATION-ERROR', { field, message: `${field}: ${problem}` });
}
