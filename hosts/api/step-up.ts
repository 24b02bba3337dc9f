import { createHash } from 'node:crypto';
import type { Application } from '../../core/application/index.js';
import type { StepUpGrant } from '../../core/domain/two-factor-rules.js';
import type { RateLimiter } from '../../core/ports/rate-limiter.port.js';
import type { Caller } from './auth.js';
import { countCodeTry, type RateHeaders, type RateLimits } from './rate-limit.js';
import type { RouteDef } from './route.js';

/** The request header a step-up code travels in (issue #26 "Interface"). */
export const STEP_UP_HEADER = 'x-totp-code';

/** What the step-up check needs from the pipeline. */
export interface StepUpDeps {
  readonly app: Application;
  readonly limiter: RateLimiter;
  readonly limits: RateLimits;
}

/** True when the route asks for a step-up for this body (a route without `stepUp` never does). */
export function needsStepUp(route: RouteDef, body: Readonly<Record<string, unknown>>): boolean {
  if (route.stepUp === undefined) return false;
  return route.stepUp === true || route.stepUp(body);
}

/**
 * Step-up routes whose code authorises one action only (issue #35 item 4): each withdrawal needs a fresh code. Every
 * other step-up route is a kind of action a code keeps authorising, for the same session, for STEP_UP_TTL_MS.
 */
const ONE_ACTION_ROUTES: ReadonlySet<string> = new Set(['POST /api/transfers']);

/**
 * What a code presented at `route` is asked for: the route (method and path template) is the kind of action. On a
 * one-action route the action is the request its Idempotency-Key names: the code stays good for that key only, so a
 * retry of the same withdrawal (same key) is answered its stored reply as DESIGN's idempotency rule says, while a
 * second withdrawal, under another key, needs a fresh code. Without a key the code serves once.
 */
export function stepUpGrant(route: Pick<RouteDef, 'method' | 'path'>, idempotencyKey: string | null = null): StepUpGrant {
  const scope = `${route.method} ${route.path}`;
  if (!ONE_ACTION_ROUTES.has(scope)) return { scope, reusable: true };
  if (idempotencyKey === null) return { scope, reusable: false };
  return { scope: `${scope} key:${createHash('sha256').update(idempotencyKey).digest('hex')}`, reusable: true };
}

/**
 * The step-up gate of a session route (docs/decisions.md 123, issue #35 item 4): when the route asks for it and the
 * user has 2FA on, the X-TOTP-Code header must hold a code this session had accepted for the same kind of action
 * (stepUpGrant) in the last 5 minutes, or a fresh current code, which is counted as a code try first (the login-like
 * limits of CODE_TRY_BUCKETS). A recovery code never passes. Throws AUTH-STEP-UP-REQUIRED, AUTH-STEP-UP-INVALID,
 * AUTH-ACCOUNT-LOCKED or RATE-LIMITED; a user without 2FA passes untouched, as the spec says. Only session callers
 * are checked: a step-up route takes no other credential.
 */
export async function enforceStepUp(
  deps: StepUpDeps, route: RouteDef, caller: Caller, body: Readonly<Record<string, unknown>>, headers: Headers, tried: (h: RateHeaders) => void,
): Promise<void> {
  if (caller.kind !== 'session' || !needsStepUp(route, body)) return;
  // The session's own user's second factor: a member's, not the account owner's (issue #35 item 1).
  await deps.app.twoFactor.stepUp(caller.actorUserId, caller.token, headers.get(STEP_UP_HEADER), async () => {
    tried(await countCodeTry(deps.limiter, deps.limits, caller));
  }, stepUpGrant(route, headers.get('idempotency-key')));
}
