import { expect } from 'vitest';
import { cacheBalances, COLLECTABLE } from '../../core/application/testing/cached-balances.js';
import { TOKENS } from '../composition/tokens.js';
import type { ApiHarness, HttpResult } from './test-harness.js';
import { COMPONENTS, type JsonSchema } from './openapi-schemas.js';

/** A registered, verified, logged-in user with a developer plan and a Developer API Token. */
export interface TestUser {
  readonly email: string;
  readonly session: string;
  readonly apiToken: string;
  readonly apiTokenId: number;
  readonly userId: number;
}

let userSeq = 0;

/** The password of every user made by {@link signUp}. */
export const TEST_PASSWORD = 'correct horse battery staple';

/** A fresh session token for a user (sessions expire; the ManualClock may have moved past one). */
export async function relogin(h: ApiHarness, user: TestUser): Promise<string> {
  return ok(await h.call('POST', '/api/auth/login', { body: { email: user.email, password: TEST_PASSWORD } })).session_token;
}

/** Asserts a success envelope with the status and returns `data`. */
export function ok(result: HttpResult, status = 200): any {
  expect({ status: result.status, code: result.json?.code, message: result.json?.message }, result.text)
    .toEqual({ status, code: 'OK', message: 'success' });
  return result.json.data;
}

/** Asserts a failure envelope: status, code, `data` exactly `{}`, and no stack trace in the text. */
export function fails(result: HttpResult, status: number, code: string): void {
  expect({ status: result.status, code: result.json?.code }, result.text).toEqual({ status, code });
  expect(result.json.data).toEqual({});
  expect(typeof result.json.message).toBe('string');
  expect(Object.keys(result.json).sort()).toEqual(['code', 'data', 'message']);
  expect(result.text).not.toMatch(/\bat .+\.(ts|js):\d+|Error:/);
}

