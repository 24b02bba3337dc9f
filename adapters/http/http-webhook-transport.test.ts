import { runs } from '../../contracts-tests/support/depth.js';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsResolver } from '../../core/ports/dns-resolver.port.js';
import { HttpWebhookTransport } from './http-webhook-transport.js';
import { startLocalReceiver, type LocalWebhookReceiver } from './local-webhook-receiver.js';
import { makeTestCertificate } from './test-certificate.js';

/** A resolver with fixed answers that counts its calls (DNS itself is not under test; what is done with it is). */
class FixedResolver implements DnsResolver {
  calls = 0;
  constructor(private readonly answers: Record<string, string[]>) {}
  async resolve(host: string): Promise<string[]> {
    this.calls += 1;
    const found = this.answers[host];
    if (found === undefined) throw new Error(`no answer for ${host}`);
    return found;
  }
}

const request = (url: string) => ({
  url,
  headers: { 'Content-Type': 'application/json', 'X-Event-Id': 'e-1', 'X-Event-Type': 'webhook.test', 'X-Webhook-Signature': 'sha256=00' },
  body: '{"event_id":"e-1","note":"déjà ✓"}',
});

const REPLIES: Record<string, number> = { '/ok': 200, '/no-content': 204, '/bad': 400, '/gone': 410, '/err': 500, '/busy': 503, '/redirect': 302 };

let receiver: LocalWebhookReceiver;
beforeAll(async () => {
  receiver = await startLocalReceiver((r) => {
    if (r.path === '/hang') return 'hang';
    const status = REPLIES[r.path] ?? 404;
    return status === 302 ? { status, headers: { Location: '/ok' } } : { status };
  });
});
afterAll(async () => {
  receiver.release();
  await receiver.close();
});

const local = (extra: Partial<ConstructorParameters<typeof HttpWebhookTransport>[0]> = {}) =>
  new HttpWebhookTransport({ resolver: new FixedResolver({}), allowLocal: true, ...extra });

