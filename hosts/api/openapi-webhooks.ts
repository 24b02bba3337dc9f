import { webhookRequest } from '../../core/application/webhooks.service.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { WEBHOOK_EVENT_TYPES, type JsonValue, type WebhookEventType } from '../../core/domain/model/webhook.js';
import { COLLECTION_STATUS_MEANINGS, COMMAND_STATUS_MEANINGS, namedEnum } from './openapi-enums.js';
import { s, type JsonSchema } from './openapi-schemas.js';

const isoTime = { type: 'string', description: 'ISO 8601 with offset' } as const;
const common = (types: readonly WebhookEventType[]): Record<string, JsonSchema> => ({
  event_id: { type: 'string', description: 'UUID; the same on every attempt and redelivery: deduplicate by it' },
  event_type: s.enumOf(types),
  occurred_at: isoTime,
});

/** Extension (issue #36) of a TRX line of the reconciliation and its event: the stake, in the books and on chain. */
export const RECONCILIATION_STAKE_FIELDS = {
  staked_ledger_balance: { type: 'string', pattern: '^[0-9]+$', description: 'TRX only: what the books hold as the address\'s staked TRX' },
  staked_chain_balance: { type: 'string', pattern: '^[0-9]+$', description: 'TRX only: the address\'s stake on chain (delegated out included)' },
  unstaking_ledger_balance: { type: 'string', pattern: '^[0-9]+$', description: 'TRX only: what the books hold as unstaked and not withdrawn' },
  unstaking_chain_balance: { type: 'string', pattern: '^[0-9]+$', description: 'TRX only: unstaked and not withdrawn on chain (waiting or withdrawable)' },
  staked_unexplained: {
    type: 'string', pattern: '^-?[0-9]+$',
    description: 'TRX only: staked_chain_balance - staked_ledger_balance unless the liquid difference mirrors the stake (then 0); non-zero is a discrepancy even when the liquid balance matches',
  },
  unstaking_unexplained: { type: 'string', pattern: '^-?[0-9]+$', description: 'TRX only: as staked_unexplained, for unstaking_chain_balance - unstaking_ledger_balance' },
} as const;

/** Spec §6 event bodies (all fields top level, no data wrapper), emitted beside the resource schemas. */

