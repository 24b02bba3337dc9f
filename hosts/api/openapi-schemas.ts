import { CASHIER_TOKEN_TTLS } from '../../core/domain/model/cashier-token.js';
import { PAYMENT_STATUSES } from '../../core/domain/model/payment-request.js';
import { ENUM_COMPONENTS } from './openapi-enums.js';

/** The subset of JSON Schema (OpenAPI 3.1) the route table uses to describe bodies and `data` payloads. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** Small builders so the route table stays readable. */
export const s = {
  str: (description?: string): JsonSchema => (description === undefined ? { type: 'string' } : { type: 'string', description }),
  int: (description?: string): JsonSchema => (description === undefined ? { type: 'integer' } : { type: 'integer', description }),
  bool: (): JsonSchema => ({ type: 'boolean' }),
  /** Smallest-unit amount: an integer string, never a JSON number. */
  amount: (): JsonSchema => ({ type: 'string', pattern: '^[0-9]+$' }),
  nullable: (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] }),
  /** An enum, typed when its values share a JSON type (renderers and generators then show that type). */
  enumOf: (values: readonly (string | number | boolean)[]): JsonSchema => {
    const types = new Set(values.map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v)));
    return types.size === 1 ? { type: [...types][0], enum: [...values] } : { enum: [...values] };
  },
  arr: (items: JsonSchema): JsonSchema => ({ type: 'array', items }),
  map: (values: JsonSchema): JsonSchema => ({ type: 'object', additionalProperties: values }),
  /** An object whose listed properties are all required unless named in `optional`. */
  obj: (properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema => ({
    type: 'object',
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
  }),
  /** A named schema of COMPONENTS (a test checks every reference resolves). */
  ref: (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` }),
  empty: (): JsonSchema => ({ type: 'object', maxProperties: 0 }),
};

const walletTime = { type: 'string', description: 'YYYY-MM-DD HH:MM:SS (UTC)' } as const;
const isoTime = { type: 'string', description: 'ISO 8601 with offset' } as const;
const nullableWalletTime = s.nullable(walletTime);
const nullableIso = s.nullable(isoTime);

const pagination = s.obj({ page: s.int(), per_page: s.int(), total: s.int(), pages: s.int() });
const balanceItem = (time: JsonSchema, extensions: Record<string, JsonSchema> = {}): JsonSchema => s.obj({
  symbol: s.str(), balance_available: s.amount(), balance_locked: s.amount(), balance_updated_at: time, ...extensions,
});
/** What a collection of the asset would move (issue #24 item 5). */
const balanceCollectable: JsonSchema = {
  ...s.amount(),
  description: 'the part of balance_available one collection would move; "0" when it is dust that a sweep cannot move '
    + '(no USDT; less than 100000 SUN of TRX, what a TRX sweep must net after its fees). POST /cashier/collect refuses a "0" with 422 '
    + 'BIZ-AMOUNT-BELOW-MINIMUM, and compares min_collect_amounts with this amount',
};
const energy = s.obj({
  available: s.int(), used: s.int(), limit: s.int(),
  staked_sun: s.amount(), delegated_out_sun: s.amount(), received_sun: s.amount(),
});
const bandwidth = s.obj({
  free_available: s.int(), free_used: s.int(), free_limit: s.int(),
  staked_available: s.int(), staked_used: s.int(), staked_limit: s.int(),
  staked_sun: s.amount(), delegated_out_sun: s.amount(), received_sun: s.amount(),
});
const commandFields = {
  command_no: s.str(), type: s.ref('CommandType'), status: s.ref('CommandStatus'),
  error_code: s.nullable(s.str()), last_error: s.nullable(s.str()),
  started_at: nullableWalletTime, finished_at: nullableWalletTime,
};
/** Extension (issue #34): what a withdrawal sends where, on GET /commands/{commandNo} of a withdrawal only. */
const withdrawalFields = {
  asset_symbol: s.str('Extension (issue #34), withdrawals only: the asset sent'),
  amount: { ...s.amount(), description: 'Extension (issue #34), withdrawals only: the amount sent, smallest unit' },
  to_address: s.str('Extension (issue #34), withdrawals only: the destination'),
  txid: {
    ...s.nullable(s.str()),
    description: 'Extension (issue #34), withdrawals only: the transaction, once it may have been broadcast (null before); on a FAILED '
      + 'withdrawal it may name a transaction the chain refused or never included',
  },
  refund_of: s.str('Extension (issue #36), refunds only: the token_no of the payment request this withdrawal refunds (POST /transfers with refund_of)'),
};
/** Extension (issue #26): the approval sub-state of a withdrawal above its approval threshold, on that command only. */
const commandApproval: JsonSchema = {
  ...s.obj({
    state: s.enumOf(['awaiting', 'approved', 'denied', 'expired', 'cancelled']), expires_at: walletTime, attempts: s.int('requests sent to the approver'),
    last_attempt_at: nullableWalletTime, last_refusal: s.nullable(s.str('why the last answer decided nothing')), decided_at: nullableWalletTime,
    requested_by: s.nullable(s.int('issue #35: the user id of the member (or owner) who requested it; null on older withdrawals')),
    decided_by: s.nullable(s.int('issue #35: the user id of the member who approved or denied it through the API; null when the approval_url approver decided or nobody yet')),
  }),
  description: 'Extension (issue #26): present only on a withdrawal that needs an approval (its status stays PENDING while `awaiting`)',
};
const paymentFields = {
  asset_symbol: s.str(), amount: { ...s.amount(), description: 'the amount asked, smallest unit' },
  received: { ...s.amount(), description: 'confirmed payments since the token was made (late ones counted once the deadline has passed)' },
  remaining: { ...s.amount(), description: 'amount - received, never below 0' },
  confirming: { ...s.amount(), description: 'payments seen but not yet confirmed (not in received)' },
  deadline: { ...isoTime, description: 'the fixed payment deadline (created_at + pay_within_minutes); it never slides, unlike expires_at' },
  status: {
    ...s.enumOf(PAYMENT_STATUSES),
    description: 'awaiting (nothing confirmed), partially_paid, paid (the amount before the deadline; its collection starts by itself), '
      + 'overpaid (more; forwarded too), expired (the deadline passed short of the amount; a payment seen before it and still '
      + 'confirming holds this off), paid_late (completed after the deadline; not forwarded by itself)',
  },
  reference: s.nullable(s.str('the merchant\'s order id')), description: s.nullable(s.str()),
};
/** Extension (issue #34): a paid request's automatic forward that waits for energy, on the merchant's token views only. */
const paymentForward: JsonSchema = {
  ...s.obj({
    status: s.enumOf(['pending']), error_code: s.str('the refusal\'s code (BIZ-ENERGY-UNAVAILABLE)'),
    reason: s.str('why no energy source can cover the sweep now, and the fix (stake TRX for energy on the main address, a rental provider, ENERGY_BURN)'),
    attempts: s.int('attempts refused so far'), since: isoTime, next_attempt_at: { ...isoTime, description: 'when the worker tries again by itself' },
  }),
  description: 'Extension (issue #34): present only while the paid request\'s collection waits (refused before any task for want of energy); '
    + 'the worker retries with backoff (15 s doubling to 10 min) and the collection starts by itself once energy can be had',
};
/** Extension (issue #36 item 4): the refunds of a request (POST /transfers with refund_of), on the merchant's token views only. */
const paymentRefunds: JsonSchema = {
  ...s.arr(s.obj({
    command_no: s.str('the refund\'s withdrawal command (GET /api/commands/{commandNo})'),
    amount: s.amount(),
    status: s.int('the command\'s status now (1 PENDING, 2 RUNNING, 3 SUCCESS, 4 FAILED, 5 REJECTED, 6 CANCELLED)'),
    requested_at: isoTime,
  })),
  description: 'Extension (issue #36): present only once the request was refunded; oldest first. Refunds that ended FAILED, REJECTED or '
    + 'CANCELLED gave nothing back and count no more toward what is left to refund (received less the others)',
};
/** Extension (issue #25): the payment request a token carries, judged at read time from the sub-address's deposits. */
const paymentRequest = {
  ...s.obj({ ...paymentFields, forward: paymentForward, refunds: paymentRefunds }, ['forward', 'refunds']),
  description: 'extension (issue #25): only on a token made with amount and asset_symbol',
};
const cashierTokenFields = {
  token_no: s.str(), wallet_address_id: s.int(), address: s.str(), network_code: s.str(),
  status: { ...s.enumOf(['active', 'disabled']), description: 'active, or disabled by DELETE; an expired active token is refused as invalid' },
  ttl_minutes: s.enumOf(CASHIER_TOKEN_TTLS),
  expires_at: isoTime, disabled_at: nullableIso, disable_reason: s.nullable(s.str()), created_at: isoTime,
  payment: paymentRequest,
};
const cashierTask = s.obj({
  task_no: s.str(), command_no: s.str(), status: s.ref('CollectionStatus'), last_error: s.nullable(s.str()),
  started_at: isoTime, finished_at: nullableIso,
});
const webhookStatus = s.obj({
  status: s.enumOf(['unconfigured', 'pending', 'verified']), url: s.nullable(s.str()), pending_url: s.nullable(s.str()),
  pending_since: nullableIso, verified_at: nullableIso, review_note: s.nullable(s.str()),
});

/** Named schemas of the spec §2 resources, shared by the routes and emitted as `components.schemas`. */
export const COMPONENTS = {
  ...ENUM_COMPONENTS,
  Wallet: s.obj({
    wallet_address_id: s.int(), network_code: s.str(), address: s.str(), address_type: s.ref('AddressType'),
    address_label: s.nullable(s.str()), status: s.ref('AddressStatus'), created_at: walletTime,
  }),
  WalletCreated: s.obj({
    wallet_address_id: s.int(), network_code: s.str(), address: s.str(), address_type: s.ref('AddressType'), status: s.ref('AddressStatus'),
  }),
  Pagination: pagination,
  WalletBalance: s.obj({
    address: s.str(), items: s.arr(balanceItem(walletTime)), refresh_source: s.ref('RefreshSource'), balance_updated_at: walletTime,
  }),
  CashierBalance: s.obj({ address: s.str(), items: s.arr(balanceItem(isoTime)), balance_updated_at: isoTime }),
  /** Extension (issue #24 item 5): the cashier balance with what a collection of each asset would move. */
  CashierCollectable: s.obj({
    address: s.str(), items: s.arr(balanceItem(isoTime, { balance_collectable: balanceCollectable })), balance_updated_at: isoTime,
  }),
  ChainResources: s.obj({
    energy, bandwidth, withdrawable_sun: s.amount(),
    delegated_to: s.arr(s.obj({ address: s.str() })), received_from: s.arr(s.obj({ address: s.str() })),
  }),
  Command: s.obj({ ...commandFields, approval: commandApproval, ...withdrawalFields }, ['approval', ...Object.keys(withdrawalFields)]),
  CommandListItem: s.obj({ ...commandFields, created_at: walletTime, approval: commandApproval }, ['approval']),
  CommandAccepted: s.obj({ command_no: s.str(), status: s.ref('CommandStatus') }),
  CollectionTask: s.obj({
    task_no: s.str(), command_no: s.str(), status: s.ref('CollectionStatus'),
    error_code: s.nullable(s.str()), last_error: s.nullable(s.str()), started_at: walletTime, finished_at: nullableWalletTime,
  }),
  /** Extension (issue #34): a task of GET /collections, the spec's task fields and what it swept from where. */
  CollectionTaskListItem: s.obj({
    task_no: s.str(), command_no: s.str(), status: s.ref('CollectionStatus'),
    error_code: s.nullable(s.str()), last_error: s.nullable(s.str()), started_at: walletTime, finished_at: nullableWalletTime,
    address: s.str('the swept sub-address'), asset_symbol: s.str(),
    swept_amount: { ...s.nullable(s.amount()), description: 'smallest unit, once DONE; null before and on failure' },
    sweep_tx_hash: s.nullable(s.str('the sweep\'s transfer, once DONE')),
  }),
  CashierTask: cashierTask,
  /** Extension (docs/decisions.md 53): what a collection cost, read from its receipts. */
  CollectionCost: {
    ...s.obj({
      task_no: s.str(), asset_symbol: s.str(),
      energy_path: {
        ...s.nullable(s.enumOf(['self', 'rental', 'burn', 'none'])),
        description: 'the energy source used, else the one the plan chose; none: the sub-address had the energy; null: no plan (TRX sweep, or not planned yet)',
      },
      provider: { ...s.nullable(s.str()), description: 'the rental provider the plan chose, else null' },
      final: { ...s.bool(), description: 'true once the task is DONE or FAILED and any post-failure reclaim is done: the cost no longer changes' },
      cost: s.obj({
        total_sun: { ...s.amount(), description: 'bandwidth_burned_sun + energy_burned_sun + activation_sun + rental_sun' },
        bandwidth_burned_sun: s.amount(), energy_burned_sun: s.amount(),
        activation_sun: { ...s.amount(), description: 'the chain\'s own fees beyond bandwidth and energy (account creation)' },
        rental_sun: s.amount(),
        lent_sun: { ...s.amount(), description: 'TRX the main address sent the sub-address (moved, not spent)' },
        returned_sun: { ...s.amount(), description: 'TRX the sub-address sent back (moved, not spent)' },
        txids: { ...s.arr(s.str()), description: 'the transactions whose receipts are counted' },
      }),
      estimate: {
        ...s.nullable(s.obj({
          total_sun: s.amount(),
          options: s.arr(s.obj({
            path: s.enumOf(['self', 'rental', 'burn', 'none']), provider: s.nullable(s.str()), cost_sun: s.amount(),
            refusal: { ...s.nullable(s.str()), description: 'why the option could not be taken; null: it could' },
          })),
        })),
        description: 'the plan decided at PENDING (TRC20 sweeps): its expected cost and every energy source it priced; null without a plan',
      },
    }),
    description: 'Amounts are SUN integer strings. Zeros until the first receipt is read.',
  },
  CashierToken: s.obj(cashierTokenFields, ['payment']),
  CashierTokenCreated: s.obj({
    ...cashierTokenFields, token: s.str('ct_… bearer value, shown once'),
    payer_url: s.str('Extension (issue #34), only with a payment request: the payer page, `{origin}/cashier?ct=<token>`, the origin '
      + 'as the caller reached the service (X-Forwarded-Proto and X-Forwarded-Host when a proxy set them, else http and Host)'),
    payer_qr_svg: s.str('Extension (issue #38), with payer_url only: the payer link as an SVG QR code, to show or print for the payer; '
      + 'like the link it holds the token, so it is given only now'),
  }, ['payment', 'payer_url', 'payer_qr_svg']),
  CashierTokenDisabled: s.obj({
    token_no: s.str(), status: s.enumOf(['disabled']), disabled_at: isoTime, disable_reason: s.nullable(s.str()),
  }),
  CashierSession: s.obj({
    token_no: s.str(), expires_at: isoTime, min_collect_amounts: s.map(s.amount()),
    address: s.obj({ wallet_address_id: s.int(), address: s.str(), network_code: s.str(), address_label: s.nullable(s.str()) }),
    active_task: s.nullable(cashierTask),
    payment: {
      ...s.obj({
        ...paymentFields, merchant_name: s.nullable(s.str('config.display_name of the merchant')),
        transfers: {
          ...s.arr(s.obj({
            txid: s.str(), amount: s.amount(),
            status: { ...s.enumOf(['pending', 'confirmed', 'reverted']), description: 'pending is in confirming; reverted (dropped by a reorg) counts nowhere' },
            detected_at: isoTime,
          })),
          description: 'extension (issue #34): every transfer to the sub-address in the asset since the token was made, oldest first; the payer page lists them',
        },
      }),
      description: 'extension (issue #25): only on a token made with a payment request',
    },
    auto_collect: {
      ...s.map(s.obj({ min_amount: s.amount() })),
      description: 'extension (issue #24): only when the merchant has config.auto_collect; per asset, the sweepable amount from which '
        + 'the worker forwards a payment by itself (no POST /cashier/collect needed)',
    },
  }, ['payment', 'auto_collect']),
  WebhookStatus: webhookStatus,
  DeveloperConfig: s.obj({
    service_code: s.enumOf(['developer']), plan_code: s.nullable(s.str()), status: s.enumOf(['active', 'cancelled', 'none']),
    config: s.obj({
      webhook_url: s.nullable(s.str()), webhook_secret_set: s.bool(),
      previous_secret_valid_until: { ...nullableIso, description: 'extension: while a replaced secret still signs beside the new one (24 h), when it stops' },
      min_collect_amounts: s.map(s.amount()),
      event_types: { ...s.arr(s.str()), description: "extension: the event types sent; the spec's four always, then the deposit.* ones opted into" },
      auto_collect: {
        ...s.map(s.obj({ min_amount: s.amount(), max_fee_sun: s.amount() })),
        description: 'extension (issue #24): per asset symbol, the automatic collection rule; {} when none',
      },
      display_name: { ...s.nullable(s.str()), description: 'extension (issue #25): the merchant name payers see on the payer page; null when none' },
    }),
    webhook: webhookStatus,
  }),
  Subscription: s.obj({
    service_code: s.str(), plan_code: s.str(), status: s.enumOf(['active', 'cancelled']),
    meta: s.obj({ max_sub_addresses: s.int() }, ['max_sub_addresses']), activated_at: isoTime,
  }),
  ApiTokenCreated: s.obj({
    id: s.int(), name: s.str(), token: s.str('dk_… shown once'), abilities: s.arr(s.str()), created_at: isoTime,
    expires_at: { ...nullableIso, description: 'extension (issue #35): when the token stops working; null: never' },
  }),
  ApiTokenRevoked: s.obj({ id: s.int(), revoked_at: isoTime }),
  ApiTokenList: s.obj({
    items: s.arr(s.obj({
      id: s.int(), name: s.str(), abilities: s.arr(s.str()), created_at: isoTime, last_used_at: nullableIso,
      expires_at: { ...nullableIso, description: 'extension (issue #35): when the token stops working; null: never' },
      review_since: {
        ...nullableIso,
        description: 'extension (issue #35): a password reset marked the token for review since then (it still works); '
          + 'PUT /api-tokens/{id}/expiry reviews it, DELETE revokes it; null: not marked',
      },
    })),
    remaining: s.int('unrevoked tokens the user may still create (cap 25)'),
  }),
  WebhookTest: s.obj({
    event_id: s.str(), url: s.str(), delivered: s.bool(), http_status: s.nullable(s.int()),
    error: s.nullable(s.str()), duration_ms: s.int(), response: s.nullable(s.str('extension: the first 1 KiB of the response body')),
  }),
  Delivery: s.obj({
    delivery_id: s.str(), event_id: s.str(), event_type: s.str(), status: s.ref('DeliveryStatus'), url: s.nullable(s.str()),
    attempts: s.arr(s.ref('DeliveryAttempt')),
    next_attempt_at: nullableIso, created_at: isoTime,
    payload: { ...s.nullable({ type: 'object' }), description: 'the event body as sent (spec §6 fields at the top level); null if no longer stored' },
  }),
  DeliveryAttempt: s.obj({
    at: isoTime, http_status: s.nullable(s.int()), error: s.nullable(s.str()), duration_ms: s.int(),
    response: s.nullable(s.str('the first 1 KiB of the response body')),
    redelivery: { type: 'boolean', description: 'asked for with POST /webhooks/deliveries/{id}/redeliver' },
    url: s.nullable(s.str('where this attempt was sent (a redelivery: the URL approved then)')),
  }),
  Redelivery: s.obj({ delivered: s.bool(), attempt: s.ref('DeliveryAttempt'), delivery: s.ref('Delivery') }),
  PendingWebhook: s.obj({ user_id: s.int(), pending_url: s.str(), pending_since: nullableIso, url: s.nullable(s.str()) }),
  RiskEntry: s.obj({ kind: s.enumOf(['user', 'address']), value: s.str(), reason: s.nullable(s.str()) }),
  Quota: s.obj({ user_id: s.int(), max_sub_addresses: s.int() }),
} as const satisfies Record<string, JsonSchema>;

/** `data` of the wallet, command and delivery lists. */
export function itemsPage(item: JsonSchema): JsonSchema {
  return s.obj({ items: s.arr(item), pagination: s.ref('Pagination') });
}

/** `data` of the cashier token list. */
export function metaPage(item: JsonSchema): JsonSchema {
  return s.obj({
    data: s.arr(item),
    meta: s.obj({ current_page: s.int(), per_page: s.int(), total: s.int(), last_page: s.int() }),
  });
}
