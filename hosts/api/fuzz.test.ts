import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from './test-harness.js';
import { expectSuccessesDocumented, ok, userWithWallets, withInlineResponses } from './api-test-fixtures.js';
import { toOpenApiPath } from './openapi.js';
import { aDelivery, anEvent } from '../../contracts-tests/support/fixtures.js';
import { DELIVERY_STATUS } from '../../core/domain/model/webhook.js';
import { TOKENS } from '../composition/tokens.js';
import type { RouteDef } from './route.js';

type User = Awaited<ReturnType<typeof userWithWallets>>;

/** Field names the routes read, so random objects often reach the use cases' validation rather than stopping early. */
const FIELDS = [
  'email', 'password', 'new_password', 'code', 'service_code', 'plan_code', 'config', 'webhook_url', 'webhook_secret', 'min_collect_amounts',
  'name', 'network_code', 'address_type', 'address_label', 'force', 'address', 'asset_symbol', 'ttl_minutes', 'reason',
  'from_address', 'to_address', 'amount', 'resource', 'votes', 'witness', 'count', 'note', 'kind', 'value', 'max_sub_addresses',
  'page', 'per_page', 'type', 'status',
];

/** Values of the shapes the fields take, plus the awkward ones (huge numbers, negative zero, nested junk). */
function fieldValue(known: () => readonly string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom('TRON', 'USDT', 'TRX', 'developer', 'sub_address', 'ENERGY', '1000000', '-1', '0', '', ' ', '1e3', 'x'.repeat(300)),
    fc.constant(null).chain(() => fc.constantFrom(...known())),
    fc.integer(), fc.double(), fc.constantFrom(-0, 2 ** 53, 1e308, 60, 1, 2), fc.boolean(), fc.constant(null),
    fc.jsonValue({ maxDepth: 2 }),
  );
}

/** Random bodies, query strings and path parameters on every route: never an internal error, always the envelope. */
describe('fuzz: no input makes the API fail', () => {
  let h: ApiHarness;
  let u: User;
  let ct: string;
  // A DEAD webhook delivery of the fuzzing user, so the redelivery route is reached with an id that exists.
  const deliveryId = '00000000-0000-4000-8000-00000000fd01';
  const tokens = (): Record<string, string | undefined> => ({ developer: u.apiToken, session: u.session, admin: h.adminToken, cashier: ct, none: undefined });

  beforeAll(async () => {
    h = await startHarness();
    u = await userWithWallets(h, 'unlimited');
    ct = ok(await h.call('POST', '/api/cashier/tokens', { token: u.apiToken, body: { address: u.sub, ttl_minutes: 1440 } }), 201).token;
    const stores = h.container.get(TOKENS.Stores);
    const event = anEvent({ eventId: deliveryId, userId: u.userId });
    await stores.uow.commit({ events: [event] });
    await stores.deliveries.insert(aDelivery({ deliveryId, eventId: deliveryId, userId: u.userId, status: DELIVERY_STATUS.DEAD, nextAttemptAt: null }));
  });
  afterAll(async () => {
    expectSuccessesDocumented(h);
    await h.close();
  });

  it('every route answers < 500 with the envelope for random JSON bodies, queries and path values', async () => {
    const known = (): string[] => [u.main, u.sub, String(u.userId), String(u.apiTokenId), deliveryId];
    // Logout, the console's sign-out and token revocation would end the fuzzing user's credentials and turn every
    // later run into a 401; readiness ignores its input and may rightly answer 503 when the chain is slow on a loaded
    // machine.
    const excluded = new Set(['/api/openapi.json', '/api/auth/logout', '/api/auth/console/session', '/api/api-tokens/:id', '/api/readyz']);
    const routes = h.host.routes.filter((r) => !excluded.has(r.path));
    const seen = new Set<string>();
    const probe = async (route: RouteDef, body: unknown, query: Record<string, string>, param: string): Promise<void> => {
      // Limits are not under test here: each run starts on fresh windows.
      h.clock.advance(61_000);
      const path = route.path.replace(/:[A-Za-z]+/g, param);
      const qs = new URLSearchParams(query).toString();
      const token = tokens()[route.auth];
      const res = await h.call(route.method, qs === '' ? path : `${path}?${qs}`, {
        ...(token === undefined ? {} : { token }),
        ...(route.method === 'GET' ? {} : { body }),
        ...(route.idempotent === true ? { headers: { 'idempotency-key': `fuzz-${Math.random()}` } } : {}),
      });
      // A 502/503 is a dependency answering slowly on a loaded machine (chain, Redis), documented per route below;
      // a 500 or any other 5xx is a bug.
      expect([500, 501, 504].includes(res.status) || res.status > 504, `${route.method} ${path} ${JSON.stringify(body)} → ${res.text}`).toBe(false);
      if (route.docs.produces !== undefined) return;
      seen.add(String(res.json.code));
      if (res.status >= 400) {
        // Whatever a route answers, /openapi.json lists under that status for that operation.
        const op = (withInlineResponses(h.host.openapi)['paths'] as Record<string, Record<string, any>>)[toOpenApiPath(route.path)]![route.method.toLowerCase()];
        const documented: string[] = op.responses[String(res.status)]?.content['application/json'].schema.properties.code.enum ?? [];
        expect(documented, `${route.method} ${route.path} → ${res.status} ${res.json.code} undocumented`).toContain(res.json.code);
      }
      expect(Object.keys(res.json).sort()).toEqual(['code', 'data', 'message']);
      if (res.status >= 400) expect(res.json.data).toEqual({});
      else expect(res.json.code).toBe('OK');
    };
    // Every route, new ones included, is probed at least once with junk (issue #13), then at random.
    for (const route of routes) await probe(route, { name: 7, email: ['x'], amount: -1, votes: {} }, { page: '-1' }, known()[0]!);
    await fc.assert(fc.asyncProperty(
      fc.constantFrom(...routes),
      fc.oneof(fc.dictionary(fc.constantFrom(...FIELDS), fieldValue(known), { maxKeys: 6 }), fc.jsonValue({ maxDepth: 3 })),
      fc.dictionary(fc.constantFrom(...FIELDS), fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('0', '1', '100', '101', '-1', '9'.repeat(30))), { maxKeys: 3 }),
      // '.' and '..' are dot-segments the client resolves away, reaching another route than the one under test.
      fc.oneof(fc.constantFrom(...known()), fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent).filter((p) => p !== '.' && p !== '..')),
      probe,
    // A fixed seed: the spread of codes checked below depends on which inputs were drawn, so a random seed made the
    // test fail now and then without a bug (6 distinct codes instead of 7). Change the seed to explore other inputs.
    ), { numRuns: 150, seed: 20261123 });
    // The inputs got past authentication into the use cases: successes and a spread of business codes.
    expect(seen).toContain('OK');
    expect(seen).toContain('VALIDATION-ERROR');
    expect(seen.has('UNAUTHENTICATED')).toBe(false);
    expect(seen.size).toBeGreaterThan(6);
  }, 120_000);
});
