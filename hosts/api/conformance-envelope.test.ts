import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TronWebChainGateway } from '../../adapters/tron/tronweb-chain-gateway.js';
import { startHarness, type ApiHarness } from './test-harness.js';
import { cacheCollectable, createWallet, expectAnswersDocumented, fails, ok, userWithWallets } from './api-test-fixtures.js';

type User = Awaited<ReturnType<typeof userWithWallets>>;

/** A concrete path for a route pattern (parameters filled with a placeholder that names nothing). */
function concrete(path: string): string {
  return path.replace(/:[A-Za-z]+/g, 'nothing-here');
}

/** Sends a body in chunks without Content-Length (chunked transfer encoding), so only the counted bytes can refuse it. */
function postChunked(url: string, token: string, chunks: number, chunkBytes: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.write('{"network_code":"');
    const write = (i: number): void => {
      if (i >= chunks) {
        req.end('"}');
        return;
      }
      req.write('x'.repeat(chunkBytes), () => write(i + 1));
    };
    write(0);
  });
}

/** Spec §1/§7 envelope and DESIGN.md validation rules across the whole route table. */
describe('envelope, authentication and transport errors', () => {
  let h: ApiHarness;
  let u: User;

  beforeAll(async () => {
    h = await startHarness((devnet) => {
      const real = new TronWebChainGateway({ fullHost: devnet.url, usdtContract: devnet.usdtAddress });
      // A chain whose resource query crashes with a raw error that carries internals: the host must hide them.
      const broken = Object.create(real) as TronWebChainGateway;
      broken.getResources = () => Promise.reject(new TypeError('boom in /srv/secret/path.ts:42 with key 0xdeadbeef'));
      return { chain: broken };
    });
    u = await userWithWallets(h);
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('every authenticated route answers 401 with the envelope and data {} when no token is sent', async () => {
    for (const route of h.host.routes.filter((r) => r.auth !== 'none')) {
      const res = await h.call(route.method, concrete(route.path));
      fails(res, 401, route.auth === 'cashier' ? 'CASHIER-TOKEN-MISSING' : 'UNAUTHENTICATED');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]+$/);
    }
  });

  it('a token of the wrong kind is 403 FORBIDDEN; an unknown one of the right prefix is 401', async () => {
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: u.apiToken, body: { address: await createWallet(h, u, 2) } }), 201).token as string;
    const kinds = { developer: u.apiToken, session: u.session, admin: h.adminToken, cashier: ct } as const;
    for (const route of h.host.routes.filter((r) => r.auth === 'developer' || r.auth === 'session' || r.auth === 'admin')) {
      for (const [kind, token] of Object.entries(kinds)) {
        if (kind === route.auth) continue;
        fails(await h.call(route.method, concrete(route.path), { token }), 403, 'FORBIDDEN');
      }
    }
    fails(await h.call('GET', '/api/wallets', { token: 'dk_unknown' }), 401, 'UNAUTHENTICATED');
    fails(await h.call('GET', '/api/subscriptions/config/developer', { token: 'st_unknown' }), 401, 'UNAUTHENTICATED');
    fails(await h.call('GET', '/api/wallets', { headers: { authorization: `Basic ${u.apiToken}` } }), 401, 'UNAUTHENTICATED');
  });

  it('unknown route → 404 NOT-FOUND; known path with another method → 405 with Allow', async () => {
    fails(await h.call('GET', '/api/nothing'), 404, 'NOT-FOUND');
    fails(await h.call('GET', '/elsewhere'), 404, 'NOT-FOUND');
    const res = await h.call('PATCH', '/api/wallets');
    fails(res, 405, 'METHOD-NOT-ALLOWED');
    expect(res.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
    fails(await h.call('DELETE', `/api/wallets/${u.sub}`, { token: u.apiToken }), 405, 'METHOD-NOT-ALLOWED');
  });

  it('HEAD answers like GET without a body: same status and headers, limits counted', async () => {
    const get = await h.call('GET', '/api/healthz');
    const head = await h.call('HEAD', '/api/healthz');
    expect({ status: head.status, text: head.text, type: head.headers.get('content-type') }).toEqual({ status: 200, text: '', type: get.headers.get('content-type') });
    const limited = await h.call('HEAD', '/api/wallets', { token: u.apiToken });
    expect(limited.status).toBe(200);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('60');
    expect((await h.call('HEAD', '/api/wallets')).status).toBe(401);
    expect((await h.call('HEAD', '/api/transfers')).status).toBe(405);
  });

  it('malformed JSON, a non-object body and a wrong field type → 422 VALIDATION-ERROR naming the field', async () => {
    for (const rawBody of ['{"network_code": ', '[1,2]', '"text"', 'null', '{bad json}']) {
      const res = await h.call('POST', '/api/wallets', { token: u.apiToken, rawBody, headers: { 'content-type': 'application/json' } });
      fails(res, 422, 'VALIDATION-ERROR');
      expect(res.json.message).toContain('body');
    }
    const typed = await h.call('POST', '/api/wallets', { token: u.apiToken, body: { network_code: 7, address_type: 1 } });
    fails(typed, 422, 'VALIDATION-ERROR');
    expect(typed.json.message).toContain('network_code');
  });

  it('a body nested deeper than 32 levels → 422 naming body, on idempotent routes too (never a stack overflow)', async () => {
    const u = await userWithWallets(h);
    await cacheCollectable(h, u.sub);
    const nested = (depth: number): string => `{"address":"${u.sub}","asset_symbol":"TRX","x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    for (const depth of [31, 30_000]) {
      const headers = { 'content-type': 'application/json', 'idempotency-key': `deep-${depth}` };
      const res = await h.call('POST', '/api/collections', { token: u.apiToken, rawBody: nested(depth), headers });
      if (depth === 31) {
        expect(res.status).toBe(201);
        continue;
      }
      fails(res, 422, 'VALIDATION-ERROR');
      expect(res.json.message).toContain('body');
    }
    // Brackets inside strings are text, not nesting.
    const label = '['.repeat(100);
    const res = await h.call('POST', '/api/wallets', { token: u.apiToken, body: { network_code: 'TRON', address_type: 2, address_label: label } });
    expect(res.status).toBe(201);
  });

  it('bodies over 64 KiB → 413, declared or chunked; exactly 64 KiB is read', async () => {
    const big = JSON.stringify({ network_code: 'x'.repeat(64 * 1024) });
    fails(await h.call('POST', '/api/wallets', { token: u.apiToken, rawBody: big, headers: { 'content-type': 'application/json' } }), 413, 'PAYLOAD-TOO-LARGE');
    const chunked = await postChunked(`${h.url}/api/wallets`, u.apiToken, 17, 4096);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toEqual({ code: 'PAYLOAD-TOO-LARGE', message: expect.any(String), data: {} });
    const padding = 64 * 1024 - JSON.stringify({ network_code: 'BTC', address_type: 1, pad: '' }).length;
    const exact = JSON.stringify({ network_code: 'BTC', address_type: 1, pad: 'y'.repeat(padding) });
    expect(Buffer.byteLength(exact)).toBe(64 * 1024);
    fails(await h.call('POST', '/api/wallets', { token: u.apiToken, rawBody: exact, headers: { 'content-type': 'application/json' } }), 422, 'BIZ-NETWORK-NOT-FOUND');
  });

  it('a client that aborts mid-body is a client error: 422 on the request line, no 500 and no error-level log', async () => {
    const port = Number(new URL(h.url).port);
    const before = h.logLines.length;
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`POST /api/wallets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${u.apiToken}\r\nX-Request-Id: aborted-1\r\n`
      + 'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"netw');
    // The request is in the server once its headers are parsed; a second request on another connection proves it.
    await h.call('GET', '/api/healthz');
    socket.destroy();
    let line: Record<string, unknown> | undefined;
    // Waits for the server to notice the closed socket (an event, polled; bounded at 5 s).
    for (let i = 0; i < 500 && line === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      line = h.logLines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['reqId'] === 'aborted-1' && l['msg'] === 'request');
    }
    expect(line).toMatchObject({ status: 422, code: 'VALIDATION-ERROR' });
    expect(h.logLines.slice(before).filter((l) => (JSON.parse(l) as { level: number }).level >= 50)).toEqual([]);
  });

  it('an unexpected error → 500 INTERNAL-ERROR with no internals; logged under the request id', async () => {
    const res = await h.call('GET', `/api/wallets/${u.main}/resources`, { token: u.apiToken, headers: { 'x-request-id': 'req-500-probe' } });
    fails(res, 500, 'INTERNAL-ERROR');
    expect(res.text).not.toMatch(/boom|secret|deadbeef|TypeError/);
    expect(res.headers.get('x-request-id')).toBe('req-500-probe');
    const logged = h.logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['reqId'] === 'req-500-probe');
    expect(logged.some((l) => l['level'] === 50 && JSON.stringify(l).includes('boom'))).toBe(true);
  });

  it('malformed percent-encoding in the path → 422 with the envelope', async () => {
    for (const path of ['/api/wallets/%E0%A4%A', '/api/collections/%FF', '/api/wallets/%ZZ/balances']) {
      const res = await h.call('GET', path, { token: u.apiToken });
      fails(res, 422, 'VALIDATION-ERROR');
      expect(res.json.message).toContain('path');
    }
  });

  it('a successful answer is the envelope with code OK and message success', async () => {
    const res = await h.call('GET', '/api/wallets', { token: u.apiToken });
    expect(Object.keys(res.json).sort()).toEqual(['code', 'data', 'message']);
    expect(ok(res).items.map((w: { address: string }) => w.address)).toEqual(expect.arrayContaining([u.main, u.sub]));
  });

  it('no answer may be cached or type-sniffed: tokens are shown once', async () => {
    const answers = [
      await h.call('POST', '/api/api-tokens', { token: u.session, body: { name: 'cache' } }),
      await h.call('GET', '/api/wallets', { token: u.apiToken }),
      await h.call('GET', '/api/wallets'),
      await h.call('GET', '/api/nothing'),
      await h.call('GET', '/api/wallets/%ZZ'),
      await h.call('GET', '/cashier'),
    ];
    for (const res of answers) {
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});
