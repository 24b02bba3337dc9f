/**
 * The one error catalogue: every code the service can answer with and its default message. Codes of spec §7 first,
 * then the ones DESIGN.md and the issues decide. How a code travels over HTTP (its status, headers) is the API host's
 * business: hosts/api/error-status.ts maps every code here to a status, and a test fails when one is missing.
 */
export const ERROR_CATALOGUE = {
  // spec §7
  'BIZ-NETWORK-NOT-FOUND': { message: 'network code unknown or unavailable' },
  'BIZ-ADDRESS-TYPE-NOT-ALLOWED': { message: 'unsupported address type' },
  'BIZ-MAIN-ADDRESS-ALREADY-EXISTS': { message: 'main address exists for the network' },
  'BIZ-MAIN-ADDRESS-REQUIRED': { message: 'create the main address first' },
  'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED': { message: 'active sub-address subscription required' },
  'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED': { message: 'plan quota exceeded' },
  // Spec §7 gives this code two HTTP statuses (wallet reads vs. an address named in a body): each API route decides.
  'BIZ-WALLET-ADDRESS-NOT-FOUND': { message: 'address missing or not the caller\'s' },
  'BIZ-ASSET-NOT-FOUND': { message: 'asset symbol unknown' },
  'BIZ-AMOUNT-INVALID': { message: 'amount must be a positive integer string' },
  'BIZ-COMMAND-LOCKED': { message: 'address already has an active command' },
  'BIZ-COMMAND-NOT-FOUND': { message: 'command number unknown' },
  'CHAIN-BALANCE-QUERY-FAILED': { message: 'on-chain balance query failed' },
  'BIZ-CHAIN-RESOURCES-NOT-SUPPORTED': { message: 'network has no resource staking' },
  'BIZ-ADDRESS-TYPE-NOT-SUB': { message: 'collection or cashier token on a non-sub-address' },
  'RISK-REVIEW-BLOCKED': { message: 'blocked by risk control' },
  'BIZ-COLLECTION-TASK-NOT-FOUND': { message: 'task unknown' },
  'CASHIER-TOKEN-ACTIVE-EXISTS': { message: 'active cashier token exists for the address' },
  'CASHIER-TOKEN-NOT-FOUND': { message: 'unknown or not the caller\'s' },
  'CASHIER-TOKEN-ALREADY-DISABLED': { message: 'already disabled' },
  'CASHIER-TOKEN-MISSING': { message: 'no cashier bearer token' },
  'CASHIER-TOKEN-INVALID': { message: 'invalid, expired or disabled' },
  'BIZ-AMOUNT-BELOW-MINIMUM': { message: 'balance below minimum collect threshold' },
  // spec: "status not stated" (decided in docs/decisions.md 2)
  'VALIDATION-ERROR': { message: 'validation failed' },
  'BIZ-WEBHOOK-URL-BLOCKED': { message: 'loopback, private or link-local webhook address' },
  'BIZ-WEBHOOK-URL-UNVERIFIED': { message: 'webhook test before URL approval' },

  // DESIGN.md: idempotency, protocol, infrastructure
  'IDEMPOTENCY-KEY-REUSED': { message: 'idempotency key reused with a different request' },
  'IDEMPOTENCY-KEY-IN-PROGRESS': { message: 'a request with this idempotency key is still in progress' },
  'UNAUTHENTICATED': { message: 'invalid or missing token' },
  'FORBIDDEN': { message: 'authenticated but not authorized' },
  'NOT-FOUND': { message: 'resource not found' },
  'METHOD-NOT-ALLOWED': { message: 'method not allowed' },
  'PAYLOAD-TOO-LARGE': { message: 'request body exceeds 64 KiB' },
  // Answered by the HTTP server itself before any route runs (issue #13): malformed framing, slow or oversized headers.
  'BAD-REQUEST': { message: 'malformed HTTP request' },
  'REQUEST-TIMEOUT': { message: 'the request was not received in time' },
  'HEADERS-TOO-LARGE': { message: 'request headers exceed 16 KiB' },
  'RATE-LIMITED': { message: 'rate limit exceeded' },
  'INTERNAL-ERROR': { message: 'internal error' },
  'SERVICE-UNAVAILABLE': { message: 'a backing service is unavailable; retry later' },
  'CHAIN-BROADCAST-FAILED': { message: 'on-chain broadcast failed' },
  'CHAIN-NODE-UNAVAILABLE': { message: 'chain node unreachable or failing' },
  'CHAIN-TRANSACTION-FAILED': { message: 'on-chain transaction failed' },

  // accounts, subscriptions, tokens (DESIGN.md "Accounts and session tokens")
  'AUTH-EMAIL-TAKEN': { message: 'an account with this email exists' },
  'AUTH-INVALID-CREDENTIALS': { message: 'email or password is wrong' },
  'AUTH-NOT-VERIFIED': { message: 'account email is not verified' },
  'AUTH-VERIFICATION-FAILED': { message: 'verification code wrong or expired' },
  'AUTH-RESET-FAILED': { message: 'password reset code wrong, used or expired' },
  // issue #26 item 3: TOTP two-factor and step-up (docs/decisions.md 120-126).
  'AUTH-TOTP-REQUIRED': { message: 'two-factor authentication is on: totp_code is required' },
  'AUTH-TOTP-INVALID': { message: 'two-factor code wrong, expired or already used' },
  'AUTH-STEP-UP-REQUIRED': { message: 'this action needs a current two-factor code in the X-TOTP-Code header' },
  'AUTH-STEP-UP-INVALID': { message: 'the X-TOTP-Code is wrong, expired or already used' },
  'AUTH-2FA-SETUP-REQUIRED': { message: 'no two-factor setup to confirm; POST /auth/2fa/setup first' },
  'AUTH-2FA-ALREADY-ENABLED': { message: 'two-factor authentication is already on; disable it first' },
  'AUTH-2FA-NOT-ENABLED': { message: 'two-factor authentication is off' },
  'AUTH-ACCOUNT-LOCKED': { message: 'too many wrong two-factor codes: the account is locked; the owner was mailed and unlocks it by resetting the password' },
  'BIZ-SERVICE-NOT-FOUND': { message: 'service code unknown' },
  'BIZ-PLAN-NOT-FOUND': { message: 'plan code unknown for the service' },
  'BIZ-DEVELOPER-SUBSCRIPTION-REQUIRED': { message: 'active developer subscription required' },
  'API-TOKEN-NOT-FOUND': { message: 'API token unknown or not the caller\'s' },
  // issue #13: unrevoked Developer API Tokens per user are capped (docs/decisions.md 60).
  'BIZ-API-TOKEN-QUOTA-EXCEEDED': { message: 'too many API tokens; revoke one first' },

  // admin and collection execution
  'BIZ-USER-NOT-FOUND': { message: 'user unknown' },
  'BIZ-WEBHOOK-NOT-PENDING': { message: 'no webhook URL is pending review' },
  // issue #15: the delivery log and redelivery (docs/decisions.md 69).
  'WEBHOOK-DELIVERY-NOT-FOUND': { message: 'delivery unknown or not the caller\'s' },
  'WEBHOOK-DELIVERY-SKIPPED': { message: 'a SKIPPED delivery is never replayed (spec §3)' },
  'WEBHOOK-DELIVERY-IN-PROGRESS': { message: 'the delivery is still being attempted on its schedule' },
  // issue #24: deposit records (GET /deposits/{depositId}); another user's deposit behaves as missing.
  'DEPOSIT-NOT-FOUND': { message: 'deposit unknown or not the caller\'s' },
  'BIZ-COMMAND-NOT-CANCELLABLE': { message: 'command is terminal or already broadcast' },
  // Never an HTTP answer: the error_code a collection task records when the platform cancels it (admin cancel).
  'BIZ-COMMAND-CANCELLED': { message: 'cancelled by the platform' },
  'BIZ-ILLEGAL-TRANSITION': { message: 'state transition not allowed' },
  'BIZ-INSUFFICIENT-BALANCE': { message: 'balance too low for the operation' },
  'BIZ-ENERGY-UNAVAILABLE': { message: 'no energy source can cover the transfer' },
  // issue #34: a withdrawal from a sub-address whose fees neither it nor its main address can pay; refused before any command.
  'BIZ-FEES-UNFUNDABLE': { message: 'the main address cannot fund this withdrawal\'s fees' },
  // issue #36 item 4: a refund (POST /transfers with refund_of) names a paid request of the caller's and gives back no more than it received.
  'REFUND-PAYMENT-NOT-FOUND': { message: 'refund_of: no payment request of the caller\'s has this token_no' },
  'REFUND-PAYMENT-UNPAID': { message: 'refund_of: the payment request has received nothing to refund' },
  'REFUND-EXCEEDS-RECEIVED': { message: 'the refunds of the payment request would exceed what it received' },
  'BIZ-ENERGY-TIMEOUT': { message: 'energy not ready within 60 s' },
  'BIZ-NOTHING-TO-COLLECT': { message: 'the sub-address holds none of the asset' },
  // The node's dry run (triggerconstantcontract) says the token transfer would revert: a blacklisted address or a
  // paused token. Found before anything is spent.
  'BIZ-TRANSFER-WOULD-REVERT': { message: 'the token contract refuses the transfer (blacklisted address or paused token)' },
  // issue #26 items 1 and 2: withdrawal policies and approvals (docs/decisions.md 110-119).
  'POLICY-DESTINATION-NOT-ALLOWED': { message: 'allow_list_only: to_address is not on the allow-list' },
  'POLICY-DESTINATION-COOLING-OFF': { message: 'to_address is on the allow-list but not usable yet (active_from)' },
  'POLICY-VELOCITY-COUNT-EXCEEDED': { message: 'max_count_1h: too many withdrawals of this asset in the last hour' },
  'POLICY-VELOCITY-AMOUNT-EXCEEDED': { message: 'max_amount_24h: withdrawals of this asset in the last 24 h would exceed the limit' },
  'POLICY-APPROVAL-UNAVAILABLE': { message: 'approval_threshold: the amount needs an approval, and no approved approval_url with a secret is set' },
  'POLICY-APPROVAL-REQUIRED': { message: 'approval_threshold: with the last 24 h of withdrawals the amount needs an approval' },
  'POLICY-ALLOW-LIST-ENTRY-NOT-FOUND': { message: 'the address is not on the allow-list' },
  'POLICY-ALLOW-LIST-ENTRY-EXISTS': { message: 'the address is already on the allow-list' },
  'POLICY-ALLOW-LIST-FULL': { message: 'the allow-list is full; remove an entry first' },
  'POLICY-APPROVAL-URL-NOT-PENDING': { message: 'no approval URL is pending review' },
  'POLICY-CHANGE-NOT-FOUND': { message: 'no pending policy change has this id (it took effect, was cancelled, or never existed)' },
  'POLICY-CHANGE-SOLO-OWNER': { message: 'a solo owner\'s change takes effect after the delay (POLICY_CHANGE_DELAY_H); nobody else can approve it' },
  'POLICY-CHANGES-FULL': { message: 'too many pending policy changes; cancel one first' },
  'POLICY-DESTINATION-HELD': { message: 'a recent password reset or two-factor change holds withdrawals to destinations not on the allow-list' },
  // issue #35 items 1 and 2: teams and approvals by people.
  'TEAM-ROLE-FORBIDDEN': { message: 'your role in this account may not do this' },
  'TEAM-2FA-REQUIRED': { message: 'turn on two-factor authentication first: the owner, admins and approvers of an account with members need it' },
  'TEAMS-UNAVAILABLE': { message: 'teams are not available on this store' },
  'MEMBER-NOT-FOUND': { message: 'the account has no member with this id' },
  'MEMBER-EXISTS': { message: 'the e-mail is already invited, a member, or an account of its own' },
  'INVITATION-INVALID': { message: 'invitation_code: wrong, used, expired, or the invitation was removed' },
  'INVITATION-AWAITING-APPROVAL': { message: 'the invitation is a pending change: it can be accepted once it takes effect' },
  'APPROVAL-OWN-WITHDRAWAL': { message: 'a withdrawal is approved or denied by a member other than its requester' },
  'APPROVAL-NOT-AWAITING': { message: 'the withdrawal is not awaiting an approval' },
  'POLICY-CHANGE-OWN-REQUEST': { message: 'a pending policy change is approved by an admin other than the one who asked for it' },
  // Never an HTTP answer: the error_code of a withdrawal its approver denied or did not approve in time (REJECTED).
  'APPROVAL-DENIED': { message: 'the approver denied the withdrawal' },
  // issue #35 item 5: an admin's approval names what was reviewed; the pending URL (or secret) has changed since.
  'REVIEW-STALE': { message: 'the URL (or secret fingerprint) named is no longer the one pending review; review it again' },
  'APPROVAL-TIMEOUT': { message: 'no approval within approval_timeout_minutes' },
} as const satisfies Record<string, { message: string }>;

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
  /** The invalid field, for VALIDATION-ERROR. */
  readonly field?: string;
  /** How long until the same request may succeed, in milliseconds (a spent rate-limit window). */
  readonly retryAfterMs?: number;
  readonly cause?: unknown;
}

/**
 * An expected business outcome with a catalogue code (quota exceeded, token expired, illegal transition ...). It says
 * what happened, never how a protocol answers it: no HTTP status, no headers.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  /** When a retry may succeed, in milliseconds from now; null when waiting does not help. */
  readonly retryAfterMs: number | null;

  constructor(code: ErrorCode, fields: ErrorFields = {}) {
    super(fields.message ?? ERROR_CATALOGUE[code].message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'DomainError';
    this.code = code;
    this.field = fields.field;
    this.retryAfterMs = fields.retryAfterMs ?? null;
  }
}

/** A failure of something the core depends on (node, store, lock service). Carries a catalogue code for the host. */
export class InfrastructureError extends Error {
  readonly code: ErrorCode;
  /** True when retrying the same call later may succeed (node timeout, Redis down). */
  readonly transient: boolean;

  constructor(code: ErrorCode, message: string, options: { transient?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'InfrastructureError';
    this.code = code;
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

/** VALIDATION-ERROR naming the field. */
export function validationError(field: string, problem: string): DomainError {
  return new DomainError('VALIDATION-ERROR', { field, message: `${field}: ${problem}` });
}
