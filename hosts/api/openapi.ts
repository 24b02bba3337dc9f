import { ERROR_CATALOGUE, type ErrorCode } from '../../core/domain/errors.js';
import { httpStatusOf } from './error-status.js';
import { bucketOf } from './pipeline.js';
import { EX, exampleOf } from './openapi-examples.js';
import { COMPONENTS, s, type JsonSchema } from './openapi-schemas.js';
import { WEBHOOK_SCHEMAS, webhooksSection } from './openapi-webhooks.js';
import { DEFAULT_RATE_LIMITS, windowOf } from './rate-limit.js';
import type { RouteDef } from './route.js';

const SECURITY: Record<string, string> = {
  developer: 'developerToken', session: 'sessionToken', cashier: 'cashierToken', admin: 'adminToken',
};

/** The operation groups, in reading order (redocly.yaml's operation-tag-defined rule checks every tag is listed). */
const TAGS = [
  { name: 'Wallet', description: 'Main and sub-addresses, cached balances and chain resources (Developer API Token)' },
  { name: 'Commands', description: 'Every chain operation is a command with a status (Developer API Token)' },
  { name: 'Collection', description: 'Sweeping a sub-address to the main address; the outcome also arrives as a collection.* webhook' },
  { name: 'Cashier tokens', description: 'Short-lived tokens that let a payer see and collect one sub-address (Developer API Token)' },
  { name: 'Cashier payment', description: 'What the payer page calls with a cashier token (ct_…), and the page itself' },
  { name: 'Account', description: 'Registration, sessions (st_…), plans, the developer configuration and Developer API Tokens' },
  { name: 'Webhooks', description: 'Test sends and the delivery log; the events themselves are listed under `webhooks`' },
  { name: 'Funds', description: 'Withdrawals and staking, accepted as PENDING commands (session token)' },
  { name: 'Policies', description: 'Withdrawal policies: destination allow-list, velocity limits and approvals (session token)' },
  { name: 'Team', description: 'Members of an account and their roles (session token; issue #35)' },
  { name: 'Admin', description: 'Platform operations with ADMIN_TOKEN' },
  { name: 'Console', description: 'The merchant console at /console and its cookie session (extension, issue #38)' },
  { name: 'System', description: 'Liveness, readiness, this document and its reference page' },
];

const DESCRIPTION = [
  'A custodial TRON wallet service: addresses, balances, collections (sweeps), withdrawals and a cashier link for payers.',
  '',
  '- **Envelope.** Every JSON answer is `{code, message, data}`: `code` is `OK` on success, else a catalogue code (listed per operation).',
  '- **Authentication.** A bearer token per kind: Developer API Token `dk_…`, session token `st_…`, cashier token `ct_…`, ADMIN_TOKEN.',
  '- **Idempotency.** Operations that move funds require an `Idempotency-Key` (24 h): a retry with the same key replays the answer.',
  '- **Two-factor step-up.** Once a user turns on TOTP two-factor (`/auth/2fa/*`), login needs `totp_code` and the operations '
    + 'that move funds or change security settings need a code in the `X-TOTP-Code` header (403 AUTH-STEP-UP-REQUIRED without it). '
    + 'Users without two-factor are not affected.',
  '- **Rate limits.** Limited answers carry `X-RateLimit-Limit` and `X-RateLimit-Remaining`; a 429 also carries `Retry-After` (seconds).',
  '- **Webhooks.** Terminal outcomes are POSTed to the approved URL, signed twice: `X-Webhook-Signature` (spec) and Standard Webhooks '
    + '`webhook-signature`. See `webhooks` for each event, its body and headers.',
].join('\n');

/** What the path parameters are, with an example each (`id` names a different resource per route: left bare). */
const PATH_PARAMS: Readonly<Record<string, { readonly description: string; readonly example: string }>> = {
  address: { description: 'an address of the caller', example: EX.sub },
  taskNo: { description: 'a collection task number', example: EX.taskNo },
  commandNo: { description: 'a command number', example: EX.commandNo },
  tokenNo: { description: 'a cashier token number', example: EX.tokenNo },
  userId: { description: 'a user id', example: '12' },
  kind: { description: '`user` or `address`', example: 'address' },
  value: { description: 'the user id or the address', example: EX.to },
};

/** `/api/wallets/:address` → `/api/wallets/{address}`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z]+)/g, '{$1}');
}

/** The rate-limit headers (spec §8), defined once under `components.headers` and referenced by each limited answer. */
const HEADERS = {
  'X-RateLimit-Limit': { description: 'Hits allowed in the current window', schema: { type: 'integer' }, example: 60 },
  'X-RateLimit-Remaining': { description: 'Hits left in the current window after this one', schema: { type: 'integer' }, example: 59 },
  'Retry-After': { description: 'Seconds until the window ends and a retry can succeed', schema: { type: 'integer' }, example: 42 },
};
const headerRef = (name: keyof typeof HEADERS): Record<string, string> => ({ $ref: `#/components/headers/${name}` });
const LIMIT_HEADERS = { 'X-RateLimit-Limit': headerRef('X-RateLimit-Limit'), 'X-RateLimit-Remaining': headerRef('X-RateLimit-Remaining') };
const LIMIT_429_HEADERS = { ...LIMIT_HEADERS, 'Retry-After': headerRef('Retry-After') };