export const WEBHOOK_SCHEMAS = {
  CollectionEvent: s.obj({
    ...common(['collection.completed', 'collection.failed']),
    task_no: s.str(),
    status: namedEnum('Terminal collection task status', COLLECTION_STATUS, COLLECTION_STATUS_MEANINGS, ['DONE', 'FAILED']),
    network_code: s.str(),
    asset_symbol: s.str(),
    address: s.str('the sub-address'),
    swept_amount: {
      anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^[0-9]+$' }, { type: 'null' }],
      description: 'smallest unit; null on failure. An integer; above 2^53 - 1 a decimal string, so it stays exact',
    },
    sweep_tx_hash: s.nullable(s.str('null on failure')),
    credited_at: s.nullable({ ...isoTime }),
    error: s.nullable(s.str('null on success')),
  }),
  WithdrawalEvent: s.obj({
    ...common(['withdrawal.completed', 'withdrawal.failed']),
    command_no: s.str(),
    // REJECTED (5): issue #26, a withdrawal its approver denied or did not approve in time (withdrawal.failed only).
    status: namedEnum('Terminal withdrawal command status', COMMAND_STATUS, COMMAND_STATUS_MEANINGS, ['SUCCESS', 'FAILED', 'REJECTED']),
    txid: s.nullable(s.str('on-chain hash; null on failure')),
    error: s.nullable(s.str('null on success')),
    finished_at: isoTime,
  }),
  TestEvent: s.obj(common(['webhook.test'])),
  DepositEvent: s.obj({
    ...common(['deposit.pending', 'deposit.confirmed', 'deposit.reverted']),
    deposit_id: s.str('the id of GET /api/deposits/{depositId}'),
    network_code: s.str(),
    asset_symbol: s.str(),
    address: s.str('the receiving sub-address'),
    amount: s.amount(),
    from_address: s.str('the sender'),
    txid: s.str(),
    block_number: { type: 'integer', description: 'the block that includes the transfer (after a reorg, the one that dropped it)' },
    confirmations: {
      type: 'integer', minimum: 0,
      description: 'blocks on the scanned chain from the including block to the scanner\'s head, both counted; 0 when reverted',
    },
  }),
  PaymentEvent: s.obj({
    ...common(['payment.paid', 'payment.expired', 'payment.paid_late']),
    token_no: s.str('the cashier token that carries the payment request'),
    reference: s.nullable(s.str('the merchant\'s order id given at POST /api/cashier/tokens')),
    network_code: s.str(),
    address: s.str('the sub-address the payer pays'),
    asset_symbol: s.str(),
    amount: s.amount(),
    received: { ...s.amount(), description: 'smallest unit, confirmed payments counted (late ones once the deadline has passed)' },
    remaining: { ...s.amount(), description: 'smallest unit; 0 once paid' },
    status: s.enumOf(['paid', 'overpaid', 'expired', 'paid_late']),
    deadline: isoTime,
    txids: {
      type: 'array', items: s.str(),
      description: 'Extension (issue #34), payment.paid and payment.paid_late only: the txids of the confirmed transfers that '
        + '`received` counts, oldest first (the deposits of GET /api/deposits with these txids)',
    },
  }, ['txids']),
  LedgerDiscrepancyEvent: s.obj({
    ...common(['ledger.discrepancy']),
    network_code: s.str(),
    address: s.str('the custodial address'),
    asset_symbol: s.str(),
    status: s.enumOf(['discrepancy']),
    ledger_balance: { type: 'string', pattern: '^-?[0-9]+$', description: 'smallest unit: what the books hold for the address' },
    chain_balance: { type: 'string', pattern: '^[0-9]+$', description: 'smallest unit: the liquid balance the chain showed' },
    difference: { type: 'string', pattern: '^-?[0-9]+$', description: 'chain_balance - ledger_balance' },
    explained: s.arr(s.obj({
      reason: { ...s.enumOf(['pending_deposit', 'staked']), description: 'pending_deposit: seen, not yet confirmed; staked: TRX in stake (no staking is booked)' },
      amount: { type: 'string', pattern: '^-?[0-9]+$' },
    })),
    unexplained: {
      type: 'string', pattern: '^-?[0-9]+$',
      description: 'what nothing explains of the liquid balance: difference less the explained parts; 0 only when the stake differs (staked_unexplained, unstaking_unexplained)',
    },
    ...RECONCILIATION_STAKE_FIELDS,
  }, Object.keys(RECONCILIATION_STAKE_FIELDS)),
} as const satisfies Record<string, JsonSchema>;

const EVENT_ID = '6f1c2a9e-0b4d-4e7a-9c3f-2d8e5b7a1c40';
const AT = '2026-05-25T10:00:00+00:00';
const SUB = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const collection = { event_id: EVENT_ID, occurred_at: AT, task_no: 'T20260525095916482139075512', network_code: 'TRON', asset_symbol: 'USDT', address: SUB };
const withdrawal = { event_id: EVENT_ID, occurred_at: AT, command_no: 'C20260525095858716044820193' };
const deposit = {
  event_id: EVENT_ID, occurred_at: AT, deposit_id: '3b9d0c1e-6a2f-4c8b-9e7d-5f4a3b2c1d0e', network_code: 'TRON', asset_symbol: 'USDT',
  address: SUB, amount: '25000000', from_address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
  txid: 'c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4', block_number: 71234567,
};
const payment = {
  event_id: EVENT_ID, occurred_at: AT, token_no: 'CT20260525095500112233445566', reference: 'order-1042', network_code: 'TRON',
  address: SUB, asset_symbol: 'USDT', amount: '25000000', deadline: '2026-05-25T10:30:00+00:00',
};
const OPT_IN = ' Opt-in: sent only when config.event_types (PUT /api/subscriptions/config) lists it.';

