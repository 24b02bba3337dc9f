import { randomUUID } from 'node:crypto';
import { getRequestIP, getRouterParams, type H3Event } from 'h3';
import type { Logger } from 'pino';
import type { Application } from '../../core/application/index.js';
import type { IdempotencyStore } from '../../core/ports/idempotency-store.port.js';
import type { RateLimiter } from '../../core/ports/rate-limiter.port.js';
import type { BearerAuthenticator, Caller } from './auth.js';
import { checkDeclaredLength, readJsonObject } from './body-reader.js';
import { clientAddress } from './client-address.js';
import { mapError, okReply, toHttpResponse, type ApiReply } from './envelope.js';
import { requireIdempotencyKey, runIdempotent, type AtomicScope } from './idempotency.js';
import { applyRateLimit, applyThrottles, countCodeTry, rateSubject, type RateBucket, type RateHeaders, type RateLimits } from './rate-limit.js';
import { logRequestLine } from './request-log.js';
import { enforceStepUp } from './step-up.js';
import { enforceTeamAccess } from './team-access.js';
import { actAs, fromOrigin, MAX_USER_AGENT, type RequestOrigin } from '../../core/application/acting-member.js';
import type { RawResult, RouteContext, RouteDef } from './route.js';
import type { TeamRole } from '../../core/domain/team-roles.js';

/** What every route's pipeline shares. */
export interface PipelineDeps {
  readonly auth: BearerAuthenticator;
  /** For the two-factor step-up check of the routes that ask for it (step-up.ts). */
  readonly app: Application;
  readonly limiter: RateLimiter;
  readonly limits: RateLimits;
  readonly idempotency: IdempotencyStore;
  /** UnitOfWork.atomically of the store the use cases write to: an idempotent request's effect and answer land together. */
  readonly atomically: AtomicScope;
  readonly logger: Logger;
  /** Proxies trusted to append X-Forwarded-For (clientAddress); 0 = the socket's peer. */
  readonly trustedProxyHops: number;
  readonly observe?: RequestObserver;
}

