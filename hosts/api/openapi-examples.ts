import type { COMPONENTS, JsonSchema } from './openapi-schemas.js';

/** Example values shared by the route examples, so one story runs through the document. */
export const EX = {
  main: 'TXk8rQSAvPvBBNtqSoY6nCfsXWCSSpTVQF',
  sub: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  to: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
  commandNo: 'C20260525095858716044820193',
  taskNo: 'T20260525095916482139075512',
  tokenNo: 'CT20260525093000135792468024',
  walletTime: '2026-05-25 09:59:16',
  walletDone: '2026-05-25 10:00:00',
  iso: '2026-05-25T09:59:16+00:00',
  isoDone: '2026-05-25T10:00:00+00:00',
  isoExpiry: '2026-05-25T10:59:16+00:00',
  txid: 'ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12',
  eventId: '6f1c2a9e-0b4d-4e7a-9c3f-2d8e5b7a1c40',
  webhookUrl: 'https://merchant.example/webhooks',
} as const;

const attempt = {
  at: EX.isoDone, http_status: 200, error: null, duration_ms: 84, response: '{"received":true}', redelivery: false, url: EX.webhookUrl,
};
const delivery = {
  delivery_id: 'd-5b2f0c1e', event_id: EX.eventId, event_type: 'collection.completed', status: 3, url: EX.webhookUrl,
  attempts: [attempt], next_attempt_at: null, created_at: EX.isoDone,
  payload: {
    event_id: EX.eventId, event_type: 'collection.completed', occurred_at: EX.isoDone, task_no: EX.taskNo, status: 11, network_code: 'TRON',
    asset_symbol: 'USDT', address: EX.sub, swept_amount: 1500000, sweep_tx_hash: EX.txid, credited_at: EX.isoDone, error: null,
  },
};
const cashierToken = {
  token_no: EX.tokenNo, wallet_address_id: 2, address: EX.sub, network_code: 'TRON', status: 'active', ttl_minutes: 60,
  expires_at: EX.isoExpiry, disabled_at: null, disable_reason: null, created_at: EX.iso,
};
const cashierTask = { task_no: EX.taskNo, command_no: EX.commandNo, status: 1, last_error: null, started_at: EX.iso, finished_at: null };
const webhookStatus = {
  status: 'verified', url: EX.webhookUrl, pending_url: null, pending_since: null, verified_at: EX.iso, review_note: null,
};

