import { formatAmount, parsePositiveAmount } from '../domain/amount.js';
import { validationError } from '../domain/errors.js';
import {
  countedDeposits, countedReceived, INITIAL_PAYMENT_STATUS, judgedStatus, observePayment, type PaymentDeposit, type PaymentObservation,
} from '../domain/payment-request-machine.js';
import { formatIsoTime } from '../domain/time.js';
import type { CashierToken } from '../domain/model/cashier-token.js';
import type { Millis } from '../domain/model/common.js';
import type { PaymentRequest, PaymentStatus } from '../domain/model/payment-request.js';
import type { WalletAddress } from '../domain/model/wallet.js';
import type { JsonValue, WebhookEvent } from '../domain/model/webhook.js';
import type { DepositRepository } from '../ports/deposit-repository.port.js';
import { assetOf, cachedSweepable } from './collection-starter.js';
import type { ResolvedDeps } from './deps.js';
import { MAX_CHAIN_AMOUNT, optionalInteger, optionalString, type Fields } from './input.js';
import type { PaymentForwardView, PaymentRefundView, PaymentTransferView, PaymentView } from './views.js';
import type { ForwardWait } from '../domain/forward-wait.js';

export const MAX_REFERENCE = 120;
export const MAX_DESCRIPTION = 200;
/** pay_within_minutes: 1 minute to a day (the longest token TTL); absent, the token's ttl_minutes. */
export const MAX_PAY_WITHIN_MINUTES = 1440;
const REQUEST_FIELDS = ['amount', 'asset_symbol', 'reference', 'description', 'pay_within_minutes'] as const;

/**
 * The optional payment request fields of POST /cashier/tokens (issue #25). None of them: undefined, the spec's token.
 * Any of them needs `amount` (a positive integer string of the asset's smallest unit that a sweep can move, not dust)
 * and `asset_symbol` (an asset of the wallet's network, else 422 BIZ-ASSET-NOT-FOUND); the rest are optional.
 */
export function parsePaymentRequest(
  deps: Pick<ResolvedDeps, 'assets'>, fields: Fields, wallet: WalletAddress, ttlMinutes: number, now: Millis,
): PaymentRequest | undefined {
  if (REQUEST_FIELDS.every((f) => fields[f] === undefined)) return undefined;
  for (const field of ['amount', 'asset_symbol'] as const) {
    if (fields[field] === undefined || fields[field] === null) {
      throw validationError(field, 'is required with a payment request (amount and asset_symbol come together)');
    }
  }
  if (typeof fields['asset_symbol'] !== 'string') throw validationError('asset_symbol', 'must be a string');
  const amount = parsePositiveAmount(fields['amount']);
  if (amount === null || amount > MAX_CHAIN_AMOUNT) throw validationError('amount', 'must be a positive integer string of the smallest unit');
  const asset = assetOf(deps, wallet, fields['asset_symbol']);
  // The dust rule (issue #24 item 5): a request whose full payment no sweep could move would never be forwarded.
  if (cachedSweepable(asset, amount) === 0n) {
    throw validationError('amount', `is too small for ${asset.symbol}: no collection could forward it (dust)`);
  }
  const within = optionalInteger(fields, 'pay_within_minutes') ?? ttlMinutes;
  if (within < 1 || within > MAX_PAY_WITHIN_MINUTES) throw validationError('pay_within_minutes', `must be from 1 to ${MAX_PAY_WITHIN_MINUTES}`);
  return {
    assetSymbol: asset.symbol, amount,
    reference: optionalString(fields, 'reference', MAX_REFERENCE),
    description: optionalString(fields, 'description', MAX_DESCRIPTION),
    deadline: now + within * 60_000, status: INITIAL_PAYMENT_STATUS, received: 0n, collect: null, watched: true,
  };
}

const PAGE = 100;

/** A deposit as the judge sees it, with the transfer's txid (what the paid events name). */
export interface PaymentTransfer extends PaymentDeposit {
  readonly txid: string;
}

/**
 * The deposits that pay the token's request: to its sub-address, in its asset, seen since the token was made (newest
 * first from the store, read page by page until one is older than the token).
 */
export async function paymentDeposits(deposits: DepositRepository, token: CashierToken): Promise<PaymentTransfer[]> {
  const request = token.payment;
  if (request === undefined) return [];
  const found: PaymentTransfer[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await deposits.listByUser(token.userId, { address: token.address, assetSymbol: request.assetSymbol }, { offset, limit: PAGE });
    for (const d of page.items) {
      if (d.detectedAt < token.createdAt) return found;
      found.push({ amount: d.amount, detectedAt: d.detectedAt, status: d.status, txid: d.txid });
    }
    if (page.items.length < PAGE) return found;
  }
}

/** A request judged now: its status from the announced one through what is observed, and what it counts. */
export interface JudgedPayment {
  readonly status: PaymentStatus;
  readonly received: bigint;
  readonly confirming: bigint;
  readonly seen: PaymentObservation;
}