/** Told each routed request's method, route pattern, status and duration in seconds (metrics). */
export type RequestObserver = (method: string, route: string, status: number, seconds: number) => void;

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The client's X-Request-Id when it is a harmless token (it ends up in logs), else a fresh UUID. */
export function requestIdOf(event: H3Event): string {
  const given = event.req.headers.get('x-request-id');
  return given !== null && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

/** The limit bucket of a route: its own, else the shared GET bucket of spec §8 for every GET. */
export function bucketOf(route: RouteDef): RateBucket | undefined {
  return route.rateLimit ?? (route.method === 'GET' && route.auth !== 'none' && route.auth !== 'admin' ? 'get' : undefined);
}

/** Who the idempotency keys of a caller belong to (DESIGN.md: scope = caller, method, path): the rate-limit subject. */
function callerScope(caller: Caller): string {
  return rateSubject(caller) ?? caller.kind;
}

/**
 * The (caller, method, path) scope of a key, with the path as the route pattern plus its decoded parameters: the raw
 * pathname would let `/api/collections/` or a percent-encoded spelling of the same path run a request twice.
 */
function idempotencyScope(caller: Caller, route: RouteDef, params: Readonly<Record<string, string>>): string {
  const args = Object.keys(params).sort().map((k) => `${k}=${encodeURIComponent(params[k] ?? '')}`).join('&');
  return `${callerScope(caller)} ${route.method} ${route.path}${args === '' ? '' : `?${args}`}`;
}

function callerTag(caller: Caller | undefined): string | number | undefined {
  if (caller === undefined) return undefined;
  if (caller.kind === 'developer' || caller.kind === 'session') return caller.userId;
  if (caller.kind === 'cashier') return `cashier:${caller.ctx.token.tokenNo}`;
  return caller.kind;
}

/** The catalogue code of a failure reply (replayed ones included), for the request line: operators search by code. */
function errorCodeOf(reply: ApiReply): string | undefined {
  try {
    const parsed = JSON.parse(reply.body) as { code?: unknown };
    return typeof parsed.code === 'string' ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Percent-decoded path parameters. Parameters are slices of the raw pathname, so without a `%` in it there is nothing
 * to decode and h3's decoding copy (a measurable cost on every request, bench/api.ts) is skipped.
 */
function paramsOf(event: H3Event): Readonly<Record<string, string>> {
  return event.url.pathname.includes('%') ? getRouterParams(event, { decode: true }) : getRouterParams(event);
}

/** Query parameters, last value winning; no URLSearchParams is built for the common request without a query. */
function queryOf(event: H3Event): Readonly<Record<string, string>> {
  return event.url.search === '' ? {} : Object.fromEntries(event.url.searchParams);
}

/** Copies a limiter's headers into the response headers (a for-in, not a spread: the hot path, bench/api.ts). */
function addHeaders(target: Record<string, string>, source: RateHeaders): void {
  for (const name in source) target[name] = source[name]!;
}

function isRaw(result: unknown): result is RawResult {
  return typeof result === 'object' && result !== null && 'raw' in result;
}

/** The request's origin for the audit trail: client address, user agent (cut), and the caller a session or token names. */
function originOf(who: Caller, client: string | undefined, userAgent: string | null): RequestOrigin {
  const actor = who.kind === 'session' ? { kind: 'user' as const, id: String(who.actorUserId) }
    : who.kind === 'developer' ? { kind: 'api_token' as const, id: String(who.tokenId) } : null;
  return { clientAddress: client ?? null, userAgent: userAgent === null ? null : userAgent.slice(0, MAX_USER_AGENT), actor };
}

/**
 * Runs the route's handler and wraps its answer. Module-level rather than a closure per request: under tsx every
 * named closure is re-labelled on creation (keepNames), a measurable cost on the hot path (bench/api.ts).
 */
async function execute(route: RouteDef, ctx: RouteContext<RouteDef['auth']>): Promise<ApiReply> {
  const result = await route.handle(ctx);
  if (isRaw(result)) {
    return { status: result.raw.status ?? 200, body: result.raw.body, headers: { ...result.raw.headers, 'content-type': result.raw.contentType } };
  }
  return okReply(result, route.status ?? 200);
}

/**
 * A developer route as the console's cookie session meets it (issue #38): its own `roles`, else reads for every role
 * and writes for the owner, admins and operators (the work a developer token does for the team).
 */
function consoleDeveloperRoute(route: RouteDef): Pick<RouteDef, 'method' | 'path' | 'roles'> {
  return route.roles !== undefined || route.method === 'GET' ? route : { method: route.method, path: route.path, roles: CONSOLE_DEVELOPER_WRITERS };
}

const CONSOLE_DEVELOPER_WRITERS: readonly TeamRole[] = ['owner', 'admin', 'operator'];

/**
 * Runs one route for one request: Content-Length check, authentication, rate limit, body, idempotency, the handler,
 * and the envelope — every failure class included. Logs one line per request (never headers, bodies or the query
 * string, which can carry a payer's `ct=` token) and the details of unexpected errors under the request id.
 */
export async function runRoute(deps: PipelineDeps, route: RouteDef, event: H3Event): Promise<Response> {
  const started = performance.now();
  const requestId = requestIdOf(event);
  const headers: Record<string, string> = { 'x-request-id': requestId };
  let caller: Caller | undefined;
  let reply: ApiReply;
  try {
    if (route.method !== 'GET') checkDeclaredLength(event);
    const who: Caller = await deps.auth.authenticate(route.auth, event.req.headers.get('authorization'), event.req.headers);
    caller = who;
    // A member of a team acts within its role (issue #35 item 1); a solo account's session has no member.
    const member = who.kind === 'session' ? who.member : undefined;
    if (member !== undefined) enforceTeamAccess(route.auth === 'developer' ? consoleDeveloperRoute(route) : route, member);
    const bucket = bucketOf(route);
    const idempotencyKey = route.idempotent === true ? requireIdempotencyKey(event.req.headers.get('idempotency-key')) : null;
    // An idempotent route counts its limit only once the key is known to be new: a replay costs no quota and is
    // answered even when the window is spent (issue #13).
    if (bucket !== undefined && idempotencyKey === null) addHeaders(headers, await applyRateLimit(deps.limiter, deps.limits, bucket, who));
    const body = route.method === 'GET' ? {} : await readJsonObject(event);
    // The socket's peer (h3 without xForwardedFor, which would take the leftmost entry: the one a client forges),
    // or the address the configured proxies vouch for.
    const client = clientAddress(getRequestIP(event), event.req.headers.get('x-forwarded-for'), deps.trustedProxyHops);
    // Every audit entry this request causes carries where it came from and who called (issue #35 item 8).
    const origin = originOf(who, client, event.req.headers.get('user-agent'));
    // Before idempotency: a replayed answer of a step-up route needs the second factor as much as the first request.
    if (route.stepUp !== undefined) await fromOrigin(origin, () => enforceStepUp(deps, route, who, body, event.req.headers, (h) => addHeaders(headers, h)));
    if (route.throttle !== undefined) addHeaders(headers, await applyThrottles(deps.limiter, deps.limits, route.throttle, client, body));
    const ctx: RouteContext<typeof route.auth> = {
      caller: who, params: paramsOf(event), query: queryOf(event), body, headers: event.req.headers,
      codeTry: async () => addHeaders(headers, await countCodeTry(deps.limiter, deps.limits, who)),
    };
    const run = member === undefined
      ? () => fromOrigin(origin, () => execute(route, ctx))
      : () => fromOrigin(origin, () => actAs({ userId: member.userId, role: member.role }, () => execute(route, ctx)));
    reply = idempotencyKey === null
      ? await run()
      : await runIdempotent(
        deps.idempotency, idempotencyScope(who, route, ctx.params), idempotencyKey, body, run,
        bucket === undefined ? undefined : async () => addHeaders(headers, await applyRateLimit(deps.limiter, deps.limits, bucket, who)),
        route.errorStatuses, deps.atomically,
      );
  } catch (error) {
    const mapped = mapError(error, route.errorStatuses);
    if (mapped.unexpected) deps.logger.error({ reqId: requestId, route: route.path, err: error }, 'unexpected error');
    reply = mapped.reply;
  }
  logRequestLine(deps.logger, {
    reqId: requestId, method: event.req.method, path: event.url.pathname, route: route.path, status: reply.status,
    code: reply.status >= 400 ? errorCodeOf(reply) : undefined,
    user: callerTag(caller), ms: Math.round((performance.now() - started) * 10) / 10,
  });
  deps.observe?.(route.method, route.path, reply.status, (performance.now() - started) / 1_000);
  return toHttpResponse(reply, headers);
}
