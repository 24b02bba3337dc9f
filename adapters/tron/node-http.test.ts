/**
 * The node client's own HTTP (node-http.ts) answers as tronweb's HttpProvider (axios) does, request for request, against a
 * scripted node:http server: the same reply or the same classified failure (tron-errors.ts) for each kind of answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { providers } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainError } from '../../core/domain/errors.js';
import { NodeHttpEndpoint, nodeRequester, proxyConfigured } from './node-http.js';
import { nodeFailure, toPortError } from './tron-errors.js';

let server: Server;
let url: string;
const seen: { path: string; body: string; headers: Record<string, unknown> }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ path: req.url ?? '', body, headers: req.headers });
      const path = (req.url ?? '').replace(/^\/base/, '');
      if (path === '/json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: 1, echo: body }));
      if (path === '/gzip') return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(JSON.stringify({ zipped: true })));
      if (path === '/text') return void res.writeHead(200).end('<html>proxy</html>');
      if (path === '/empty') return void res.writeHead(200).end();
      if (path === '/number') return void res.writeHead(200).end('42');
      if (path === '/429') return void res.writeHead(429, { 'retry-after': '7' }).end(JSON.stringify({ Error: 'slow down' }));
      if (path === '/503') return void res.writeHead(503).end('<html>bad gateway</html>');
      if (path === '/404') return void res.writeHead(404).end('{"Error":"no such endpoint"}');
      if (path === '/301') return void res.writeHead(301, { location: '/json' }).end();
      if (path === '/reset') return void req.socket.destroy();
      if (path === '/hang') return;
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** What a request ended as: the reply, or the failure as the port would see it (code, transient, node failure, wait). */
async function outcome(request: () => Promise<unknown>): Promise<unknown> {
  try {
    return { reply: await request() };
  } catch (e) {
    const mapped = toPortError(e, 'node-read', 'x', 0) as ChainError;
    return { code: mapped.code, transient: mapped.transient, nodeCode: mapped.nodeCode, retryAfterMs: mapped.retryAfterMs, asNode: nodeFailure(e, 0) };
  }
}

describe('node-http answers as tronweb HttpProvider (axios)', () => {
  const paths = ['json', 'gzip', 'text', 'empty', 'number', '429', '503', '404', 'reset', 'hang'];
  for (const path of paths) {
    it(`${path}: the same reply or the same classified failure`, async () => {
      const ours = new NodeHttpEndpoint(`${url}/base/`, 500, { 'TRON-PRO-API-KEY': 'k' });
      const axios = new providers.HttpProvider(`${url}/base/`, 500, '', '', { 'TRON-PRO-API-KEY': 'k' });
      const body = path === 'json' ? { address: 'T1', visible: true } : {};
      const mine = await outcome(() => ours.request(path, body));
      const theirs = await outcome(() => axios.request(path, body, 'post'));
      expect(mine).toEqual(theirs);
      // The same request went out: path under the base, the API key, JSON only when there is a body.
      const [a, b] = seen.slice(-2);
      expect(a!.path).toBe(b!.path);
      expect(a!.body).toBe(b!.body);
      expect(a!.headers['tron-pro-api-key']).toBe('k');
      // (axios labels an empty POST form-urlencoded; an empty body has no type here. A body is JSON in both.)
      if (a!.body !== '') expect(a!.headers['content-type']).toBe(b!.headers['content-type']);
    });
  }

  it('a redirect is not followed: an HTTP error that is not a node failure', async () => {
    const result = await outcome(() => new NodeHttpEndpoint(url, 500).request('301', {}));
    expect(result).toMatchObject({ code: 'CHAIN-NODE-UNAVAILABLE', transient: false, nodeCode: 'HTTP_301', asNode: null });
  });

  it('a proxy in the environment keeps the provider (axios honours it)', async () => {
    expect(proxyConfigured({ HTTPS_PROXY: 'http://proxy:3128' })).toBe(true);
    expect(proxyConfigured({ http_proxy: '' })).toBe(false);
    const provider = new providers.HttpProvider(url, 500);
    const calls: string[] = [];
    const spy = { request: async <T>(path: string, body: Record<string, unknown>, method: 'post') => { calls.push(path); return provider.request<T>(path, body, method); } };
    expect(await nodeRequester(spy, url, 500, {}, { HTTP_PROXY: 'http://127.0.0.1:1' }).request('json', {})).toMatchObject({ ok: 1 });
    expect(calls).toEqual(['json']);
    expect(nodeRequester(spy, url, 500, {}, {})).toBeInstanceOf(NodeHttpEndpoint);
  });
});