/** One example per named schema (typed by COMPONENTS, so a new schema needs one); a test checks each against its schema. */
export const COMPONENT_EXAMPLES = {
  AddressType: 2,
  AddressStatus: 1,
  RefreshSource: 2,
  CommandType: 3,
  CommandStatus: 1,
  CollectionStatus: 11,
  DeliveryStatus: 3,
  Wallet: {
    wallet_address_id: 2, network_code: 'TRON', address: EX.sub, address_type: 2, address_label: 'Order 1042', status: 1, created_at: EX.walletTime,
  },
  WalletCreated: { wallet_address_id: 2, network_code: 'TRON', address: EX.sub, address_type: 2, status: 1 },
  Pagination: { page: 1, per_page: 20, total: 1, pages: 1 },
  WalletBalance: {
    address: EX.sub,
    items: [
      { symbol: 'TRX', balance_available: '0', balance_locked: '0', balance_updated_at: EX.walletTime },
      { symbol: 'USDT', balance_available: '1500000', balance_locked: '0', balance_updated_at: EX.walletTime },
    ],
    refresh_source: 2, balance_updated_at: EX.walletTime,
  },
  CashierBalance: {
    address: EX.sub, items: [{ symbol: 'USDT', balance_available: '1500000', balance_locked: '0', balance_updated_at: EX.iso }], balance_updated_at: EX.iso,
  },
  // The 1 SUN a token sweep's activation funding left: dust, offered as 0.
  CashierCollectable: {
    address: EX.sub,
    items: [
      { symbol: 'TRX', balance_available: '1', balance_locked: '0', balance_collectable: '0', balance_updated_at: EX.iso },
      { symbol: 'USDT', balance_available: '1500000', balance_locked: '0', balance_collectable: '1500000', balance_updated_at: EX.iso },
    ],
    balance_updated_at: EX.iso,
  },
  ChainResources: {
    energy: { available: 65000, used: 0, limit: 65000, staked_sun: '5000000000', delegated_out_sun: '0', received_sun: '0' },
    bandwidth: {
      free_available: 600, free_used: 0, free_limit: 600, staked_available: 0, staked_used: 0, staked_limit: 0,
      staked_sun: '0', delegated_out_sun: '0', received_sun: '0',
    },
    withdrawable_sun: '0', delegated_to: [], received_from: [],
  },
  Command: {
    command_no: EX.commandNo, type: 3, status: 3, error_code: null, last_error: null, started_at: EX.walletTime, finished_at: EX.walletDone,
  },
  CommandListItem: {
    command_no: EX.commandNo, type: 3, status: 3, error_code: null, last_error: null, started_at: EX.walletTime, finished_at: EX.walletDone,
    created_at: EX.walletTime,
  },
  CommandAccepted: { command_no: EX.commandNo, status: 1 },
  CollectionTaskListItem: {
    task_no: EX.taskNo, command_no: EX.commandNo, status: 11, error_code: null, last_error: null, started_at: EX.walletTime,
    finished_at: EX.walletDone, address: EX.sub, asset_symbol: 'USDT', swept_amount: '25000000', sweep_tx_hash: EX.txid,
  },
  CollectionTask: {
    task_no: EX.taskNo, command_no: EX.commandNo, status: 1, error_code: null, last_error: null, started_at: EX.walletTime, finished_at: null,
  },
  CashierTask: cashierTask,
  CollectionCost: {
    task_no: EX.taskNo, asset_symbol: 'USDT', energy_path: 'rental', provider: 'tronsave', final: true,
    cost: {
      total_sun: '4345000', bandwidth_burned_sun: '345000', energy_burned_sun: '0', activation_sun: '0', rental_sun: '4000000',
      lent_sun: '1000000', returned_sun: '655000', txids: [EX.txid],
    },
    estimate: {
      total_sun: '4400000',
      options: [
        { path: 'rental', provider: 'tronsave', cost_sun: '4400000', refusal: null },
        { path: 'burn', provider: null, cost_sun: '13400000', refusal: null },
      ],
    },
  },
  CashierToken: cashierToken,
  CashierTokenCreated: { ...cashierToken, token: 'ct_4mX9b2QeL7tR0wYkP3sZ8vN1cH6uJ5aD' },
  CashierTokenDisabled: { token_no: EX.tokenNo, status: 'disabled', disabled_at: EX.isoDone, disable_reason: 'order cancelled' },
  CashierSession: {
    token_no: EX.tokenNo, expires_at: EX.isoExpiry, min_collect_amounts: { USDT: '1000000' },
    address: { wallet_address_id: 2, address: EX.sub, network_code: 'TRON', address_label: 'Order 1042' }, active_task: null,
  },
  WebhookStatus: webhookStatus,
  DeveloperConfig: {
    service_code: 'developer', plan_code: null, status: 'active',
    config: {
      webhook_url: EX.webhookUrl, webhook_secret_set: true, previous_secret_valid_until: null, min_collect_amounts: { USDT: '1000000' },
      event_types: ['withdrawal.completed', 'withdrawal.failed', 'collection.completed', 'collection.failed', 'deposit.confirmed'],
      auto_collect: { USDT: { min_amount: '10000000', max_fee_sun: '3000000' } }, display_name: 'Acme Store',
    },
    webhook: webhookStatus,
  },
  Subscription: { service_code: 'sub_address', plan_code: 'starter', status: 'active', meta: { max_sub_addresses: 100 }, activated_at: EX.iso },
  ApiTokenCreated: { id: 7, name: 'backend', token: 'dk_9Qw2Er5Ty8Ui1Op4As7Df0Gh3Jk6Lz9X', abilities: ['api:access'], created_at: EX.iso, expires_at: null },
  ApiTokenRevoked: { id: 7, revoked_at: EX.isoDone },
  ApiTokenList: {
    items: [{ id: 7, name: 'backend', abilities: ['api:access'], created_at: EX.iso, last_used_at: EX.isoDone, expires_at: null, review_since: null }],
    remaining: 24,
  },
  WebhookTest: {
    event_id: EX.eventId, url: EX.webhookUrl, delivered: true, http_status: 200, error: null, duration_ms: 84, response: '{"received":true}',
  },
  Delivery: delivery,
  DeliveryAttempt: attempt,
  Redelivery: { delivered: true, attempt: { ...attempt, redelivery: true }, delivery: { ...delivery, attempts: [attempt, { ...attempt, redelivery: true }] } },
  PendingWebhook: { user_id: 12, pending_url: EX.webhookUrl, pending_since: EX.iso, url: null },
  RiskEntry: { kind: 'address', value: EX.to, reason: 'sanctions list match' },
  Quota: { user_id: 12, max_sub_addresses: 500 },
} as const satisfies { readonly [K in keyof typeof COMPONENTS]: unknown };

/**
 * An example of `schema` built from the named schemas' examples: a reference takes its component's example, a
 * nullable its non-null branch, an array one item, an object each property, an enum its first value, an integer 1.
 * Undefined where a value would have to be invented (a bare string): the route then gives its own example.
 */
export function exampleOf(schema: JsonSchema): unknown {
  const ref = schema['$ref'];
  if (typeof ref === 'string') return COMPONENT_EXAMPLES[ref.replace('#/components/schemas/', '') as keyof typeof COMPONENT_EXAMPLES];
  if (Array.isArray(schema['anyOf'])) return exampleOf((schema['anyOf'] as JsonSchema[]).find((o) => o['type'] !== 'null') ?? {});
  if (Array.isArray(schema['enum'])) return (schema['enum'] as unknown[])[0];
  switch (schema['type']) {
    case 'integer':
      return 1;
    case 'array': {
      const item = exampleOf(schema['items'] as JsonSchema);
      return item === undefined ? undefined : [item];
    }
    case 'object': {
      const entries = Object.entries((schema['properties'] ?? {}) as Record<string, JsonSchema>).map(([k, v]) => [k, exampleOf(v)] as const);
      return entries.some(([, v]) => v === undefined) ? undefined : Object.fromEntries(entries);
    }
    default:
      return undefined;
  }
}
