import type { ErrorCode } from '../../core/domain/errors.js';

/**
 * The HTTP status of every catalogue code: spec §1's status table and §7's error table, then DESIGN.md and
 * docs/decisions.md for what the spec leaves open. Core's catalogue holds the codes and messages; only this host
 * turns them into statuses. A route may answer one code with another status where the spec says so
 * (`RouteDef.errorStatuses`).
 */
export const HTTP_STATUS = {
  // spec §7
  'BIZ-NETWORK-NOT-FOUND': 422,
  'BIZ-ADDRESS-TYPE-NOT-ALLOWED': 422,
  'BIZ-MAIN-ADDRESS-ALREADY-EXISTS': 409,
  'BIZ-MAIN-ADDRESS-REQUIRED': 422,
  'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED': 422,
  'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED': 422,
  // 404 on wallet reads; the routes where a body names the address declare 422 (BODY_ADDRESS_STATUSES).
  'BIZ-WALLET-ADDRESS-NOT-FOUND': 404,
  'BIZ-ASSET-NOT-FOUND': 422,
  'BIZ-AMOUNT-INVALID': 422,
  'BIZ-COMMAND-LOCKED': 409,
  'BIZ-COMMAND-NOT-FOUND': 404,
  'CHAIN-BALANCE-QUERY-FAILED': 502,
  'BIZ-CHAIN-RESOURCES-NOT-SUPPORTED': 422,
  'BIZ-ADDRESS-TYPE-NOT-SUB': 422,
  'RISK-REVIEW-BLOCKED': 403,
  'BIZ-COLLECTION-TASK-NOT-FOUND': 404,
  'CASHIER-TOKEN-ACTIVE-EXISTS': 409,
  'CASHIER-TOKEN-NOT-FOUND': 404,
  'CASHIER-TOKEN-ALREADY-DISABLED': 409,
  'CASHIER-TOKEN-MISSING': 401,
  'CASHIER-TOKEN-INVALID': 401,
  'BIZ-AMOUNT-BELOW-MINIMUM': 422,
  // spec: "status not stated" (docs/decisions.md 2)
  'VALIDATION-ERROR': 422,
  'BIZ-WEBHOOK-URL-BLOCKED': 422,
  'BIZ-WEBHOOK-URL-UNVERIFIED': 422,

  // DESIGN.md: idempotency, protocol, infrastructure
  'IDEMPOTENCY-KEY-REUSED': 422,
  'IDEMPOTENCY-KEY-IN-PROGRESS': 409,
  'UNAUTHENTICATED': 401,
  'FORBIDDEN': 403,
  'NOT-FOUND': 404,
  'METHOD-NOT-ALLOWED': 405,
  'PAYLOAD-TOO-LARGE': 413,
  'BAD-REQUEST': 400,
  'REQUEST-TIMEOUT': 408,
  'HEADERS-TOO-LARGE': 431,
  'RATE-LIMITED': 429,
  'INTERNAL-ERROR': 500,
  'SERVICE-UNAVAILABLE': 503,
  'CHAIN-BROADCAST-FAILED': 502,
  'CHAIN-NODE-UNAVAILABLE': 502,
  'CHAIN-TRANSACTION-FAILED': 502,

  // accounts, subscriptions, tokens
  'AUTH-EMAIL-TAKEN': 409,
  'AUTH-INVALID-CREDENTIALS': 401,
  'AUTH-NOT-VERIFIED': 403,
  'AUTH-VERIFICATION-FAILED': 422,
  'AUTH-RESET-FAILED': 422,
  'AUTH-TOTP-REQUIRED': 401,
  'AUTH-TOTP-INVALID': 401,
  // A known session lacking the second factor: not authorized for this action (a 401 would tell clients to log in again).
  'AUTH-STEP-UP-REQUIRED': 403,
  'AUTH-STEP-UP-INVALID': 403,
  'AUTH-2FA-SETUP-REQUIRED': 409,
  'AUTH-2FA-ALREADY-ENABLED': 409,
  'AUTH-2FA-NOT-ENABLED': 409,
  'AUTH-ACCOUNT-LOCKED': 403,
  'BIZ-SERVICE-NOT-FOUND': 422,
  'BIZ-PLAN-NOT-FOUND': 422,
  'BIZ-DEVELOPER-SUBSCRIPTION-REQUIRED': 422,
  'API-TOKEN-NOT-FOUND': 404,
  'BIZ-API-TOKEN-QUOTA-EXCEEDED': 422,

  // admin and collection execution
  'BIZ-USER-NOT-FOUND': 404,
  'BIZ-WEBHOOK-NOT-PENDING': 409,
  'WEBHOOK-DELIVERY-NOT-FOUND': 404,
  'WEBHOOK-DELIVERY-SKIPPED': 409,
  'WEBHOOK-DELIVERY-IN-PROGRESS': 409,
  'DEPOSIT-NOT-FOUND': 404,
  'BIZ-COMMAND-NOT-CANCELLABLE': 409,
  // Recorded on a cancelled task, never answered; a status all the same, so the table stays total.
  'BIZ-COMMAND-CANCELLED': 409,
  'BIZ-ILLEGAL-TRANSITION': 409,
  'BIZ-INSUFFICIENT-BALANCE': 422,
  // Issue #34: answered only before a collection is made (no energy source can cover it): the caller's setup to change.
  'BIZ-ENERGY-UNAVAILABLE': 422,
  'BIZ-FEES-UNFUNDABLE': 422,
  // Issue #36 item 4: refund_of names a body field's payment request, as a body-named address is 422.
  'REFUND-PAYMENT-NOT-FOUND': 422,
  'REFUND-PAYMENT-UNPAID': 422,
  'REFUND-EXCEEDS-RECEIVED': 422,
  'BIZ-ENERGY-TIMEOUT': 502,
  'BIZ-NOTHING-TO-COLLECT': 422,
  'BIZ-TRANSFER-WOULD-REVERT': 422,
  // issue #26: a refused destination is 403 (not authorized to pay it), a spent limit or missing approver 422.
  'POLICY-DESTINATION-NOT-ALLOWED': 403,
  'POLICY-DESTINATION-COOLING-OFF': 403,
  'POLICY-VELOCITY-COUNT-EXCEEDED': 422,
  'POLICY-VELOCITY-AMOUNT-EXCEEDED': 422,
  'POLICY-APPROVAL-UNAVAILABLE': 422,
  'POLICY-APPROVAL-REQUIRED': 409,
  'POLICY-ALLOW-LIST-ENTRY-NOT-FOUND': 404,
  'POLICY-ALLOW-LIST-ENTRY-EXISTS': 409,
  'POLICY-ALLOW-LIST-FULL': 422,
  'POLICY-APPROVAL-URL-NOT-PENDING': 409,
  'POLICY-CHANGE-NOT-FOUND': 404,
  'POLICY-CHANGE-SOLO-OWNER': 409,
  'POLICY-CHANGES-FULL': 409,
  'POLICY-DESTINATION-HELD': 403,
  'TEAM-ROLE-FORBIDDEN': 403,
  'TEAM-2FA-REQUIRED': 403,
  'TEAMS-UNAVAILABLE': 409,
  'MEMBER-NOT-FOUND': 404,
  'MEMBER-EXISTS': 409,
  'INVITATION-INVALID': 422,
  'INVITATION-AWAITING-APPROVAL': 409,
  'APPROVAL-OWN-WITHDRAWAL': 403,
  'APPROVAL-NOT-AWAITING': 409,
  'POLICY-CHANGE-OWN-REQUEST': 403,
  'REVIEW-STALE': 409,
  // Recorded on a REJECTED withdrawal, never answered; a status all the same, so the table stays total.
  'APPROVAL-DENIED': 403,
  'APPROVAL-TIMEOUT': 403,
} as const satisfies Record<ErrorCode, number>;

/** Statuses a route answers for some codes instead of HTTP_STATUS's. */
export type ErrorStatuses = Readonly<Partial<Record<ErrorCode, number>>>;

/**
 * Spec §7: BIZ-WALLET-ADDRESS-NOT-FOUND is 422 on create collection and create cashier token, where the address is a
 * field of the body rather than the resource of the path; POST /transfers (its `from_address`) follows them.
 */
export const BODY_ADDRESS_STATUSES: ErrorStatuses = { 'BIZ-WALLET-ADDRESS-NOT-FOUND': 422 };

/** The status `code` is answered with on a route declaring `statuses` (none: the host table's). */
export function httpStatusOf(code: ErrorCode, statuses?: ErrorStatuses): number {
  return statuses?.[code] ?? HTTP_STATUS[code];
}

/** A Retry-After value (delta-seconds) for a wait in milliseconds: whole seconds, rounded up, at least 1. */
export function retryAfterSeconds(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}
