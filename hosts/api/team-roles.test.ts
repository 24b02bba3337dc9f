/**
 * Role checks of teams (issue #35 item 1), over the route table: a hand-copied table of what each role may do is
 * compared with every session route's roles; every refused (route, role) pair is called over HTTP by a real member
 * of that role and answers 403 TEAM-ROLE-FORBIDDEN; a property says a viewer never reaches a route that writes. A
 * solo account is never checked (its owner passes every route, and the conformance suites run unchanged).
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { Secret } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OtpauthTotpGenerator } from '../../adapters/node/index.js';
import { MEMBER_ROLES, TEAM_ROLES, type TeamRole } from '../../core/domain/team-roles.js';
import { inviteLoosens, roleChangeLoosens } from '../../core/domain/team-changes.js';
import { stepAt, TOTP_PERIOD_MS } from '../../core/domain/two-factor-rules.js';
import { fails, ok, TEST_PASSWORD, userWithWallets } from './api-test-fixtures.js';
import { rolesOf, type RouteDef } from './route.js';
import { enforceTeamAccess } from './team-access.js';
import { startHarness, type ApiHarness } from './test-harness.js';

/** What each role may call besides reads and its own login (/api/auth/...): issue #35 item 1's list, copied by hand. */
const MAY_WRITE: Readonly<Record<Exclude<TeamRole, 'owner'>, readonly string[]>> = {
  admin: [
    'PUT /api/subscriptions/config', 'POST /api/api-tokens', 'PUT /api/api-tokens/:id/expiry', 'DELETE /api/api-tokens/:id',
    'POST /api/webhooks/debug/test', 'POST /api/webhooks/deliveries/:id/redeliver',
    'PUT /api/policies/withdrawal', 'POST /api/policies/changes/:changeId/approve', 'POST /api/policies/changes/:changeId/cancel',
    'POST /api/policies/allow-list', 'DELETE /api/policies/allow-list/:address',
    'POST /api/members', 'PATCH /api/members/:memberId', 'DELETE /api/members/:memberId',
    'POST /api/commands/:commandNo/approve', 'POST /api/commands/:commandNo/deny', 'POST /api/commands/:commandNo/cancel',
  ],
  approver: ['POST /api/commands/:commandNo/approve', 'POST /api/commands/:commandNo/deny'],
  operator: ['POST /api/transfers', 'POST /api/commands/:commandNo/cancel'],
  viewer: [],
};

const keyOf = (r: Pick<RouteDef, 'method' | 'path'>): string => `${r.method} ${r.path}`;
const personal = (r: Pick<RouteDef, 'path'>): boolean => r.path.startsWith('/api/auth/');

let h: ApiHarness;
let sessionRoutes: RouteDef[];
const sessions = new Map<TeamRole, string>();
const totp = new OtpauthTotpGenerator();

async function enrol(session: string): Promise<void> {
  const setup = ok(await h.call('POST', '/api/auth/2fa/setup', { token: session }));
  const secret = Secret.fromBase32(new URL(setup.otpauth_uri as string).searchParams.get('secret')!).bytes;
  h.clock.advance(TOTP_PERIOD_MS);
  ok(await h.call('POST', '/api/auth/2fa/enable', { token: session, body: { password: TEST_PASSWORD, code: totp.codeAt(secret, stepAt(h.clock.now())) } }));
}

