import { H3, HTTPError, type H3Event } from 'h3';
import type { Logger } from 'pino';
import type { Application } from '../../core/application/index.js';
import type { IdempotencyStore } from '../../core/ports/idempotency-store.port.js';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.js';
import type { RateLimiter } from '../../core/ports/rate-limiter.port.js';
import { BearerAuthenticator } from './auth.js';
import { failureReply, toHttpResponse } from './envelope.js';
import { buildOpenApi } from './openapi.js';
import { requestIdOf, runRoute, type PipelineDeps, type RequestObserver } from './pipeline.js';
import { DEFAULT_RATE_LIMITS, type RateLimits } from './rate-limit.js';
import type { RouteDef } from './route.js';
import { accountRoutes } from './routes/account.routes.js';
import { adminRoutes } from './routes/admin.routes.js';
import { operatorStatusRoutes } from './routes/operator-status.routes.js';
import type { OperatorStatusStore } from '../../core/ports/operator-status-store.port.js';
import { auditRoutes } from './routes/audit.routes.js';
import { twoFactorRoutes } from './routes/two-factor.routes.js';
import { cashierTokenRoutes } from './routes/cashier-token.routes.js';
import { cashierRoutes } from './routes/cashier.routes.js';
import { collectionRoutes } from './routes/collection.routes.js';
import { fundsRoutes } from './routes/funds.routes.js';
import { systemRoutes, type ReadinessProbe } from './routes/system.routes.js';
import { depositRoutes } from './routes/deposit.routes.js';
import { ledgerRoutes } from './routes/ledger.routes.js';
import { walletRoutes } from './routes/wallet.routes.js';
import { policyRoutes } from './routes/policy.routes.js';
import { teamRoutes } from './routes/team.routes.js';
import { consoleRoutes } from './routes/console.routes.js';
import { consoleFile } from './console/console-page.js';
import { DEFAULT_CONSOLE_IDLE_MS } from './console/console-session.js';
import { AdminConsoleSessions } from './console/admin-session.js';
import { adminConsoleRoutes } from './routes/admin-console.routes.js';

/** Everything the HTTP host needs: the use cases, the cross-cutting ports and its own settings. */
export interface ApiHostOptions {
  readonly app: Application;
  readonly rateLimiter: RateLimiter;
  readonly idempotency: IdempotencyStore;
  /**
   * The store's unit of work (the one the use cases commit through): an idempotent request's effect and the record of
   * its answer run in one atomic scope (hosts/api/idempotency.ts runIdempotent).
   */
  readonly unitOfWork: Pick<UnitOfWork, 'atomically'>;
  /** The platform operator's bearer token for /api/admin (compared in constant time). */
  readonly adminToken: string;
  readonly logger: Logger;
  /** Per-bucket overrides of the spec §8 limits (benchmarks, operators). */
  readonly rateLimits?: Partial<RateLimits>;
  /** Adapter reachability for /api/readyz; defaults to "ready". */
  readonly readiness?: ReadinessProbe;
  /** Told every routed request's outcome (metrics: hosts/composition/metrics.ts). */
  readonly observe?: RequestObserver;
  /**
   * Reverse proxies in front of the API that each append their peer to X-Forwarded-For (TRUSTED_PROXY_HOPS); the
   * per-client-address throttles count the address that many hops away (hosts/api/client-address.ts). Default 0: the
   * socket's peer, the header ignored.
   */
  readonly trustedProxyHops?: number;
  /** The merchant console's server-side idle timeout (CONSOLE_IDLE_MIN, issue #38); default 30 minutes. */
  readonly consoleIdleMs?: number;
  /** The API's clock (the Clock port) in ms: the operator console's idle timeout (issue #38 item 2). Default Date.now. */
  readonly now?: () => number;
  /**
   * What the worker wrote for the operator (issue #38 item 2): GET /api/admin/health and /api/admin/daily-summary;
   * default none (the routes answer `none` / null).
   */
  readonly operatorStatus?: OperatorStatusStore;
}

/** The built host: the h3 app (serve it with `toNodeHandler`/`serve`) and the route table it was built from. */
export interface ApiHost {
  readonly h3: H3;
  readonly routes: readonly RouteDef[];
  readonly openapi: Record<string, unknown>;
}

