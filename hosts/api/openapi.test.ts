import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../core/domain/errors.js';
import { HTTP_STATUS } from './error-status.js';
import { withInlineResponses } from './api-test-fixtures.js';
import { startHarness, type ApiHarness } from './test-harness.js';
import { toOpenApiPath } from './openapi.js';

/** Spec §4 endpoints (relative to `{base_url}` = /api), hand-copied: each must be served and documented. */
const SPEC_ENDPOINTS = [
  'GET /wallets', 'GET /wallets/{address}', 'POST /wallets', 'GET /wallets/{address}/balances',
  'POST /wallets/{address}/balances/refresh', 'GET /wallets/{address}/resources', 'GET /commands', 'GET /commands/{commandNo}',
  'POST /collections', 'GET /collections/{taskNo}', 'POST /cashier/tokens', 'GET /cashier/tokens', 'DELETE /cashier/tokens/{tokenNo}',
  'GET /cashier/session', 'GET /cashier/balance', 'GET /cashier/task', 'POST /cashier/collect',
  'POST /subscriptions/activate', 'POST /api-tokens', 'DELETE /api-tokens/{id}', 'PUT /subscriptions/config',
  'GET /subscriptions/config/developer', 'POST /webhooks/debug/test', 'GET /webhooks/deliveries',
  // DESIGN.md decisions.
  'POST /auth/register', 'POST /auth/verify', 'POST /auth/login', 'POST /auth/logout', 'POST /transfers',
  'POST /wallets/{address}/stake', 'POST /wallets/{address}/unstake', 'POST /wallets/{address}/withdraw-unstaked',
  'POST /wallets/{address}/vote', 'POST /wallets/{address}/withdraw-reward',
];

/** Spec §2/§4 field lists, hand-copied: the documented schemas (which every response is checked against) hold exactly these. */
const SPEC_FIELDS: Record<string, readonly string[]> = {
  Wallet: ['wallet_address_id', 'network_code', 'address', 'address_type', 'address_label', 'status', 'created_at'],
  WalletCreated: ['wallet_address_id', 'network_code', 'address', 'address_type', 'status'],
  Pagination: ['page', 'per_page', 'total', 'pages'],
  WalletBalance: ['address', 'items', 'refresh_source', 'balance_updated_at'],
  CashierBalance: ['address', 'items', 'balance_updated_at'],
  ChainResources: ['energy', 'bandwidth', 'withdrawable_sun', 'delegated_to', 'received_from'],
  Command: ['command_no', 'type', 'status', 'error_code', 'last_error', 'started_at', 'finished_at'],
  CommandListItem: ['command_no', 'type', 'status', 'error_code', 'last_error', 'started_at', 'finished_at', 'created_at'],
  CollectionTask: ['task_no', 'command_no', 'status', 'error_code', 'last_error', 'started_at', 'finished_at'],
  CashierTask: ['task_no', 'command_no', 'status', 'last_error', 'started_at', 'finished_at'],
  CashierToken: ['token_no', 'wallet_address_id', 'address', 'network_code', 'status', 'ttl_minutes', 'expires_at', 'disabled_at', 'disable_reason', 'created_at'],
  CashierTokenCreated: ['token_no', 'token', 'wallet_address_id', 'address', 'network_code', 'status', 'ttl_minutes', 'expires_at', 'disabled_at', 'disable_reason', 'created_at'],
  CashierTokenDisabled: ['token_no', 'status', 'disabled_at', 'disable_reason'],
  CashierSession: ['token_no', 'expires_at', 'min_collect_amounts', 'address', 'active_task'],
  WebhookStatus: ['status', 'url', 'pending_url', 'pending_since', 'verified_at', 'review_note'],
};
const SPEC_NESTED: Record<string, readonly string[]> = {
  'ChainResources.energy': ['available', 'used', 'limit', 'staked_sun', 'delegated_out_sun', 'received_sun'],
  'ChainResources.bandwidth': ['free_available', 'free_used', 'free_limit', 'staked_available', 'staked_used', 'staked_limit', 'staked_sun', 'delegated_out_sun', 'received_sun'],
  'WalletBalance.items': ['symbol', 'balance_available', 'balance_locked', 'balance_updated_at'],
  'CashierBalance.items': ['symbol', 'balance_available', 'balance_locked', 'balance_updated_at'],
  'CashierSession.address': ['wallet_address_id', 'address', 'network_code', 'address_label'],
};

