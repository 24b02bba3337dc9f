'use strict';
// What the payer page of a payment request shows (issue #34), as one pure function of the session's `payment` object
// and the latest task's status. Plain JavaScript without imports: the server joins this file ahead of the page
// script into one file (its `export` words dropped) and the tests import it as a module.

const OPEN_STATUSES = ['awaiting', 'partially_paid'];
const TASK_DONE = 11;
const TASK_FAILED = 12;

/**
 * The page's view of a payment request at `now` (ms). The payer is asked for `toPay = amount − received − confirming`
 * and for nothing else: a payment that is being confirmed is never asked for again, so a payer who reads the page
 * while the network confirms cannot pay twice. `pay` (the amount shown, copied and asked for, an integer string) is
 * non-null only while the request is open (awaiting, partially_paid), before its deadline, and something is left to
 * pay; otherwise the page shows no address, QR code or copy button as something to pay. Past the deadline an open
 * status only means the server has not judged it yet, or a payment seen in time is still confirming (it holds the
 * expiry off): the page asks for nothing more. `lines` are the summary's sentences, each a message key with its
 * amounts (integer strings of the asset's smallest unit, formatted by the page).
 */
export function paymentRequestView(payment, taskStatus, now) {
  const amount = BigInt(payment.amount);
  const received = BigInt(payment.received);
  const confirming = BigInt(payment.confirming);
  // What is left to ask for; at or below 0 the page asks for nothing.
  const toPay = amount - received - confirming;
  const open = OPEN_STATUSES.includes(payment.status);
  const inTime = now < Date.parse(payment.deadline);
  const text = (key, params) => ({ key, params: Object.fromEntries(Object.entries(params || {}).map(([k, v]) => [k, v.toString()])) });
  const excess = received > amount ? [text('req_overpaid', { excess: received - amount })] : [];
  let phase;
  let lines;
  if (open && inTime && toPay > 0n) {
    phase = received > 0n || confirming > 0n ? 'below' : 'waiting';
    if (confirming > 0n) {
      lines = [...(received > 0n ? [text('req_received', { received, amount })] : []), text('req_confirming_rest', { confirming, remaining: toPay })];
    } else {
      lines = [received > 0n ? text('req_partial', { received, amount, remaining: toPay }) : text('req_awaiting', { amount: toPay })];
    }
  } else if (open && (inTime || confirming > 0n)) {
    phase = 'confirming';
    const confirmingLine = toPay > 0n ? text('req_closing', { confirming }) : text('req_confirming_all', { confirming });
    lines = [...(received > 0n ? [text('req_received', { received, amount })] : []), ...(confirming > 0n ? [confirmingLine] : [])];
  } else if (open || payment.status === 'expired') {
    phase = 'expired';
    lines = [received > 0n ? text('req_expired_partial', { received, amount }) : text('req_expired')];
  } else if (payment.status === 'paid' || payment.status === 'overpaid') {
    phase = taskStatus === TASK_DONE ? 'done' : taskStatus === TASK_FAILED ? 'forward_failed' : 'sweeping';
    lines = [...excess, text({ done: 'req_paid_done', forward_failed: 'req_paid_failed', sweeping: 'req_paid' }[phase])];
  } else {
    phase = 'late';
    lines = [text('req_paid_late')];
  }
  return {
    phase,
    pay: open && inTime && toPay > 0n ? toPay.toString() : null,
    // "Amount" before anything arrives; "Left to pay" once part of it is in or confirming.
    amountLabel: received > 0n || confirming > 0n ? 'amount_left' : 'amount_label',
    lines,
  };
}