beforeAll(async () => {
  // No delay (development): the members join at once, their invitations' pending changes due as they are made.
  h = await startHarness({ env: { POLICY_CHANGE_DELAY_H: '0' } });
  sessionRoutes = h.host.routes.filter((r) => r.auth === 'session');
  const owner = await userWithWallets(h);
  await enrol(owner.session);
  sessions.set('owner', owner.session);
  for (const role of ['admin', 'approver', 'operator', 'viewer'] as const) {
    const email = `${role}-${Math.random().toString(36).slice(2, 8)}@team.example`;
    ok(await h.call('POST', '/api/members', { token: owner.session, body: { email, role } }), role === 'viewer' ? 201 : 202);
    ok(await h.call('POST', '/api/auth/register', { body: { email, password: TEST_PASSWORD, invitation_code: h.mailer.lastCodeFor(email, 'invitation') } }), 201);
    sessions.set(role, ok(await h.call('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } })).session_token as string);
  }
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('team roles over the route table (issue #35 item 1)', () => {
  it('each role reaches exactly the reads, its own login and the writes the issue gives it; the owner every route', () => {
    for (const route of sessionRoutes) {
      const allowed = new Set(rolesOf(route));
      expect(allowed.has('owner'), keyOf(route)).toBe(true);
      for (const [role, writes] of Object.entries(MAY_WRITE)) {
        const expected = route.method === 'GET' || personal(route) || writes.includes(keyOf(route));
        expect({ route: keyOf(route), role, allowed: allowed.has(role as TeamRole) }).toEqual({ route: keyOf(route), role, allowed: expected });
      }
    }
    // Every route the hand-copied table names exists (a renamed route cannot silently drop out of it).
    const known = new Set(sessionRoutes.map(keyOf));
    for (const writes of Object.values(MAY_WRITE)) for (const key of writes) expect(known.has(key), key).toBe(true);
  });

  it('property: a role change waits exactly when the new role reaches a write the old one did not (issue #35 item 3), as the route table says', () => {
    // A write every role reaches is the caller's own (its login, its session): not a right over the account.
    const everyone = (r: RouteDef): boolean => TEAM_ROLES.every((role) => rolesOf(r).includes(role));
    const writes = (role: TeamRole): Set<string> => new Set(sessionRoutes
      .filter((r) => r.method !== 'GET' && !personal(r) && !everyone(r) && rolesOf(r).includes(role)).map(keyOf));
    fc.assert(fc.property(fc.constantFrom(...MEMBER_ROLES), fc.constantFrom(...MEMBER_ROLES), (from, to) => {
      const before = writes(from);
      const gains = [...writes(to)].filter((route) => !before.has(route));
      expect({ from, to, loosens: roleChangeLoosens(from, to) }).toEqual({ from, to, loosens: gains.length > 0 });
      // An invitation with money rights waits exactly when the role writes anything (a viewer's is immediate).
      expect(inviteLoosens(to)).toBe(writes(to).size > 0);
    }), { numRuns: runs(50) });
  });

  it('property: a viewer never reaches a route that writes, but its own login; nobody but the owner and an admin changes members or policies', () => {
    fc.assert(fc.property(fc.constantFrom(...sessionRoutes), fc.constantFrom(...TEAM_ROLES), (route, role) => {
      const member = { userId: 7, role, twoFactorOn: true };
      const reached = (() => {
        try { enforceTeamAccess(route, member); return true; } catch { return false; }
      })();
      if (role === 'viewer' && route.method !== 'GET') expect(reached).toBe(personal(route));
      if (/^\/api\/(members|policies)/.test(route.path) && route.method !== 'GET') expect(reached).toBe(role === 'owner' || role === 'admin');
      if (role === 'owner') expect(reached).toBe(true);
    }), { numRuns: runs(300) });
  });

  it('every refused (route, role) pair answers 403 TEAM-ROLE-FORBIDDEN over HTTP; a read answers something else', async () => {
    let refused = 0;
    for (const route of sessionRoutes) {
      const path = route.path.replace(/:\w+/g, '1');
      for (const role of TEAM_ROLES) {
        // An allowed write is not called for real (logging out or turning 2FA off would end the session later pairs use).
        if (route.method !== 'GET' && rolesOf(route).includes(role)) continue;
        const answer = await h.call(route.method, path, { token: sessions.get(role)!, ...(route.method === 'GET' ? {} : { body: {} }) });
        if (rolesOf(route).includes(role)) {
          expect(answer.json?.code, `${role} ${keyOf(route)}`).not.toBe('TEAM-ROLE-FORBIDDEN');
        } else {
          fails(answer, 403, 'TEAM-ROLE-FORBIDDEN');
          refused += 1;
        }
      }
    }
    expect(refused).toBeGreaterThan(50);
  });

  it('a member without 2FA in a decisive role writes nothing until enrolled (403 TEAM-2FA-REQUIRED); an operator needs none', async () => {
    fails(await h.call('PUT', '/api/policies/withdrawal', { token: sessions.get('admin')!, body: { limits: {} } }), 403, 'TEAM-2FA-REQUIRED');
    fails(await h.call('POST', '/api/commands/1/approve', { token: sessions.get('approver')! }), 403, 'TEAM-2FA-REQUIRED');
    fails(await h.call('POST', '/api/commands/1/cancel', { token: sessions.get('operator')! }), 404, 'BIZ-COMMAND-NOT-FOUND');
    ok(await h.call('GET', '/api/policies/withdrawal', { token: sessions.get('admin')! }));
  });
});