describe('HttpWebhookTransport against a real local receiver (allowLocal)', () => {
  it('posts the body and headers unchanged, and maps 2xx to ok and 4xx/5xx to failures with the status', async () => {
    const transport = local();
    const before = receiver.received.length;
    const results = await Promise.all(Object.keys(REPLIES).filter((p) => p !== '/redirect').map(async (path) => ({
      path, result: await transport.post(request(`${receiver.origin}${path}`)),
    })));
    for (const { path, result } of results) {
      expect(result.status).toBe(REPLIES[path]);
      expect(result.ok).toBe(REPLIES[path]! >= 200 && REPLIES[path]! < 300);
      if (!result.ok) expect(result.error).toBe(`HTTP ${REPLIES[path]}`);
      expect(result.durationMs).toBeGreaterThanOrEqual(0);
    }
    const seen = receiver.received.slice(before).find((r) => r.path === '/ok')!;
    expect(seen.body).toBe(request('x').body);
    expect(seen.headers['x-event-id']).toBe('e-1');
    expect(seen.headers['x-webhook-signature']).toBe('sha256=00');
    expect(seen.headers['content-type']).toBe('application/json');
  });

  it('does not follow a redirect: the 3xx is a failure and the Location is never requested', async () => {
    const before = receiver.received.length;
    const result = await local().post(request(`${receiver.origin}/redirect`));
    expect(result).toMatchObject({ ok: false, status: 302, error: 'redirect not followed (HTTP 302)' });
    expect(receiver.received.slice(before).map((r) => r.path)).toEqual(['/redirect']);
  });

  it('gives up at the total timeout when the receiver never answers', async () => {
    const result = await local({ timeoutMs: 150 }).post(request(`${receiver.origin}/hang`));
    expect(result.ok).toBe(false);
    expect(result.status).toBeNull();
    expect(!result.ok && result.error).toMatch(/^timeout/);
    expect(result.durationMs).toBeGreaterThanOrEqual(140);
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it('reports a refused connection as an error, without throwing', async () => {
    const closed = await startLocalReceiver();
    await closed.close();
    const result = await local().post(request(`${closed.origin}/ok`));
    expect(result).toMatchObject({ ok: false, status: null, error: 'connection failed: ECONNREFUSED' });
  });

  it('reads the status and drops an oversized response body instead of buffering it', async () => {
    let finished = false;
    const big: Server = createServer((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 120);
      let sent = 0;
      const pump = (): void => {
        while (sent < 64 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end(() => { finished = true; });
      };
      res.on('close', () => undefined);
      pump();
    });
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    const { port } = big.address() as AddressInfo;
    const result = await local({ maxResponseBytes: 1024 }).post(request(`http://127.0.0.1:${port}/`));
    expect(result).toMatchObject({ ok: true, status: 200 });
    big.closeAllConnections();
    await new Promise((resolve) => big.close(resolve));
    expect(finished).toBe(false);
  });

  it('connects to the resolved (checked) address, not to what the name would otherwise resolve to, resolving once', async () => {
    // The receiver listens on 127.0.0.2 only; nothing but the pinned answer can lead there for this name.
    const pinned = await startLocalReceiver(undefined, '127.0.0.2');
    const resolver = new FixedResolver({ 'hooks.localhost': ['127.0.0.2'] });
    const transport = new HttpWebhookTransport({ resolver, allowLocal: true });
    const result = await transport.post(request(`http://hooks.localhost:${pinned.port}/pinned`));
    await pinned.close();
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(resolver.calls).toBe(1);
    expect(pinned.received[0]?.headers.host).toBe(`hooks.localhost:${pinned.port}`);
  });

  it('refuses a name that resolves to a non-loopback private address even with allowLocal', async () => {
    const resolver = new FixedResolver({ 'hooks.localhost': ['127.0.0.1', '10.0.0.7'] });
    const before = receiver.connections;
    const result = await new HttpWebhookTransport({ resolver, allowLocal: true }).post(request(`http://hooks.localhost:${receiver.port}/ok`));
    expect(result).toMatchObject({ ok: false, status: null, error: 'refused: blocked address' });
    expect(receiver.connections).toBe(before);
  });
});

describe('HttpWebhookTransport SSRF refusals (production settings)', () => {
  it('refuses plain http and loopback without connecting', async () => {
    const transport = new HttpWebhookTransport({ resolver: new FixedResolver({}) });
    const before = receiver.connections;
    const http = await transport.post(request(`${receiver.origin}/ok`));
    expect(http).toMatchObject({ ok: false, status: null, error: 'refused: webhook_url: must use https' });
    const loopback = await transport.post(request('https://127.0.0.1/ok'));
    expect(loopback).toMatchObject({ ok: false, error: 'refused: blocked address' });
    const ipv6 = await transport.post(request('https://[::ffff:127.0.0.1]/ok'));
    expect(ipv6).toMatchObject({ ok: false, error: 'refused: blocked address' });
    expect(receiver.connections).toBe(before);
  });

  it('refuses a non-default https port and other schemes', async () => {
    const transport = new HttpWebhookTransport({ resolver: new FixedResolver({ 'hooks.example.com': ['93.184.216.34'] }) });
    expect(await transport.post(request('https://hooks.example.com:8443/x'))).toMatchObject({ ok: false, error: 'refused: webhook_url: must use the default https port 443' });
    expect(await transport.post(request('ftp://hooks.example.com/x'))).toMatchObject({ ok: false, error: 'refused: webhook_url: must use https' });
  });

  it('reports a failed resolution as an error', async () => {
    const transport = new HttpWebhookTransport({ resolver: new FixedResolver({}) });
    expect(await transport.post(request('https://unknown.example.com/x'))).toMatchObject({ ok: false, status: null, error: 'dns: unknown.example.com could not be resolved' });
  });

  it('refuses any name whose answer contains a private, loopback, link-local or CGNAT address (pinning cannot be bypassed)', async () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const blocked = fc.oneof(
      fc.tuple(octet, octet, octet).map(([a, b, c]) => `10.${a}.${b}.${c}`),
      fc.tuple(octet, octet).map(([a, b]) => `192.168.${a}.${b}`),
      fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([a, b, c]) => `172.${a}.${b}.${c}`),
      fc.tuple(octet, octet).map(([a, b]) => `169.254.${a}.${b}`),
      fc.tuple(fc.integer({ min: 64, max: 127 }), octet, octet).map(([a, b, c]) => `100.${a}.${b}.${c}`),
      fc.tuple(octet, octet, octet).map(([a, b, c]) => `127.${a}.${b}.${c}`),
      fc.constantFrom('::1', '::', 'fe80::1', 'fd00::5', '::ffff:10.0.0.1', '::ffff:169.254.169.254'),
    );
    await fc.assert(fc.asyncProperty(blocked, fc.boolean(), async (address, withPublic) => {
      const answer = withPublic ? ['93.184.216.34', address] : [address];
      const resolver = new FixedResolver({ 'hooks.example.com': answer });
      const result = await new HttpWebhookTransport({ resolver }).post(request('https://hooks.example.com/x'));
      expect(result).toMatchObject({ ok: false, status: null, error: 'refused: blocked address' });
      expect(resolver.calls).toBe(1);
    }), { numRuns: runs(100) });
  });
});

describe('HttpWebhookTransport over TLS (self-signed certificate made in the test)', () => {
  const cert = makeTestCertificate(['hooks.test'], Date.now());
  let server: ReturnType<typeof createHttpsServer>;
  let port = 0;
  const seen: { servername: string | false | null; host: string | undefined }[] = [];
  beforeAll(async () => {
    server = createHttpsServer({ key: cert.key, cert: cert.cert }, (req, res) => {
      seen.push({ servername: (req.socket as TLSSocket).servername, host: req.headers.host });
      req.resume();
      req.on('end', () => res.writeHead(202).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const tls = (names: Record<string, string[]>, ca: string | undefined) => new HttpWebhookTransport({
    resolver: new FixedResolver(names), allowLocal: true, testConnectPort: port, ...(ca === undefined ? {} : { ca }),
  });

  it('delivers over https to the pinned address while verifying the certificate against the URL host (SNI set)', async () => {
    const result = await tls({ 'hooks.test': ['127.0.0.1'] }, cert.cert).post(request('https://hooks.test/in'));
    expect(result).toMatchObject({ ok: true, status: 202 });
    expect(seen.at(-1)).toEqual({ servername: 'hooks.test', host: 'hooks.test' });
  });

  it('fails when the certificate does not name the host', async () => {
    const result = await tls({ 'other.test': ['127.0.0.1'] }, cert.cert).post(request('https://other.test/in'));
    expect(result).toMatchObject({ ok: false, status: null, error: 'connection failed: ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('fails when the certificate is not trusted', async () => {
    const result = await tls({ 'hooks.test': ['127.0.0.1'] }, undefined).post(request('https://hooks.test/in'));
    expect(result).toMatchObject({ ok: false, status: null, error: 'connection failed: DEPTH_ZERO_SELF_SIGNED_CERT' });
  });
});