function envelope(data: JsonSchema): JsonSchema {
  return s.obj({ code: s.enumOf(['OK']), message: s.enumOf(['success']), data });
}

function errorResponse(codes: readonly string[]): Record<string, unknown> {
  return {
    description: codes.map((c) => `\`${c}\`: ${ERROR_CATALOGUE[c as ErrorCode]?.message ?? ''}`).join('; '),
    content: {
      'application/json': {
        schema: s.obj({ code: s.enumOf([...codes]), message: s.str(), data: s.empty() }),
        example: { code: codes[0], message: ERROR_CATALOGUE[codes[0] as ErrorCode]?.message ?? '', data: {} },
      },
    },
  };
}

/** An error response as errorResponse builds it: what the sharing pass reads to name it. */
interface ErrorResponse {
  readonly content: { readonly 'application/json': { readonly schema: { readonly properties: { readonly code: { readonly enum: readonly string[] } } } } };
}

/** `BIZ-COMMAND-LOCKED` → `BizCommandLocked`. */
function pascalCase(code: string): string {
  return code.toLowerCase().split('-').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
}

/**
 * Moves each error response that two or more operations give identically (same status, codes, example and headers)
 * into `components.responses`, named after its codes (`RateLimited`, `RiskReviewBlockedOrForbidden`), and puts a
 * `$ref` in its place. A response only one operation gives stays inline: sharing it would only add a name. Returns
 * the shared responses, sorted by name.
 */