/** A compiled matcher of a route pattern, to tell 405 (known path, other method) from 404. */
function patternOf(path: string): RegExp {
  const escaped = path.split('/').map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${escaped.join('/')}/?$`);
}

/** Answers requests no route matched: 405 with Allow when the path exists under other methods, else 404. */
function fallback(routes: readonly RouteDef[], logger: Logger): (event: H3Event) => unknown {
  const patterns = routes.map((r) => ({ method: r.method, pattern: patternOf(r.path) }));
  return (event) => {
    const methods = patterns.filter((p) => p.pattern.test(event.url.pathname)).map((p) => p.method);
    const allowed = [...new Set(methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])))];
    const reply = allowed.length > 0 ? failureReply('METHOD-NOT-ALLOWED', { headers: { allow: allowed.join(', ') } }) : failureReply('NOT-FOUND');
    const requestId = requestIdOf(event);
    logger.info({ reqId: requestId, method: event.req.method, path: event.url.pathname, status: reply.status }, 'request');
    return toHttpResponse(reply, { 'x-request-id': requestId });
  };
}

/**
 * Errors h3 raises before a route runs (malformed percent-encoding in the path) still get the envelope. Exported for
 * the hosts that put their own h3 front before this app (`npm start`'s hosts/dev/dev-front.ts), which answer alike.
 */
export function onH3Error(logger: Logger): (error: HTTPError, event: H3Event) => unknown {
  return (error, event) => {
    const requestId = requestIdOf(event);
    const reply = error.status === 400
      ? failureReply('VALIDATION-ERROR', { message: 'path: malformed percent-encoding' })
      : failureReply('INTERNAL-ERROR');
    if (reply.status >= 500) logger.error({ reqId: requestId, err: error }, 'unexpected error outside a route');
    // Every request leaves one request line, these included (the path only: a query may carry a payer's ct=).
    logger.info({ reqId: requestId, method: event.req.method, path: event.url.pathname, status: reply.status }, 'request');
    return toHttpResponse(reply, { 'x-request-id': requestId });
  };
}

/** Builds the route table and the h3 app of the Custody Hub HTTP API. No I/O happens here. */
export function createApiHost(options: ApiHostOptions): ApiHost {
  const adminSessions = new AdminConsoleSessions(options.adminToken, options.consoleIdleMs ?? DEFAULT_CONSOLE_IDLE_MS, options.now ?? Date.now);
  const deps: PipelineDeps = {
    auth: new BearerAuthenticator(options.app, options.adminToken, options.consoleIdleMs ?? DEFAULT_CONSOLE_IDLE_MS, adminSessions),
    app: options.app,
    limiter: options.rateLimiter,
    limits: { ...DEFAULT_RATE_LIMITS, ...options.rateLimits },
    idempotency: options.idempotency,
    atomically: (work) => options.unitOfWork.atomically(work),
    logger: options.logger,
    trustedProxyHops: options.trustedProxyHops ?? 0,
    ...(options.observe === undefined ? {} : { observe: options.observe }),
  };
  const readiness = options.readiness ?? (() => Promise.resolve([]));
  let openapi: Record<string, unknown> = {};
  const routes: RouteDef[] = [
    ...walletRoutes(options.app), ...depositRoutes(options.app), ...ledgerRoutes(options.app), ...collectionRoutes(options.app), ...cashierTokenRoutes(options.app),
    ...cashierRoutes(options.app), ...accountRoutes(options.app), ...fundsRoutes(options.app), ...adminRoutes(options.app),
    ...auditRoutes(options.app), ...twoFactorRoutes(options.app), ...policyRoutes(options.app), ...teamRoutes(options.app),
    ...systemRoutes(readiness, () => openapi),
    ...consoleRoutes(options.app, { idleMs: options.consoleIdleMs ?? DEFAULT_CONSOLE_IDLE_MS, trustedProxyHops: options.trustedProxyHops ?? 0 }),
    ...adminConsoleRoutes({ sessions: adminSessions, trustedProxyHops: options.trustedProxyHops ?? 0 }),
    // Without a store (a host composed without a worker's store) the routes answer as before the worker's first write.
    ...operatorStatusRoutes(options.operatorStatus ?? { get: async () => null, put: async () => false, replace: async () => false }, options.now ?? Date.now),
  ];
  openapi = buildOpenApi(routes);
  const h3 = new H3({ silent: true, onError: onH3Error(options.logger) });
  for (const route of routes) {
    h3.on(route.method, route.path, (event) => runRoute(deps, route, event));
    // HEAD is GET without the body (RFC 9110): probes and caches use it; node drops the body of a HEAD answer.
    if (route.method === 'GET') h3.on('HEAD', route.path, (event) => runRoute(deps, route, event));
  }
  // The console's files (issue #38): its modules, libraries, and the shell for its other addresses; not API routes,
  // so they are answered where no route matched.
  const notFound = fallback(routes, options.logger);
  h3.all('/**', async (event) => {
    const method = event.req.method;
    // The service's front door is the console: a person who opens the bare address lands on its sign-in.
    if ((method === 'GET' || method === 'HEAD') && event.url.pathname === '/') {
      return new Response(null, { status: 302, headers: { location: '/console', 'cache-control': 'no-store' } });
    }
    if ((method !== 'GET' && method !== 'HEAD') || !event.url.pathname.startsWith('/console/')) return notFound(event);
    const file = await consoleFile(event.url.pathname, event.req.headers.get('if-none-match'));
    return file === null ? notFound(event) : new Response(file.status === 304 ? null : file.body, { status: file.status, headers: file.headers });
  });
  return { h3, routes, openapi };
}
