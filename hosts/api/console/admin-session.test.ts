/**
 * The operator console's session rule (issue #38 item 2, admin-session.ts) against a model: a session lives while
 * requests keep coming within the idle timeout, a background poll never extends it, no session outlives 24 h after
 * sign-in, sign-out ends it, and only the admin token opens one. Time is the injected clock.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ADMIN_SESSION_MAX_MS, AdminConsoleSessions, MAX_ADMIN_SESSIONS, adminCookieId, adminSessionCookie } from './admin-session.js';

const TOKEN = 'adm_test_0123456789abcdef0123456789abcdef';
const IDLE = 30 * 60_000;

type Op = { kind: 'wait'; ms: number } | { kind: 'use'; poll: boolean } | { kind: 'close' };

describe('AdminConsoleSessions', () => {
  it('a session answers while used within the idle timeout, never through polls alone, never past 24 h, never after sign-out', () => {
    const opOf = (idle: number): fc.Arbitrary<Op> => fc.oneof(
      // Waits land on the deadline exactly as often as around it; a long idle timeout lets a session reach its 24 h.
      { arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.oneof(fc.integer({ min: 0, max: 2 * idle }), fc.constantFrom(idle, idle - 1, 1)) }), weight: 3 },
      { arbitrary: fc.record({ kind: fc.constant('use' as const), poll: fc.boolean() }), weight: 3 },
      { arbitrary: fc.record({ kind: fc.constant('close' as const) }), weight: 1 },
    );
    const scenario = fc.constantFrom(IDLE, 10 * 3_600_000, 30 * 3_600_000)
      .chain((idle) => fc.tuple(fc.constant(idle), fc.array(opOf(idle), { maxLength: 60 })));
    fc.assert(fc.property(scenario, ([idle, ops]) => {
      let now = 1_000_000;
      const sessions = new AdminConsoleSessions(TOKEN, idle, () => now);
      const { id, expiresAt } = sessions.open();
      const started = now;
      let deadline = Math.min(started + idle, started + ADMIN_SESSION_MAX_MS);
      let ended = false;
      expect(expiresAt).toBe(deadline);
      for (const o of ops) {
        if (o.kind === 'wait') now += o.ms;
        else if (o.kind === 'close') {
          sessions.close(id);
          ended = true;
        } else {
          const live = !ended && now < deadline;
          const seen = sessions.check(id, !o.poll);
          expect(seen !== null).toBe(live);
          if (!live) ended = true;
          else {
            if (!o.poll) deadline = Math.min(now + idle, started + ADMIN_SESSION_MAX_MS);
            expect(seen!.expiresAt).toBe(deadline);
          }
        }
      }
    }), { numRuns: 400 });
  });

  it('only the admin token opens a session; ids are random and the cookie carries the id, never the token', () => {
    const sessions = new AdminConsoleSessions(TOKEN, IDLE, () => 0);
    expect(sessions.isAdminToken(TOKEN)).toBe(true);
    for (const wrong of ['', TOKEN.slice(1), `${TOKEN} `, TOKEN.toUpperCase()]) expect(sessions.isAdminToken(wrong)).toBe(false);
    const a = sessions.open();
    const b = sessions.open();
    expect(a.id).not.toBe(b.id);
    const cookie = adminSessionCookie(a.id, false);
    expect(cookie).toBe(`ch_admin=${a.id}; Path=/api/admin; HttpOnly; SameSite=Strict`);
    expect(cookie).not.toContain(TOKEN);
    expect(adminCookieId(new Headers({ cookie: `ch_console=st_x; ch_admin=${a.id}` }))).toBe(a.id);
    expect(adminCookieId(new Headers({ cookie: `ch_admin=${TOKEN}` }))).toBeNull();
    expect(sessions.check(`as_${'A'.repeat(43)}`, true)).toBeNull();
  });

  it('keeps at most MAX_ADMIN_SESSIONS: the oldest gives way to a new one', () => {
    const sessions = new AdminConsoleSessions(TOKEN, IDLE, () => 0);
    const ids = Array.from({ length: MAX_ADMIN_SESSIONS + 1 }, () => sessions.open().id);
    expect(sessions.check(ids[0]!, false)).toBeNull();
    expect(ids.slice(1).every((id) => sessions.check(id, false) !== null)).toBe(true);
  });
});
