import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness, type HttpResult } from './test-harness.js';
import { cacheCollectable, createWallet, ok, signUp, userWithWallets, type TestUser, expectAnswersDocumented } from './api-test-fixtures.js';

type Kind = 'address' | 'subAddress' | 'command' | 'task' | 'cashierToken' | 'apiToken';

/** A resource of user A, by kind and its public identifier. */
interface Owned { readonly kind: Kind; readonly id: string }

/** One way of touching a resource: a call built from its id, made with B's credentials. */
interface Probe {
  readonly kinds: readonly Kind[];
  readonly name: string;
  readonly call: (h: ApiHarness, b: TestUser, id: string) => Promise<HttpResult>;
}

const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });

/** Every route that names a resource of the caller, in its path or body (spec §2 rule 3: another's is nonexistent). */
const PROBES: readonly Probe[] = [
  { kinds: ['address', 'subAddress'], name: 'GET /wallets/{a}', call: (h, b, id) => h.call('GET', `/api/wallets/${id}`, { token: b.apiToken }) },
  { kinds: ['address', 'subAddress'], name: 'GET balances', call: (h, b, id) => h.call('GET', `/api/wallets/${id}/balances`, { token: b.apiToken }) },
  { kinds: ['address', 'subAddress'], name: 'GET resources', call: (h, b, id) => h.call('GET', `/api/wallets/${id}/resources`, { token: b.apiToken }) },
  { kinds: ['address', 'subAddress'], name: 'POST refresh', call: (h, b, id) => h.call('POST', `/api/wallets/${id}/balances/refresh`, { token: b.apiToken, body: { force: true } }) },
  { kinds: ['address', 'subAddress'], name: 'POST stake', call: (h, b, id) => h.call('POST', `/api/wallets/${id}/stake`, { token: b.session, body: { resource: 'ENERGY', amount: '1000000' } }) },
  { kinds: ['address', 'subAddress'], name: 'POST unstake', call: (h, b, id) => h.call('POST', `/api/wallets/${id}/unstake`, { token: b.session, body: { resource: 'ENERGY', amount: '1000000' } }) },
  { kinds: ['address', 'subAddress'], name: 'POST withdraw-unstaked', call: (h, b, id) => h.call('POST', `/api/wallets/${id}/withdraw-unstaked`, { token: b.session }) },
  { kinds: ['address', 'subAddress'], name: 'POST withdraw-reward', call: (h, b, id) => h.call('POST', `/api/wallets/${id}/withdraw-reward`, { token: b.session }) },
  {
    kinds: ['address', 'subAddress'], name: 'POST vote',
    call: (h, b, id) => h.call('POST', `/api/wallets/${id}/vote`, { token: b.session, body: { votes: [{ witness: h.devnet.info().witnesses[0], count: 1 }] } }),
  },
  {
    kinds: ['address', 'subAddress'], name: 'POST /transfers from',
    call: (h, b, id) => h.call('POST', '/api/transfers', { token: b.session, headers: key(), body: { from_address: id, to_address: h.devnet.info().witnesses[0], asset_symbol: 'TRX', amount: '1' } }),
  },
  { kinds: ['subAddress'], name: 'POST /collections', call: (h, b, id) => h.call('POST', '/api/collections', { token: b.apiToken, headers: key(), body: { address: id, asset_symbol: 'TRX' } }) },
  { kinds: ['subAddress'], name: 'POST /cashier/tokens', call: (h, b, id) => h.call('POST', '/api/cashier/tokens', { token: b.apiToken, body: { address: id } }) },
  { kinds: ['command'], name: 'GET /commands/{n}', call: (h, b, id) => h.call('GET', `/api/commands/${id}`, { token: b.apiToken }) },
  { kinds: ['task'], name: 'GET /collections/{n}', call: (h, b, id) => h.call('GET', `/api/collections/${id}`, { token: b.apiToken }) },
  { kinds: ['task'], name: 'GET /collections/{n}/costs', call: (h, b, id) => h.call('GET', `/api/collections/${id}/costs`, { token: b.apiToken }) },
  { kinds: ['cashierToken'], name: 'GET /cashier/tokens/{n}', call: (h, b, id) => h.call('GET', `/api/cashier/tokens/${id}`, { token: b.apiToken }) },
  { kinds: ['cashierToken'], name: 'DELETE /cashier/tokens/{n}', call: (h, b, id) => h.call('DELETE', `/api/cashier/tokens/${id}`, { token: b.apiToken }) },
  { kinds: ['apiToken'], name: 'DELETE /api-tokens/{id}', call: (h, b, id) => h.call('DELETE', `/api/api-tokens/${id}`, { token: b.session }) },
];

