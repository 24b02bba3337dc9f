/** The fields of the session's `payment` object the view reads (amounts as integer strings). */
export interface PaymentRequestInput {
  readonly amount: string;
  readonly received: string;
  readonly confirming: string;
  readonly status: 'awaiting' | 'partially_paid' | 'paid' | 'overpaid' | 'expired' | 'paid_late';
  /** The fixed deadline, ISO 8601. */
  readonly deadline: string;
}

/** The page's phase: the progress step and the summary's look. */
export type PaymentRequestPhase = 'waiting' | 'below' | 'confirming' | 'sweeping' | 'done' | 'forward_failed' | 'expired' | 'late';

export interface PaymentRequestView {
  readonly phase: PaymentRequestPhase;
  /** The amount shown, copied and asked for (integer string), or null: nothing to pay, no address or QR code offered. */
  readonly pay: string | null;
  /** The message key of the amount's label. */
  readonly amountLabel: 'amount_label' | 'amount_left';
  /** The summary's sentences: a message key and its amounts (integer strings). */
  readonly lines: readonly { readonly key: string; readonly params: Readonly<Record<string, string>> }[];
}

/** What the payer page of a payment request shows; see payment-request-view.js. */
export function paymentRequestView(payment: PaymentRequestInput, taskStatus: number | null, now: number): PaymentRequestView;
