import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from '../test-harness.js';
import { cacheCollectable, userWithWallets } from '../api-test-fixtures.js';
import { createCustodyClient, CustodyApiError, isCustodyApiError, isIdempotentRoute, newIdempotencyKey, paginate, retryAfterMs, type CustodyClientOptions, type Schema } from '../../../packages/client/src/client.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The typed client against the real API (the harness: memory adapters, a manual clock, a devnet), no mocks. */
describe('@custody-hub/client against the API', () => {
  let h: ApiHarness;
  /** What reached the wire: each request's method, path and Idempotency-Key, in order. */
  let sent: { method: string; path: string; key: string | null }[];
  /** Every wait the client asked for (the sleep moves the harness clock instead of sleeping). */
  let waits: number[];

  function clientFor(token: string, options: Partial<CustodyClientOptions> = {}) {
    return createCustodyClient({
      baseUrl: h.url, token,
      fetch: (request) => {
        sent.push({ method: request.method, path: new URL(request.url).pathname, key: request.headers.get('idempotency-key') });
        return fetch(request);
      },
      retry: { sleep: (ms) => { waits.push(ms); h.clock.advance(ms); return Promise.resolve(); } },
      ...options,
    });
  }

  /** A user whose sub-address holds what a collection accepts (cached). */
  async function collector(): Promise<Awaited<ReturnType<typeof userWithWallets>>> {
    const u = await userWithWallets(h);
    await cacheCollectable(h, u.sub);
    return u;
  }

  beforeAll(async () => {
    // One collection per minute: the second call of a window is a 429 with Retry-After.
    h = await startHarness({ rateLimits: { 'collection-create': 1 } });
  });
  afterAll(async () => { await h.close(); });

  it('adds an Idempotency-Key to idempotent routes only; a caller-supplied key is a replay, not a second collection', async () => {
    const u = await collector();
    sent = []; waits = [];
    const hub = clientFor(u.apiToken);
    const created = await hub.unwrap(hub.POST('/api/collections', { body: { address: u.sub, asset_symbol: 'USDT' } }));
    expect(sent[0]?.key).toMatch(UUID);
    await hub.unwrap(hub.GET('/api/wallets'));
    expect(sent[1]).toEqual({ method: 'GET', path: '/api/wallets', key: null });

    h.clock.advance(60_000);
    const key = 'order-42-collect';
    const other = await hub.unwrap(hub.POST('/api/wallets', { body: { network_code: 'TRON', address_type: 2 } }));
    await cacheCollectable(h, other.address);
    sent = [];
    const first = await hub.POST('/api/collections', { params: { header: { 'Idempotency-Key': key } }, body: { address: other.address, asset_symbol: 'USDT' } });
    const again = await hub.POST('/api/collections', { params: { header: { 'Idempotency-Key': key } }, body: { address: other.address, asset_symbol: 'USDT' } });
    expect(first.response.status).toBe(201);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data?.data.task_no).toBe(first.data?.data.task_no);
    expect(first.data?.data.task_no).not.toBe(created.task_no);
    expect(sent.map((s) => s.key)).toEqual([key, key]);
    const collections = await hub.unwrap(hub.GET('/api/commands', { params: { query: { type: 3, per_page: 100 } } }));
    expect(collections.items).toHaveLength(2);
  });

  it('a reply lost on the way back: the caller retries with its own key and gets the stored answer (one collection)', async () => {
    const u = await collector();
    sent = []; waits = [];
    let lose = true;
    const flaky = clientFor(u.apiToken, {
      fetch: async (request) => {
        sent.push({ method: request.method, path: new URL(request.url).pathname, key: request.headers.get('idempotency-key') });
        const response = await fetch(request);
        if (lose && request.method === 'POST') { lose = false; throw new TypeError('fetch failed (connection reset after the server answered)'); }
        return response;
      },
    });
    const key = newIdempotencyKey();
    const call = () => flaky.unwrap(flaky.POST('/api/collections', { params: { header: { 'Idempotency-Key': key } }, body: { address: u.sub, asset_symbol: 'USDT' } }));
    await expect(call()).rejects.toThrow(/connection reset/);
    const retried = await call();
    expect(sent.map((s) => s.key)).toEqual([key, key]);
    const collections = await flaky.unwrap(flaky.GET('/api/commands', { params: { query: { type: 3 } } }));
    expect(collections.items.map((c) => c.command_no)).toEqual([retried.command_no]);
  });

  it('a 429 is retried after its Retry-After with the same key (recorded waits, no real sleep)', async () => {
    const u = await collector();
    sent = []; waits = [];
    const hub = clientFor(u.apiToken);
    const other = await hub.unwrap(hub.POST('/api/wallets', { body: { network_code: 'TRON', address_type: 2 } }));
    await cacheCollectable(h, other.address);
    sent = [];
    await hub.unwrap(hub.POST('/api/collections', { body: { address: u.sub, asset_symbol: 'USDT' } }));
    const second = await hub.POST('/api/collections', { body: { address: other.address, asset_symbol: 'USDT' } });
    expect(second.response.status).toBe(201);
    expect(sent.map((s) => s.path)).toEqual(['/api/collections', '/api/collections', '/api/collections']);
    // The retry resends the key of the 429'd call (new to the server: it was refused before it was stored).
    expect(sent[2]?.key).toBe(sent[1]?.key);
    expect(sent[1]?.key).not.toBe(sent[0]?.key);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThanOrEqual(60_000);
    expect(waits[0]! % 1000).toBe(0);
  });

  it('gives up with the typed RATE-LIMITED error when Retry-After exceeds maxWaitMs, or attempts run out', async () => {
    const u = await collector();
    sent = []; waits = [];
    const impatient = clientFor(u.apiToken, { retry: { maxWaitMs: 0, sleep: () => Promise.reject(new Error('must not wait')) } });
    await impatient.unwrap(impatient.POST('/api/collections', { body: { address: u.sub, asset_symbol: 'USDT' } }));
    const refused = await impatient.unwrap(impatient.POST('/api/collections', { body: { address: u.sub, asset_symbol: 'USDT' } })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CustodyApiError);
    expect(refused).toMatchObject({ code: 'RATE-LIMITED', status: 429 });
    expect((refused as CustodyApiError).retryAfterSeconds).toBeGreaterThan(0);
    const once = clientFor(u.apiToken, { retry: false });
    const result = await once.POST('/api/collections', { body: { address: u.sub, asset_symbol: 'USDT' } });
    expect(result.response.status).toBe(429);
    expect(result.error?.code).toBe('RATE-LIMITED');
    expect(sent).toHaveLength(3);
  });

  it('paginates {items, pagination} (wallets) and {data, meta} (cashier tokens) across several pages', async () => {
    const u = await userWithWallets(h);
    sent = []; waits = [];
    const hub = clientFor(u.apiToken);
    for (const label of ['a', 'b', 'c']) await hub.unwrap(hub.POST('/api/wallets', { body: { network_code: 'TRON', address_type: 2, address_label: label } }));
    const wallets: Schema<'Wallet'>[] = [];
    for await (const wallet of paginate((page) => hub.GET('/api/wallets', { params: { query: { page, per_page: 2 } } }))) wallets.push(wallet);
    expect(wallets).toHaveLength(5);
    expect(new Set(wallets.map((w) => w.address)).size).toBe(5);
    expect(sent.filter((s) => s.path === '/api/wallets' && s.method === 'GET')).toHaveLength(3);

    // One active cashier token per sub-address: four tokens, a page each.
    const subs = wallets.filter((w) => w.address_type === 2);
    for (const sub of subs) await hub.unwrap(hub.POST('/api/cashier/tokens', { body: { address: sub.address, ttl_minutes: 60 } }));
    const tokens: string[] = [];
    for await (const token of hub.paginate((page) => hub.GET('/api/cashier/tokens', { params: { query: { page, per_page: 1 } } }))) tokens.push(token.address);
    expect(tokens.sort()).toEqual(subs.map((w) => w.address).sort());
    expect(sent.filter((s) => s.path === '/api/cashier/tokens' && s.method === 'GET')).toHaveLength(4);

    const none: unknown[] = [];
    for await (const command of hub.paginate((page) => hub.GET('/api/commands', { params: { query: { page, type: 8 } } }))) none.push(command);
    expect(none).toEqual([]);
  });

  it('surfaces the failure envelope as typed errors', async () => {
    const u = await userWithWallets(h);
    const hub = clientFor(u.apiToken);
    const result = await hub.GET('/api/wallets/{address}', { params: { path: { address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' } } });
    // Compile-time: the code is one of the operation's documented codes.
    const documented: NonNullable<typeof result.error>['code'] = 'BIZ-WALLET-ADDRESS-NOT-FOUND';
    expect(result.error).toMatchObject({ code: documented, data: {} });
    const thrown = await hub.unwrap(result).catch((e: unknown) => e);
    expect(isCustodyApiError(thrown, 'BIZ-WALLET-ADDRESS-NOT-FOUND')).toBe(true);
    expect(thrown).toMatchObject({ status: 404, name: 'CustodyApiError' });
    expect((thrown as CustodyApiError).requestId).toEqual(expect.any(String));
    const anonymous = createCustodyClient({ baseUrl: h.url });
    await expect(anonymous.unwrap(anonymous.GET('/api/wallets'))).rejects.toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
  });

  it('finds idempotent routes under a base path prefix; waits only on a Retry-After in seconds', () => {
    expect(isIdempotentRoute('POST', '/api/wallets/TXYZ/stake')).toBe(true);
    expect(isIdempotentRoute('post', '/custody/api/collections')).toBe(true);
    expect(isIdempotentRoute('GET', '/api/collections/T1')).toBe(false);
    expect(isIdempotentRoute('POST', '/api/wallets')).toBe(false);
    expect(retryAfterMs('7')).toBe(7000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs('Wed, 21 Oct 2026 07:28:00 GMT')).toBeNull();
  });
});