const discrepancy = {
  event_id: EVENT_ID, occurred_at: AT, network_code: 'TRON', address: SUB, asset_symbol: 'TRX', status: 'discrepancy',
  ledger_balance: '1000000', chain_balance: '1000001', difference: '1', explained: [], unexplained: '1',
};

/** One entry per event type the service sends (core's WEBHOOK_EVENT_TYPES): its schema, what triggers it, an example. */
export const WEBHOOK_EVENTS: Readonly<Record<WebhookEventType, {
  readonly schema: keyof typeof WEBHOOK_SCHEMAS; readonly operationId: string; readonly summary: string; readonly example: Record<string, JsonValue>;
}>> = {
  'withdrawal.completed': {
    schema: 'WithdrawalEvent', operationId: 'withdrawalCompletedEvent', summary: 'A withdrawal was broadcast and its txid is known',
    example: { ...withdrawal, event_type: 'withdrawal.completed', status: COMMAND_STATUS.SUCCESS, txid: 'b7e1c0a4f3d2e19a8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d', error: null, finished_at: AT },
  },
  'withdrawal.failed': {
    schema: 'WithdrawalEvent', operationId: 'withdrawalFailedEvent', summary: 'A withdrawal failed (signing or broadcast error)',
    example: { ...withdrawal, event_type: 'withdrawal.failed', status: COMMAND_STATUS.FAILED, txid: null, error: 'BANDWIDTH_ERROR: account has insufficient bandwidth', finished_at: AT },
  },
  'collection.completed': {
    schema: 'CollectionEvent', operationId: 'collectionCompletedEvent', summary: 'A collection task reached DONE (11)',
    example: {
      ...collection, event_type: 'collection.completed', status: COLLECTION_STATUS.DONE, swept_amount: 1500000,
      sweep_tx_hash: 'ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12', credited_at: AT, error: null,
    },
  },
  'collection.failed': {
    schema: 'CollectionEvent', operationId: 'collectionFailedEvent', summary: 'A collection task failed at some step and reached FAILED (12)',
    example: {
      ...collection, event_type: 'collection.failed', status: COLLECTION_STATUS.FAILED, swept_amount: null,
      sweep_tx_hash: null, credited_at: null, error: 'energy not ready after 60 s',
    },
  },
  'webhook.test': {
    schema: 'TestEvent', operationId: 'webhookTestEvent', summary: 'Sent by POST /api/webhooks/debug/test; never recorded or retried',
    example: { event_id: EVENT_ID, event_type: 'webhook.test', occurred_at: AT },
  },
  'deposit.pending': {
    schema: 'DepositEvent', operationId: 'depositPendingEvent',
    summary: `A transfer to a sub-address was seen at head, or re-included after a reorg (not final yet).${OPT_IN}`,
    example: { ...deposit, event_type: 'deposit.pending', confirmations: 1 },
  },
  'deposit.confirmed': {
    schema: 'DepositEvent', operationId: 'depositConfirmedEvent',
    summary: `A deposit reached the solidified block: final, sent once per transfer.${OPT_IN}`,
    example: { ...deposit, event_type: 'deposit.confirmed', confirmations: 19 },
  },
  'deposit.reverted': {
    schema: 'DepositEvent', operationId: 'depositRevertedEvent',
    summary: `A reorg dropped a pending deposit; a later deposit.pending follows if the new branch includes it.${OPT_IN}`,
    example: { ...deposit, event_type: 'deposit.reverted', confirmations: 0 },
  },
  'payment.paid': {
    schema: 'PaymentEvent', operationId: 'paymentPaidEvent',
    summary: 'A payment request reached paid (the amount, confirmed, before the deadline) or overpaid (more); its collection '
      + `starts by itself, and collection.completed follows. Sent once per request.${OPT_IN}`,
    example: {
      ...payment, event_type: 'payment.paid', received: '25000000', remaining: '0', status: 'paid',
      txids: ['5f1b7c0e9a6d4e3b2c1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c', '9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d'],
    },
  },
  'payment.expired': {
    schema: 'PaymentEvent', operationId: 'paymentExpiredEvent',
    summary: `A payment request's deadline passed short of the amount; received says what arrived in time.${OPT_IN}`,
    example: { ...payment, event_type: 'payment.expired', received: '10000000', remaining: '15000000', status: 'expired' },
  },
  'payment.paid_late': {
    schema: 'PaymentEvent', operationId: 'paymentPaidLateEvent',
    summary: 'An expired payment request was completed by payments after its deadline (within a day of it). It is not '
      + `forwarded by itself: the merchant decides (POST /api/collections).${OPT_IN}`,
    example: {
      ...payment, event_type: 'payment.paid_late', received: '25000000', remaining: '0', status: 'paid_late',
      txids: ['5f1b7c0e9a6d4e3b2c1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c'],
    },
  },
  'ledger.discrepancy': {
    schema: 'LedgerDiscrepancyEvent', operationId: 'ledgerDiscrepancyEvent',
    summary: 'Extension (issue #36): the worker\'s reconciliation found a custodial address whose balance on chain differs from the books '
      + 'by more than pending deposits and stake explain, in two passes in a row (GET /api/ledger/reconciliation). Sent once per amount; '
      + `never corrected by the service.${OPT_IN}`,
    example: { ...discrepancy, event_type: 'ledger.discrepancy' },
  },
};