function shareErrorResponses(paths: Record<string, Record<string, unknown>>): Record<string, unknown> {
  const answers = Object.values(paths)
    .flatMap((ops) => Object.values(ops) as { responses: Record<string, unknown> }[])
    .flatMap((op) => Object.keys(op.responses).filter((status) => Number(status) >= 400)
      .map((status) => ({ op, status, key: JSON.stringify(op.responses[status]) })));
  const uses = new Map<string, number>();
  for (const { key } of answers) uses.set(key, (uses.get(key) ?? 0) + 1);
  const names = new Map<string, string>();
  const shared: Record<string, unknown> = {};
  for (const { op, status, key } of answers) {
    if ((uses.get(key) ?? 0) < 2) continue;
    let name = names.get(key);
    if (name === undefined) {
      const response = op.responses[status] as ErrorResponse;
      const byCodes = response.content['application/json'].schema.properties.code.enum.map(pascalCase).join('Or');
      // The same codes at another status or with other headers (no route answers so today) take the status too.
      name = shared[byCodes] === undefined ? byCodes : `${byCodes}${status}`;
      if (shared[name] !== undefined) throw new Error(`two shared error responses would be named ${name}`);
      names.set(key, name);
      shared[name] = response;
    }
    op.responses[status] = { $ref: `#/components/responses/${name}` };
  }
  return Object.fromEntries(Object.entries(shared).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Every code a route can answer with, by status: its own plus the cross-cutting ones of the pipeline. */
function codesByStatus(route: RouteDef): Map<number, string[]> {
  const codes = [...(route.docs.errors ?? []), 'INTERNAL-ERROR'];
  if (route.auth !== 'none' && route.auth !== 'cashier') codes.push('UNAUTHENTICATED', 'FORBIDDEN');
  if (route.auth === 'cashier') codes.push('FORBIDDEN');
  if (route.method !== 'GET') codes.push('PAYLOAD-TOO-LARGE', 'VALIDATION-ERROR');
  if (route.method === 'GET' && route.docs.query !== undefined) codes.push('VALIDATION-ERROR');
  if (bucketOf(route) !== undefined || route.throttle !== undefined) codes.push('RATE-LIMITED');
  if (route.idempotent === true) codes.push('IDEMPOTENCY-KEY-REUSED', 'IDEMPOTENCY-KEY-IN-PROGRESS');
  if (route.stepUp !== undefined) codes.push('AUTH-STEP-UP-REQUIRED', 'AUTH-STEP-UP-INVALID', 'AUTH-ACCOUNT-LOCKED', 'RATE-LIMITED');
  const byStatus = new Map<number, string[]>();
  for (const code of new Set(codes)) {
    const status = httpStatusOf(code as ErrorCode, route.errorStatuses);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

function operation(route: RouteDef): Record<string, unknown> {
  const parameters: unknown[] = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: s.str(), ...PATH_PARAMS[m[1]!] }));
  for (const [name, q] of Object.entries(route.docs.query ?? {})) parameters.push({ name, in: 'query', required: false, schema: q.schema, description: q.description });
  if (route.idempotent === true) {
    parameters.push({ name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string', maxLength: 255 }, description: 'client-generated UUID; 24 h window' });
  }
  if (route.stepUp !== undefined) {
    parameters.push({
      name: 'X-TOTP-Code', in: 'header', required: false, schema: { type: 'string', maxLength: 32 }, example: '492039',
      description: route.stepUp === true
        ? 'Extension (issue #26): needed once two-factor is on. A current 6-digit code or an unused recovery code; the same code is accepted again from this session for 5 minutes'
        : 'Extension (issue #26): needed once two-factor is on, when the body sets config.webhook_url or config.webhook_secret. A current 6-digit code or an unused recovery code; the same code is accepted again from this session for 5 minutes',
    });
  }
  const bucket = bucketOf(route);
  const example = route.docs.example ?? exampleOf(route.docs.data);
  if (example === undefined) throw new Error(`${route.method} ${route.path}: docs need an example (none can be derived from the schema)`);
  if (route.docs.body !== undefined && route.docs.bodyExample === undefined) throw new Error(`${route.method} ${route.path}: docs need a bodyExample`);
  const success = route.docs.produces === undefined
    ? { 'application/json': { schema: envelope(route.docs.data), example: { code: 'OK', message: 'success', data: example } } }
    : { [route.docs.produces]: { schema: route.docs.produces === 'application/json' ? route.docs.data : s.str(), example } };
  const alsoProduces = route.docs.alsoProduces;
  if (alsoProduces !== undefined) Object.assign(success, { [alsoProduces.mediaType]: { schema: s.str(), example: alsoProduces.example } });
  const responses: Record<string, unknown> = { [String(route.status ?? 200)]: { description: 'success', content: success } };
  const also = route.docs.alsoAnswers;
  if (also !== undefined) {
    responses[String(also.status)] = {
      description: also.description,
      content: { 'application/json': { schema: envelope(also.data), example: { code: 'OK', message: 'success', data: also.example } } },
    };
  }
  for (const [status, codes] of [...codesByStatus(route)].sort((a, b) => a[0] - b[0])) responses[String(status)] = errorResponse(codes);
  if (bucket !== undefined || route.throttle !== undefined) {
    // Every limited answer carries the window's headers; a 429 also says when to retry (spec §8).
    for (const [status, response] of Object.entries(responses)) {
      if (Number(status) < 400 || status === '429') (response as Record<string, unknown>)['headers'] = status === '429' ? LIMIT_429_HEADERS : LIMIT_HEADERS;
    }
  }
  const ok = responses[String(route.status ?? 200)] as Record<string, unknown>;
  if (route.docs.headers !== undefined) ok['headers'] = { ...(ok['headers'] as object | undefined), ...route.docs.headers };
  return {
    operationId: route.docs.operationId,
    summary: route.docs.summary,
    ...(route.docs.description === undefined ? {} : { description: route.docs.description }),
    tags: [route.docs.tag],
    ...(route.auth === 'none' ? { security: [] } : { security: [{ [SECURITY[route.auth]!]: [] }] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.docs.body === undefined ? {} : {
      requestBody: { required: route.method !== 'DELETE', content: { 'application/json': { schema: route.docs.body, example: route.docs.bodyExample } } },
    }),
    ...(bucket === undefined ? {} : { 'x-rate-limit': { bucket, per_minute: DEFAULT_RATE_LIMITS[bucket] } }),
    ...(route.throttle === undefined ? {} : {
      'x-throttle': route.throttle.map((t) => ({ bucket: t.bucket, by: t.by, limit: DEFAULT_RATE_LIMITS[t.bucket], window_seconds: windowOf(t.bucket) / 1000 })),
    }),
    responses,
  };
}

/** The OpenAPI 3.1 document of the route table: the one source of truth for both the router and the docs. */
export function buildOpenApi(routes: readonly RouteDef[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = toOpenApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) };
  }
  const responses = shareErrorResponses(paths);
  const bearer = (description: string): Record<string, string> => ({ type: 'http', scheme: 'bearer', description });
  return {
    openapi: '3.1.0',
    info: { title: 'Custody Hub API', version: 'M1', description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: '/' }],
    tags: TAGS,
    paths,
    webhooks: webhooksSection(),
    components: {
      schemas: { ...COMPONENTS, ...WEBHOOK_SCHEMAS },
      responses,
      headers: HEADERS,
      securitySchemes: {
        developerToken: bearer('Developer API Token dk_… (ability api:access)'),
        sessionToken: bearer('Session token st_… from POST /api/auth/login'),
        cashierToken: bearer('Cashier token ct_…'),
        adminToken: bearer('ADMIN_TOKEN from the server configuration'),
      },
    },
  };
}
