import type { PaymentRefund } from './model/payment-request.js';

/**
 * Refunds of a payment request (issue #36 item 4): a withdrawal that names the paid request (`refund_of`). What it
 * may refund is what the request received, less the refunds already made or under way; a refund that failed or was
 * rejected gave nothing back and counts no more.
 */
export type RefundRefusal = 'REFUND-PAYMENT-UNPAID' | 'REFUND-EXCEEDS-RECEIVED';

/** The refunds that still count: every one but those whose command ended without paying (FAILED, REJECTED). */
export function countedRefunds(refunds: readonly PaymentRefund[], ended: (commandNo: string) => boolean): bigint {
  return refunds.filter((r) => !ended(r.commandNo)).reduce((sum, r) => sum + r.amount, 0n);
}

/**
 * Whether a refund of `amount` may be made now: nothing received (a request not paid at all) is
 * REFUND-PAYMENT-UNPAID; `refunded + amount` above `received` is REFUND-EXCEEDS-RECEIVED; otherwise null.
 * `amount` is > 0 (the amount rule refuses the rest first).
 */
export function refundRefusal(received: bigint, refunded: bigint, amount: bigint): RefundRefusal | null {
  if (received <= 0n) return 'REFUND-PAYMENT-UNPAID';
  if (refunded + amount > received) return 'REFUND-EXCEEDS-RECEIVED';
  return null;
}