/** The secret the header examples are signed with, so a reader can check them. */
const EXAMPLE_SECRET = 'example-secret';

const HEADER_DOCS: Readonly<Record<string, { readonly description: string; readonly schema: JsonSchema }>> = {
  'X-Webhook-Signature': {
    description: 'Spec §6: `sha256=` + hex HMAC-SHA256 (key: the webhook_secret) of the canonical JSON of the body (top-level keys sorted, '
      + 'shorter first, then byte order; compact; non-ASCII unescaped). Signed with the newest secret. Compare in constant time.',
    schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
  },
  'X-Event-Id': { description: 'The event_id', schema: s.str() },
  'X-Event-Type': { description: 'The event_type', schema: s.enumOf(WEBHOOK_EVENT_TYPES) },
  'webhook-id': { description: 'Standard Webhooks: the event_id', schema: s.str() },
  'webhook-timestamp': { description: 'Standard Webhooks: the send time, Unix seconds; reject old ones to stop replays', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'webhook-signature': {
    description: 'Standard Webhooks: space-separated `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` over the exact bytes '
      + 'received, one per secret in force (after a secret change, the previous one signs too for 24 h, after the new one)',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
  },
};

/** `webhooks` of the document: each event as the POST the service makes to the approved URL, headers signed for real. */
export function webhooksSection(): Record<string, unknown> {
  const sentAt = Date.parse(AT);
  return Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => {
    const event = WEBHOOK_EVENTS[type];
    const sent = webhookRequest('https://merchant.example/webhooks', event.example, [EXAMPLE_SECRET], sentAt);
    const parameters = Object.entries(HEADER_DOCS).map(([name, doc]) => ({
      name, in: 'header', required: true, description: doc.description, schema: doc.schema, example: sent.headers[name],
    }));
    return [type, {
      post: {
        operationId: event.operationId,
        summary: event.summary,
        description: `Header examples are signed with the secret \`${EXAMPLE_SECRET}\` over the example body as sent (compact JSON, in the order shown).`,
        tags: ['Webhooks'],
        security: [],
        parameters,
        requestBody: { required: true, content: { 'application/json': { schema: s.ref(event.schema), example: event.example } } },
        responses: {
          '2XX': { description: 'Delivered: any 2xx answer within 15 s' },
          '4XX': { description: 'A failed attempt, as is a 3xx, a 5xx, or no answer within 15 s: retried after 1 min, then 5 min, then DEAD' },
        },
      },
    }];
  }));
}