export function judgeRequest(request: PaymentRequest, deposits: readonly PaymentDeposit[], now: Millis): JudgedPayment {
  const seen = observePayment(deposits, request.deadline, now);
  const confirming = deposits.filter((d) => d.status === 'pending').reduce((sum, d) => sum + d.amount, 0n);
  return {
    status: judgedStatus(request.status, request.amount, seen),
    received: countedReceived(seen, request.amount),
    confirming,
    seen,
  };
}

/** The payment object of a token record or a session. */
export function toPaymentView(request: PaymentRequest, judged: Pick<JudgedPayment, 'status' | 'received' | 'confirming'>): PaymentView {
  const remaining = request.amount > judged.received ? request.amount - judged.received : 0n;
  return {
    asset_symbol: request.assetSymbol,
    amount: formatAmount(request.amount),
    received: formatAmount(judged.received),
    remaining: formatAmount(remaining),
    confirming: formatAmount(judged.confirming),
    deadline: formatIsoTime(request.deadline),
    status: judged.status,
    reference: request.reference,
    description: request.description,
  };
}

/** The token's payment object judged now from its deposits; undefined for a token without a request. */
export async function livePaymentView(
  deps: Pick<ResolvedDeps, 'deposits' | 'clock'> & Partial<Pick<ResolvedDeps, 'commands'>>, token: CashierToken,
): Promise<PaymentView | undefined> {
  if (token.payment === undefined) return undefined;
  const judged = judgeRequest(token.payment, await paymentDeposits(deps.deposits, token), deps.clock.now());
  const view = toPaymentView(token.payment, judged);
  const wait = token.payment.collect === 'due' ? token.payment.forwardWait : undefined;
  const withForward = wait === undefined ? view : { ...view, forward: toForwardView(wait) };
  const refunds = token.payment.refunds ?? [];
  if (refunds.length === 0 || deps.commands === undefined) return withForward;
  // The refunds under the payment (issue #36 item 4), each with its command's status now.
  const views: PaymentRefundView[] = [];
  for (const r of refunds) {
    const command = await deps.commands.get(r.commandNo);
    views.push({ command_no: r.commandNo, amount: formatAmount(r.amount), status: command?.status ?? 1, requested_at: formatIsoTime(r.requestedAt) });
  }
  return { ...withForward, refunds: views };
}

/** A waiting forward as the merchant sees it on the token (issue #34, an extension; never on the payer's session). */
export function toForwardView(wait: ForwardWait): PaymentForwardView {
  return {
    status: 'pending', error_code: wait.code, reason: wait.reason, attempts: wait.attempts,
    since: formatIsoTime(wait.since), next_attempt_at: formatIsoTime(wait.nextAttemptAt),
  };
}

/**
 * The session's payment object (issue #34): the live view and every transfer seen for the request, oldest first,
 * from the deposits that may pay it, newest first as paymentDeposits reads them (the payer page polls it every few
 * seconds; CashierTokenRepository.readSession reads them with the rest of the session, issue #37).
 */
export function sessionPayment(
  token: CashierToken, deposits: readonly PaymentTransfer[], now: Millis,
): { view: PaymentView; transfers: PaymentTransferView[] } | undefined {
  if (token.payment === undefined) return undefined;
  const view = toPaymentView(token.payment, judgeRequest(token.payment, deposits, now));
  const transfers = deposits.map((d) => ({ txid: d.txid, amount: formatAmount(d.amount), status: d.status, detected_at: formatIsoTime(d.detectedAt) }));
  return { view, transfers: transfers.reverse() };
}

/**
 * The txids of the transfers that paid the request, oldest first (deposits come newest first): those its `received`
 * counts (countedDeposits). Issue #34: payment.paid and payment.paid_late carry them.
 */
export function payingTxids(request: PaymentRequest, deposits: readonly PaymentTransfer[], seen: PaymentObservation): string[] {
  return countedDeposits(deposits, request.deadline, seen, request.amount).map((d) => d.txid).reverse();
}

/**
 * The outbox entry of a payment event (payment.paid, payment.expired, payment.paid_late): the spec §6 common fields
 * and the request's, all top level, amounts as integer strings. `txids` (the transfers that paid, payingTxids) are
 * carried by payment.paid and payment.paid_late only.
 */
export function paymentEvent(
  eventType: 'payment.paid' | 'payment.expired' | 'payment.paid_late', token: CashierToken, request: PaymentRequest,
  eventId: string, occurredAt: Millis, txids: readonly string[] = [],
): WebhookEvent {
  const view = toPaymentView(request, { status: request.status, received: request.received, confirming: 0n });
  const payload: Record<string, JsonValue> = {
    event_id: eventId,
    event_type: eventType,
    occurred_at: formatIsoTime(occurredAt),
    token_no: token.tokenNo,
    reference: view.reference,
    network_code: token.networkCode,
    address: token.address,
    asset_symbol: view.asset_symbol,
    amount: view.amount,
    received: view.received,
    remaining: view.remaining,
    status: view.status,
    deadline: view.deadline,
    ...(eventType === 'payment.expired' ? {} : { txids: [...txids] }),
  };
  return { eventId, userId: token.userId, eventType, occurredAt, payload, dispatched: false };
}