type Operation = { security?: unknown[]; responses: Record<string, any>; operationId: string; parameters?: { name: string; in: string }[] };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

function operations(doc: Doc): string[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
}

/** /openapi.json is generated from the same route table the router is built from: nothing more, nothing less. */
describe('OpenAPI document', () => {
  let h: ApiHarness;
  let served: Doc & { components: { responses: Record<string, unknown> } };
  let doc: Doc;

  beforeAll(async () => {
    h = await startHarness();
    const res = await h.call('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    served = res.json as unknown as typeof served;
    doc = withInlineResponses(served);
  });
  afterAll(async () => h.close());

  it('documents exactly the routes registered in the h3 router', () => {
    const all = h.host.h3['~routes'].filter((r) => r.route !== '/**');
    // HEAD mirrors every GET (and only GETs); OpenAPI leaves it implied.
    expect(all.filter((r) => r.method === 'HEAD').map((r) => r.route).sort())
      .toEqual(all.filter((r) => r.method === 'GET').map((r) => r.route).sort());
    const registered = all
      .filter((r) => r.method !== 'HEAD')
      .map((r) => `${r.method} ${toOpenApiPath(r.route ?? '')}`);
    expect(new Set(registered).size).toBe(registered.length);
    expect(operations(doc).sort()).toEqual([...registered].sort());
  });

  it('every spec §4 endpoint and DESIGN.md session endpoint is present', () => {
    const documented = new Set(operations(doc));
    for (const endpoint of SPEC_ENDPOINTS) {
      const [method, path] = endpoint.split(' ');
      expect(documented.has(`${method} /api${path}`), endpoint).toBe(true);
    }
  });

  it('every documented operation is served: none answers 404 NOT-FOUND or 405', async () => {
    for (const op of operations(doc)) {
      const [method, path] = op.split(' ') as [string, string];
      const res = await h.call(method, path.replace(/\{[A-Za-z]+\}/g, 'x'));
      expect({ op, code: res.json?.code ?? 'non-json' }).not.toEqual({ op, code: 'NOT-FOUND' });
      expect(res.status, op).not.toBe(405);
    }
  });

  it('operations are well-formed: unique ids, refs resolve, error codes and statuses match the catalogue, security by token kind', () => {
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    const refs = JSON.stringify(doc).match(/#\/components\/schemas\/[A-Za-z]+/g) ?? [];
    for (const ref of new Set(refs)) expect(doc.components.schemas, ref).toHaveProperty(ref.split('/').at(-1)!);
    for (const route of h.host.routes) {
      const op = doc.paths[toOpenApiPath(route.path)]![route.method.toLowerCase()]!;
      expect(Object.keys(op.responses)).toContain(String(route.status ?? 200));
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        for (const code of response.content['application/json'].schema.properties.code.enum as ErrorCode[]) {
          const expected = route.errorStatuses?.[code]
            ?? (code === 'BIZ-WALLET-ADDRESS-NOT-FOUND' && !route.path.includes(':address') ? 422 : HTTP_STATUS[code]);
          expect({ route: route.path, code, status: Number(status) }).toEqual({ route: route.path, code, status: expected });
        }
      }
      if (route.auth === 'none') expect(op.security).toEqual([]);
      else {
        expect(op.security).toHaveLength(1);
        expect(op.responses['401'] ?? op.responses['403']).toBeDefined();
      }
      if (route.idempotent === true) expect(op.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key')).toBe(true);
      if (route.rateLimit !== undefined || (route.method === 'GET' && route.auth !== 'none' && route.auth !== 'admin')) {
        expect(op.responses, route.path).toHaveProperty('429');
      }
    }
  });

  it('an error response several operations give is written once, under components.responses, and referenced', () => {
    const inline = new Map<string, string[]>();
    const refs = new Map<string, number>();
    for (const [path, ops] of Object.entries(served.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          if (typeof response.$ref === 'string') refs.set(response.$ref, (refs.get(response.$ref) ?? 0) + 1);
          else inline.set(JSON.stringify(response), [...(inline.get(JSON.stringify(response)) ?? []), `${method} ${path} ${status}`]);
        }
      }
    }
    expect([...inline.values()].filter((where) => where.length > 1)).toEqual([]);
    const shared = Object.keys(served.components.responses).map((name) => `#/components/responses/${name}`);
    expect([...refs.keys()].sort()).toEqual([...shared].sort());
    for (const ref of shared) expect(refs.get(ref), ref).toBeGreaterThan(1);
    expect(served.components.responses).toHaveProperty('RateLimited');
    expect(refs.get('#/components/responses/InternalError')).toBe(operations(served).length);
  });

  it('the resource schemas hold exactly the spec §2/§4 fields, required; any other is an optional, marked extension', () => {
    type Schema = { properties?: Record<string, Schema>; items?: Schema; required?: string[]; description?: string };
    const schemas = doc.components.schemas as Record<string, Schema>;
    for (const [name, fields] of Object.entries(SPEC_FIELDS)) {
      const schema = schemas[name] ?? {};
      const extra = Object.keys(schema.properties ?? {}).filter((f) => !fields.includes(f));
      // A response without the extensions' inputs is exactly the spec's: every extension field may be absent.
      const unmarked = extra.filter((f) => (schema.required ?? []).includes(f) || !/^extension/i.test(schema.properties![f]!.description ?? ''));
      expect({ name, fields: (schema.required ?? []).filter((f) => fields.includes(f)).sort(), unmarked })
        .toEqual({ name, fields: [...fields].sort(), unmarked: [] });
    }
    for (const [path, fields] of Object.entries(SPEC_NESTED)) {
      const [name, field] = path.split('.') as [string, string];
      const nested = schemas[name]!.properties![field]!;
      expect({ path, fields: Object.keys((nested.items ?? nested).properties ?? {}).sort() }).toEqual({ path, fields: [...fields].sort() });
    }
  });

  it('timestamps: wallet-side resources use YYYY-MM-DD HH:MM:SS, cashier-side ones ISO 8601 with offset (spec §2)', () => {
    const WALLET = 'YYYY-MM-DD HH:MM:SS (UTC)';
    const ISO = 'ISO 8601 with offset';
    const formats = (schema: unknown): string[] => {
      const text = JSON.stringify(schema);
      return [...new Set([...text.matchAll(/"description":"(YYYY-MM-DD HH:MM:SS \(UTC\)|ISO 8601 with offset)"/g)].map((m) => m[1]!))];
    };
    const schemas = doc.components.schemas;
    for (const name of ['Wallet', 'WalletBalance', 'Command', 'CommandListItem', 'CollectionTask']) expect({ name, f: formats(schemas[name]) }).toEqual({ name, f: [WALLET] });
    for (const name of ['CashierBalance', 'CashierTask', 'CashierToken', 'CashierTokenCreated', 'CashierTokenDisabled', 'CashierSession']) {
      expect({ name, f: formats(schemas[name]) }).toEqual({ name, f: [ISO] });
    }
  });

  it('documents the spec §8 limits on the limited operations', () => {
    const limitOf = (op: string): unknown => {
      const [method, path] = op.split(' ') as [string, string];
      return (doc.paths[path]![method.toLowerCase()] as Record<string, any>)['x-rate-limit']?.per_minute;
    };
    expect({
      wallets: limitOf('POST /api/wallets'), refresh: limitOf('POST /api/wallets/{address}/balances/refresh'),
      collections: limitOf('POST /api/collections'), tokens: limitOf('POST /api/cashier/tokens'),
      disable: limitOf('DELETE /api/cashier/tokens/{tokenNo}'), collect: limitOf('POST /api/cashier/collect'),
      get: limitOf('GET /api/wallets'), cashierGet: limitOf('GET /api/cashier/session'),
    }).toEqual({ wallets: 20, refresh: 20, collections: 10, tokens: 20, disable: 20, collect: 10, get: 60, cashierGet: 60 });
  });
});