/** A random identifier of the same shape as a real one of that kind, which names nothing. */
function unknownId(kind: Kind): fc.Arbitrary<string> {
  const base58 = fc.constantFrom(...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz');
  switch (kind) {
    case 'address':
    case 'subAddress':
      return fc.array(base58, { minLength: 33, maxLength: 33 }).map((cs) => `T${cs.join('')}`);
    case 'apiToken':
      return fc.integer({ min: 100_000, max: 2 ** 31 - 1 }).map(String);
    default:
      return fc.stringMatching(/^[A-Z0-9]{6,32}$/);
  }
}

type Action = 'sub' | 'collection' | 'cashierToken' | 'transfer' | 'apiToken';

/** The order reference of A's payment requests, which B's own order carries too. */
const SHARED_REFERENCE = 'order-1042';

/** Creates one resource of A by action, returning what became visible to A. */
async function perform(h: ApiHarness, a: TestUser & { main: string }, action: Action): Promise<Owned[]> {
  switch (action) {
    case 'sub':
      return [{ kind: 'subAddress', id: await createWallet(h, a, 2) }];
    case 'collection': {
      const sub = await createWallet(h, a, 2);
      await cacheCollectable(h, sub);
      const task = ok(await h.call('POST', '/api/collections', { token: a.apiToken, headers: key(), body: { address: sub, asset_symbol: 'USDT' } }), 201);
      return [{ kind: 'subAddress', id: sub }, { kind: 'task', id: task.task_no }, { kind: 'command', id: task.command_no }];
    }
    case 'cashierToken': {
      const sub = await createWallet(h, a, 2);
      // A payment request under the reference B also uses: B's search by it must never find A's (issue #34).
      const ct = ok(await h.call('POST', '/api/cashier/tokens', {
        token: a.apiToken, body: { address: sub, amount: '1000000', asset_symbol: 'USDT', reference: SHARED_REFERENCE },
      }), 201);
      return [{ kind: 'subAddress', id: sub }, { kind: 'cashierToken', id: ct.token_no }];
    }
    case 'transfer': {
      // From a fresh sub-address: a pending withdrawal locks its address (409 for a second one).
      const sub = await createWallet(h, a, 2);
      const accepted = ok(await h.call('POST', '/api/transfers', {
        token: a.session, headers: key(), body: { from_address: sub, to_address: a.main, asset_symbol: 'TRX', amount: '1' },
      }), 201);
      return [{ kind: 'subAddress', id: sub }, { kind: 'command', id: accepted.command_no }];
    }
    case 'apiToken':
      return [{ kind: 'apiToken', id: String(ok(await h.call('POST', '/api/api-tokens', { token: a.session, body: { name: 'x' } }), 201).id) }];
  }
}

const outcome = (r: HttpResult): { status: number; code: string; data: unknown } => ({ status: r.status, code: r.json?.code, data: r.json?.data });

/** Two tenants over real HTTP: whatever A owns, B's calls cannot tell it from an id that names nothing. */
describe('tenancy: another user\'s resources behave as nonexistent', () => {
  let h: ApiHarness;
  let b: Awaited<ReturnType<typeof userWithWallets>>;

  beforeAll(async () => {
    h = await startHarness();
    b = await userWithWallets(h, 'unlimited');
    ok(await h.call('POST', '/api/cashier/tokens', {
      token: b.apiToken, body: { address: b.sub, amount: '1000000', asset_symbol: 'USDT', reference: SHARED_REFERENCE },
    }), 201);
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('every probe of A\'s resource by B answers exactly as for a random unknown id', async () => {
    const probed = new Set<string>();
    await fc.assert(fc.asyncProperty(
      fc.array(fc.constantFrom<Action>('sub', 'collection', 'cashierToken', 'transfer', 'apiToken'), { minLength: 1, maxLength: 3 }),
      fc.nat(),
      async (actions, seed) => {
        // Fresh windows per run: the limits of spec §8 are not what this property is about.
        h.clock.advance(61_000);
        const a = { ...(await signUp(h, { subPlan: 'unlimited' })), main: '' };
        const owned: Owned[] = [{ kind: 'address', id: (a.main = await createWallet(h, a, 1)) }, { kind: 'apiToken', id: String(a.apiTokenId) }];
        for (const action of actions) owned.push(...(await perform(h, a, action)));
        const before = await listsOf(h, b);
        // B's searches never find A's (issue #34): its collections, even filtered by A's sub-address, and its order.
        for (const sub of owned.filter((o) => o.kind === 'subAddress')) {
          expect(ok(await h.call('GET', `/api/collections?address=${sub.id}`, { token: b.apiToken })).pagination.total).toBe(0);
        }
        expect(ok(await h.call('GET', '/api/collections', { token: b.apiToken })).pagination.total).toBe(0);
        expect(ok(await h.call('GET', `/api/cashier/tokens?reference=${SHARED_REFERENCE}`, { token: b.apiToken })).meta.total).toBe(1);
        for (const resource of owned) {
          const unknown = fc.sample(unknownId(resource.kind), { numRuns: 1, seed: seed + owned.indexOf(resource) })[0]!;
          for (const probe of PROBES.filter((p) => p.kinds.includes(resource.kind))) {
            const foreign = outcome(await probe.call(h, b, resource.id));
            const missing = outcome(await probe.call(h, b, unknown));
            probed.add(probe.name);
            expect({ probe: probe.name, ...foreign }).toEqual({ probe: probe.name, ...missing });
            expect(foreign.status).toBeGreaterThanOrEqual(400);
          }
        }
        // A's resources are still A's: nothing B did touched them, and they never show in B's lists.
        expect(await listsOf(h, b)).toEqual(before);
        ok(await h.call('GET', `/api/wallets/${a.main}`, { token: a.apiToken }));
      },
    // One run touching every kind, so each probe is exercised whatever the random runs draw.
    ), { numRuns: 6, examples: [[['collection', 'cashierToken', 'transfer', 'apiToken'], 0]] });
    expect([...probed].sort()).toEqual(PROBES.map((p) => p.name).sort());
  }, 30_000);
});

/** B's list endpoints, which must never grow with A's resources. */
async function listsOf(h: ApiHarness, b: TestUser): Promise<unknown[]> {
  return Promise.all([
    h.call('GET', '/api/wallets?per_page=100', { token: b.apiToken }).then(ok),
    h.call('GET', '/api/commands?per_page=100', { token: b.apiToken }).then(ok),
    h.call('GET', '/api/cashier/tokens?per_page=100', { token: b.apiToken }).then(ok),
    h.call('GET', `/api/cashier/tokens?reference=${SHARED_REFERENCE}`, { token: b.apiToken }).then(ok),
    h.call('GET', '/api/collections?per_page=100', { token: b.apiToken }).then(ok),
    h.call('GET', '/api/webhooks/deliveries?per_page=100', { token: b.session }).then(ok),
  ]);
}