/** Registers, verifies and logs in a fresh user; activates the developer plan (and a sub_address plan) and makes a dk_ token. */
export async function signUp(h: ApiHarness, options: { subPlan?: 'starter' | 'pro' | 'unlimited' | null } = {}): Promise<TestUser> {
  const email = `user${++userSeq}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = TEST_PASSWORD;
  const registered = ok(await h.call('POST', '/api/auth/register', { body: { email, password } }), 201);
  const code = h.mailer.lastCodeFor(email);
  ok(await h.call('POST', '/api/auth/verify', { body: { email, code } }));
  const login = ok(await h.call('POST', '/api/auth/login', { body: { email, password } }));
  const session = login.session_token as string;
  ok(await h.call('POST', '/api/subscriptions/activate', { token: session, body: { service_code: 'developer' } }));
  const plan = options.subPlan === undefined ? 'starter' : options.subPlan;
  if (plan !== null) {
    ok(await h.call('POST', '/api/subscriptions/activate', { token: session, body: { service_code: 'sub_address', plan_code: plan } }));
  }
  const created = ok(await h.call('POST', '/api/api-tokens', { token: session, body: { name: 'tests' } }), 201);
  return { email, session, apiToken: created.token, apiTokenId: created.id, userId: registered.user_id };
}

/** Creates a wallet of the user (1 main, 2 sub) and returns its address. */
export async function createWallet(h: ApiHarness, user: TestUser, type: 1 | 2, label?: string): Promise<string> {
  const body = { network_code: 'TRON', address_type: type, ...(label === undefined ? {} : { address_label: label }) };
  return ok(await h.call('POST', '/api/wallets', { token: user.apiToken, body }), 201).address;
}

/** A user with a main and a sub address. */
export async function userWithWallets(
  h: ApiHarness, subPlan: 'starter' | 'pro' | 'unlimited' = 'starter',
): Promise<TestUser & { main: string; sub: string }> {
  const user = await signUp(h, { subPlan });
  const main = await createWallet(h, user, 1);
  const sub = await createWallet(h, user, 2, 'shop');
  return { ...user, main, sub };
}

/**
 * Writes the cached balances of each address as the balance scanner would (1 TRX and 1 USDT), so that a test about
 * something else can start a collection: POST /collections and /cashier/collect refuse a cached balance a sweep cannot
 * move (issue #24 item 5). The chain is not touched; a worker that runs the task reads the chain again.
 */
export async function cacheCollectable(h: ApiHarness, ...addresses: string[]): Promise<void> {
  const { balances } = h.container.get(TOKENS.Stores);
  for (const address of addresses) await cacheBalances({ balances, clock: h.clock }, address, COLLECTABLE);
}

/** Spec §2 wallet-side timestamp `YYYY-MM-DD HH:MM:SS`. */
export const WALLET_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
/** ISO 8601 with an explicit offset (cashier and account timestamps). */
export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function resolveRef(schema: JsonSchema): JsonSchema {
  const ref = schema['$ref'];
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '') as keyof typeof COMPONENTS;
  const target = COMPONENTS[name];
  if (target === undefined) throw new Error(`unresolved ${ref}`);
  return target;
}

/**
 * The problems of `value` against the subset of JSON Schema the route table uses (type, properties, required,
 * enum, anyOf, items, additionalProperties, pattern, maxProperties). Extra properties are reported too: the spec
 * lists the fields of every resource, so an undocumented field is a conformance gap either way.
 */
export function schemaProblems(value: unknown, schema: JsonSchema, path = 'data'): string[] {
  const s = resolveRef(schema);
  if (Array.isArray(s['anyOf'])) {
    const options = s['anyOf'] as JsonSchema[];
    return options.some((o) => schemaProblems(value, o, path).length === 0) ? [] : [`${path}: matches no anyOf branch (${JSON.stringify(value)})`];
  }
  if (Array.isArray(s['enum'])) {
    return (s['enum'] as unknown[]).includes(value) ? [] : [`${path}: ${JSON.stringify(value)} not in ${JSON.stringify(s['enum'])}`];
  }
  switch (s['type']) {
    case 'string':
      if (typeof value !== 'string') return [`${path}: expected string, got ${JSON.stringify(value)}`];
      if (typeof s['pattern'] === 'string' && !new RegExp(s['pattern']).test(value)) return [`${path}: ${value} !~ ${s['pattern']}`];
      if (s['description'] === 'YYYY-MM-DD HH:MM:SS (UTC)' && !WALLET_TIME.test(value)) return [`${path}: not a wallet time: ${value}`];
      if (s['description'] === 'ISO 8601 with offset' && !ISO_TIME.test(value)) return [`${path}: not ISO 8601 with offset: ${value}`];
      return [];
    case 'integer':
      return Number.isInteger(value) ? [] : [`${path}: expected integer, got ${JSON.stringify(value)}`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${path}: expected boolean`];
    case 'null':
      return value === null ? [] : [`${path}: expected null`];
    case 'array':
      if (!Array.isArray(value)) return [`${path}: expected array`];
      return value.flatMap((v, i) => schemaProblems(v, s['items'] as JsonSchema, `${path}[${i}]`));
    case 'object': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${path}: expected object`];
      const obj = value as Record<string, unknown>;
      const problems: string[] = [];
      if (typeof s['maxProperties'] === 'number' && Object.keys(obj).length > s['maxProperties']) problems.push(`${path}: too many properties`);
      const props = (s['properties'] ?? {}) as Record<string, JsonSchema>;
      for (const req of (s['required'] ?? []) as string[]) if (!(req in obj)) problems.push(`${path}.${req}: missing`);
      for (const [k, v] of Object.entries(obj)) {
        if (k in props) problems.push(...schemaProblems(v, props[k]!, `${path}.${k}`));
        else if (s['additionalProperties'] !== undefined) problems.push(...schemaProblems(v, s['additionalProperties'] as JsonSchema, `${path}.${k}`));
        else if (s['properties'] !== undefined) problems.push(`${path}.${k}: undocumented property`);
      }
      return problems;
    }
    default:
      return [];
  }
}

/** Asserts that `data` matches the documented schema of the route (method, h3 path) in /openapi.json. */
export function expectDocumented(h: ApiHarness, method: string, path: string, data: unknown): void {
  const route = h.host.routes.find((r) => r.method === method && r.path === path);
  if (route === undefined) throw new Error(`no route ${method} ${path}`);
  const problems = schemaProblems(data, route.docs.data);
  // A route with a second success answer (PUT /policies/withdrawal's 202) may answer either documented shape.
  const also = route.docs.alsoAnswers;
  expect(problems.length > 0 && also !== undefined ? schemaProblems(data, also.data) : problems).toEqual([]);
}

/**
 * A copy of an OpenAPI document whose operations hold their responses inline: each `$ref` to `components.responses`
 * (the error responses several operations share) is replaced by the response it names, so a test reads an
 * operation's answers the same way whether they are shared or not. An unknown name throws.
 */
export function withInlineResponses<T>(document: T): T {
  const copy = structuredClone(document) as { paths: Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>>; components: { responses?: Record<string, unknown> } };
  for (const ops of Object.values(copy.paths)) {
    for (const op of Object.values(ops)) {
      for (const [status, response] of Object.entries(op.responses)) {
        const name = response.$ref?.replace(/^#\/components\/responses\//, '');
        if (name === undefined) continue;
        const target = copy.components.responses?.[name];
        if (target === undefined) throw new Error(`unresolved response ${response.$ref}`);
        op.responses[status] = structuredClone(target) as { $ref?: string };
      }
    }
  }
  return copy as T;
}

/**
 * Every answer the harness got so far is documented in /openapi.json: each 2xx `data` matches its route's schema, and
 * each failure (read from the request lines) is listed for its operation and status. The route table's docs cannot
 * drift from what the routes answer.
 */
export function expectAnswersDocumented(h: ApiHarness): void {
  expectSuccessesDocumented(h);
  const paths = withInlineResponses(h.host.openapi)['paths'] as Record<string, Record<string, any>>;
  const problems = new Set<string>();
  for (const raw of h.logLines) {
    const line = JSON.parse(raw) as { msg?: string; route?: string; method?: string; status?: number; code?: string };
    if (line.msg !== 'request' || line.route === undefined || (line.status ?? 0) < 400) continue;
    const method = line.method === 'HEAD' ? 'get' : String(line.method).toLowerCase();
    const op = paths[line.route.replace(/:([A-Za-z]+)/g, '{$1}')]?.[method];
    const documented: string[] = op?.responses[String(line.status)]?.content['application/json'].schema.properties.code.enum ?? [];
    if (!documented.includes(String(line.code))) problems.add(`${line.method} ${line.route} → ${line.status} ${line.code}`);
  }
  expect([...problems]).toEqual([]);
}

/** The route a concrete request path reaches (patterns anchored, a trailing slash allowed, as h3 matches them). */
function routeFor(h: ApiHarness, method: string, path: string): {
  readonly data: JsonSchema; readonly produces?: string | undefined; readonly alsoAnswers?: { readonly status: number; readonly data: JsonSchema } | undefined;
  readonly alsoProduces?: { readonly mediaType: string } | undefined;
} | undefined {
  return h.host.routes.find((r) => {
    if (r.method !== method) return false;
    const pattern = r.path.split('/').map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
    return new RegExp(`^${pattern}/?$`).test(path);
  })?.docs;
}

/** Every 2xx envelope the harness received so far matches the documented `data` schema of the route that served it. */
export function expectSuccessesDocumented(h: ApiHarness): void {
  const problems = new Set<string>();
  let checked = 0;
  for (const { method, path, result } of h.calls) {
    if (result.status >= 300) continue;
    const docs = routeFor(h, method, path);
    if (docs === undefined || docs.produces !== undefined) continue;
    // A negotiated second media type (the ledger's CSV) is no envelope.
    if (docs.alsoProduces !== undefined && result.headers.get('content-type') === docs.alsoProduces.mediaType) continue;
    checked += 1;
    const schema = docs.alsoAnswers?.status === result.status ? docs.alsoAnswers.data : docs.data;
    for (const problem of schemaProblems(result.json?.data, schema)) problems.add(`${method} ${path}: ${problem}`);
  }
  expect([...problems]).toEqual([]);
  expect(checked).toBeGreaterThan(0);
}
