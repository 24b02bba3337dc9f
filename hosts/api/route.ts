import type { AuthKind, CallerOf } from './auth.js';
import type { ErrorStatuses } from './error-status.js';
import type { RateBucket, Throttle } from './rate-limit.js';
import type { JsonSchema } from './openapi-schemas.js';
import { TEAM_ROLES, type TeamRole } from '../../core/domain/team-roles.js';

export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a route handler receives: the authenticated caller and the transport-level inputs, still unvalidated. */
export interface RouteContext<K extends AuthKind> {
  readonly caller: CallerOf<K>;
  /** Path parameters, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** Query parameters (last value wins for a repeated name). */
  readonly query: Readonly<Record<string, string>>;
  /** The JSON object body (`{}` when empty or on GET). */
  readonly body: Readonly<Record<string, unknown>>;
  /** The request headers, for what a page negotiates (the payer page's Accept-Language); never logged. */
  readonly headers: Headers;
  /**
   * Counts one two-factor code try of the caller against the login-like code-try limits (rate-limit.ts
   * CODE_TRY_BUCKETS); throws 429 RATE-LIMITED when spent. For the routes that judge a code (2FA enable, disable).
   */
  readonly codeTry: () => Promise<void>;
}

/**
 * When a session route needs a two-factor step-up (issue #26 item 3, hosts/api/step-up.ts): always, or only for the
 * bodies the predicate picks (PUT /subscriptions/config changing the webhook URL or secret).
 */
export type StepUpRule = true | ((body: Readonly<Record<string, unknown>>) => boolean);

/** A success answer other than the JSON envelope (the payer HTML page, the OpenAPI document). */
export interface RawResult {
  readonly raw: {
    readonly contentType: string;
    readonly body: string;
    readonly status?: number;
    /** Extra response headers (the payer page's CSP). */
    readonly headers?: Readonly<Record<string, string>>;
  };
}

/** Documentation of a route for /openapi.json; the same object the router is built from. */
export interface RouteDocs {
  /** The OpenAPI operationId, a camelCase verb phrase (`createCollection`): what generated clients name the call. */
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly query?: Readonly<Record<string, { readonly schema: JsonSchema; readonly description?: string }>>;
  readonly body?: JsonSchema;
  /** Example of the request body (required with `body`; a test checks it against the schema). */
  readonly bodyExample?: unknown;
  /** Schema of `data` in the success envelope. */
  readonly data: JsonSchema;
  /**
   * Example of `data` (of the raw answer with `produces`); without it, one is derived from the named schemas'
   * examples (openapi-examples.ts). Building the document fails when neither gives one.
   */
  readonly example?: unknown;
  /** Media type of a non-envelope success answer (the payer page). */
  readonly produces?: string;
  /**
   * A second media type of the success answer, negotiated by the handler (`Accept` or `format=`), outside the envelope:
   * the ledger's CSV (issue #36). Errors stay in the JSON envelope.
   */
  readonly alsoProduces?: { readonly mediaType: string; readonly example: string };
  /** Catalogue codes the route documents besides the cross-cutting ones (401, 403, 422, 429, 500). */
  readonly errors?: readonly string[];
  /** The operation's longer description (Markdown), where the summary cannot say enough. */
  readonly description?: string;
  /** Headers of the success answer the route itself sets (besides the rate-limit ones), by name. */
  readonly headers?: Readonly<Record<string, { readonly description: string; readonly schema: JsonSchema; readonly example?: unknown }>>;
  /**
   * A second success answer the handler gives instead of the route's status, as a RawResult with that status and the
   * JSON envelope (PUT /policies/withdrawal: 202 with the pending change when the request loosens the policy).
   */
  readonly alsoAnswers?: { readonly status: 202; readonly description: string; readonly data: JsonSchema; readonly example: unknown };
}

/**
 * One row of the route table: everything the router and the OpenAPI document need. The handler only calls a use case
 * and returns its spec-shaped result; the pipeline does authentication, limits, idempotency and the envelope.
 */
export interface RouteDef<K extends AuthKind = AuthKind> {
  readonly method: RouteMethod;
  /** h3 pattern with `:name` parameters, including the `/api` base. */
  readonly path: string;
  readonly auth: K;
  /** Success status: 201 for creations, 202 for work accepted whose outcome the answer does not tell, else 200. */
  readonly status?: 200 | 201 | 202;
  readonly rateLimit?: RateBucket;
  /** Anonymous routes (register, verify, login, password reset): buckets counted per client address and per e-mail. */
  readonly throttle?: readonly Throttle[];
  /**
   * Requires an Idempotency-Key and replays stored answers (collections, cashier collect, transfers, staking). A replay
   * is answered before the rate limit is counted: it costs no quota, and is served even when the window is spent.
   */
  readonly idempotent?: boolean;
  /**
   * Needs a current two-factor code in X-TOTP-Code when the user has 2FA on (hosts/api/step-up.ts); checked after
   * authentication and before the rate limit, idempotency and the handler. Users without 2FA are not affected.
   */
  readonly stepUp?: StepUpRule;
  /**
   * Statuses this route answers for some catalogue codes instead of the host table's (error-status.ts), where the spec
   * gives one code two statuses: BIZ-WALLET-ADDRESS-NOT-FOUND is 422 where the body names the address. The answers
   * and /openapi.json both read it.
   */
  readonly errorStatuses?: ErrorStatuses;
  /**
   * The team roles (issue #35 item 1) that may call this session route in an account with members; the owner always
   * may. Absent: every role on a GET (reads), the owner alone otherwise (rolesOf). A solo account is never checked.
   */
  readonly roles?: readonly TeamRole[];
  readonly docs: RouteDocs;
  handle(ctx: RouteContext<K>): Promise<unknown>;
}

/** Declares a route with its handler typed by its auth kind. */
export function defineRoute<K extends AuthKind>(def: RouteDef<K>): RouteDef {
  return def as unknown as RouteDef;
}

/** The roles a route lets act (issue #35 item 1): its own list plus the owner, else reads for all, writes for the owner. */
export function rolesOf(route: Pick<RouteDef, 'method' | 'roles'>): readonly TeamRole[] {
  if (route.roles !== undefined) return route.roles.includes('owner') ? route.roles : ['owner', ...route.roles];
  return route.method === 'GET' ? TEAM_ROLES : ['owner'];
}

/** Every role: the routes that act on the caller's own login (2FA, logout). */
export const ANY_ROLE: readonly TeamRole[] = TEAM_ROLES;
/** Money movements within the policy: payments, collections, refunds (withdrawals). */
export const OPERATOR_ROLES: readonly TeamRole[] = ['owner', 'operator'];
/** Control: policies, members, tokens, webhooks. */
export const ADMIN_ROLES: readonly TeamRole[] = ['owner', 'admin'];
/** Cancelling a pending withdrawal: its requester (an operator's own, checked by the use case) or an admin. */
export const CANCEL_ROLES: readonly TeamRole[] = ['owner', 'admin', 'operator'];
/** Deciding another member's withdrawal. */
export const DECIDER_ROLES: readonly TeamRole[] = ['owner', 'admin', 'approver'];
