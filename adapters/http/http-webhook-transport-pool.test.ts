import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { DnsResolver } from '../../core/ports/dns-resolver.port.js';
import { HttpWebhookTransport } from './http-webhook-transport.js';
import { makeTestCertificate, type TestCertificate } from './test-certificate.js';

/**
 * Adapter-only: https keep-alive and TLS session reuse per pinned address. Reuse must never skip this attempt's
 * resolve + deny-list check, never cross to another address or name, never survive a deadline or the response cap,
 * and never let a bad certificate through. Counts come from the receivers' own sockets; no timed assertions.
 */

const HOST = 'hooks.test';
const trusted = makeTestCertificate([HOST, 'other.test'], Date.now());
const trustedOnlyHooks = makeTestCertificate([HOST], Date.now());
const untrusted = makeTestCertificate([HOST], Date.now());

/** A resolver whose answer the test changes between attempts, counting its calls. */
class SwitchingResolver implements DnsResolver {
  calls = 0;
  constructor(public answer: string[]) {}
  async resolve(): Promise<string[]> {
    this.calls += 1;
    return this.answer;
  }
}

interface TlsReceiver {
  readonly server: Server;
  readonly port: number;
  /** TLS connections accepted, of them resumed sessions, and sockets open now. */
  connections: number;
  resumed: number;
  readonly open: Set<Socket>;
  readonly paths: string[];
}

const running: TlsReceiver[] = [];
const transports: HttpWebhookTransport[] = [];
afterEach(async () => {
  for (const transport of transports.splice(0)) transport.close();
  await Promise.all(running.splice(0).map((rx) => {
    rx.server.closeAllConnections();
    return new Promise((resolve) => rx.server.close(resolve));
  }));
});

/**
 * An https receiver on `host`:`port` (0 = any). `/hang` never answers; `/big` sends 256 KiB on a keep-alive reply;
 * `/drop-reused` drops the connection without answering when it arrives on an already used connection.
 */
async function receiver(cert: TestCertificate, host = '127.0.0.1', port = 0): Promise<TlsReceiver> {
  const requestsOn = new WeakMap<object, number>();
  const server = createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    rx.paths.push(req.url ?? '/');
    const served = (requestsOn.get(req.socket) ?? 0) + 1;
    requestsOn.set(req.socket, served);
    req.resume();
    req.on('end', () => {
      if (req.url === '/hang') return;
      if (req.url === '/drop-reused' && served > 1) return void req.socket.destroy();
      if (req.url === '/big') {
        res.writeHead(200, { 'content-length': String(256 * 1024) });
        res.end(Buffer.alloc(256 * 1024, 97));
        return;
      }
      res.writeHead(200).end('ok');
    });
  });
  const rx: TlsReceiver = { server, port: 0, connections: 0, resumed: 0, open: new Set(), paths: [] };
  server.on('secureConnection', (socket: TLSSocket) => {
    rx.connections += 1;
    if (socket.isSessionReused()) rx.resumed += 1;
    rx.open.add(socket);
    socket.on('close', () => rx.open.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  running.push(rx);
  return Object.assign(rx, { port: (server.address() as AddressInfo).port });
}

function transport(resolver: DnsResolver, port: number, extra: { timeoutMs?: number; maxResponseBytes?: number } = {}): HttpWebhookTransport {
  const made = new HttpWebhookTransport({ resolver, allowLocal: true, testConnectPort: port, ca: trusted.cert, ...extra });
  transports.push(made);
  return made;
}

const post = (t: HttpWebhookTransport, path = '/in', host = HOST) =>
  t.post({ url: `https://${host}${path}`, headers: { 'Content-Type': 'application/json' }, body: '{"event_id":"e-1"}' });

async function eventually(check: () => boolean, ms = 2_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('HttpWebhookTransport https pool: the check runs on every attempt', () => {
  it('resolves and checks the host on every attempt while the requests share one kept-alive connection', async () => {
    const rx = await receiver(trusted);
    const resolver = new SwitchingResolver(['127.0.0.1']);
    const t = transport(resolver, rx.port);
    for (let i = 0; i < 5; i += 1) expect(await post(t)).toMatchObject({ ok: true, status: 200 });
    expect(resolver.calls).toBe(5);
    expect(rx.paths).toHaveLength(5);
    expect(rx.connections).toBe(1);
  });

  it('refuses a DNS change to a denied address although a warm connection to the old address is idle in the pool', async () => {
    const rx = await receiver(trusted);
    const resolver = new SwitchingResolver(['127.0.0.1']);
    const t = transport(resolver, rx.port);
    expect(await post(t)).toMatchObject({ ok: true });
    for (const answer of [['10.0.0.7'], ['127.0.0.1', '169.254.169.254'], ['192.168.1.1']]) {
      resolver.answer = answer;
      expect(await post(t), answer.join()).toMatchObject({ ok: false, status: null, error: 'refused: blocked address' });
    }
    expect(rx.paths).toHaveLength(1);
    expect(rx.connections).toBe(1);
    // Back on the allowed address the warm connection serves again: refusals did not disturb the pool.
    resolver.answer = ['127.0.0.1'];
    expect(await post(t)).toMatchObject({ ok: true });
    expect(rx.connections).toBe(1);
    expect(resolver.calls).toBe(5);
  });

  it('a change of address opens a connection to the new address and never reuses the old one', async () => {
    const a = await receiver(trusted, '127.0.0.1');
    const b = await receiver(trusted, '127.0.0.2', a.port);
    const resolver = new SwitchingResolver(['127.0.0.1']);
    const t = transport(resolver, a.port);
    expect(await post(t, '/a1')).toMatchObject({ ok: true });
    resolver.answer = ['127.0.0.2'];
    expect(await post(t, '/b1')).toMatchObject({ ok: true });
    expect(await post(t, '/b2')).toMatchObject({ ok: true });
    resolver.answer = ['127.0.0.1'];
    expect(await post(t, '/a2')).toMatchObject({ ok: true });
    expect(a.paths).toEqual(['/a1', '/a2']);
    expect(b.paths).toEqual(['/b1', '/b2']);
    expect([a.connections, b.connections]).toEqual([1, 1]);
    // A's TLS session was not offered to B either: B did a full handshake.
    expect(b.resumed).toBe(0);
  });
});

describe('HttpWebhookTransport https pool: deadline and response cap still hold', () => {
  it('a pooled connection that hits the deadline is destroyed, and the next attempt opens a new one', async () => {
    const rx = await receiver(trusted);
    const t = transport(new SwitchingResolver(['127.0.0.1']), rx.port, { timeoutMs: 1_500 });
    expect(await post(t)).toMatchObject({ ok: true });
    const hung = await post(t, '/hang');
    expect(hung).toMatchObject({ ok: false, status: null });
    expect(!hung.ok && hung.error).toMatch(/^timeout/);
    // The hung request went over the warm connection, and that connection is gone.
    expect(rx.connections).toBe(1);
    await eventually(() => rx.open.size === 0);
    expect(rx.open.size).toBe(0);
    expect(await post(t)).toMatchObject({ ok: true });
    expect(rx.connections).toBe(2);
  });

  it('a response over the cap drops its connection (never pooled); a complete one within the cap is kept', async () => {
    const rx = await receiver(trusted);
    const t = transport(new SwitchingResolver(['127.0.0.1']), rx.port, { maxResponseBytes: 64 * 1024 });
    expect(await post(t, '/small')).toMatchObject({ ok: true, status: 200 });
    expect(await post(t, '/big')).toMatchObject({ ok: true, status: 200 });
    expect(rx.connections).toBe(1);
    await eventually(() => rx.open.size === 0);
    expect(rx.open.size).toBe(0);
    expect(await post(t, '/small')).toMatchObject({ ok: true });
    expect(await post(t, '/small')).toMatchObject({ ok: true });
    expect(rx.connections).toBe(2);
    expect(rx.open.size).toBe(1);
  });

  it('when the receiver closes the idle connection, the next attempt connects again and resumes the TLS session', async () => {
    const rx = await receiver(trusted);
    const t = transport(new SwitchingResolver(['127.0.0.1']), rx.port);
    expect(await post(t)).toMatchObject({ ok: true });
    rx.server.closeIdleConnections();
    await eventually(() => rx.open.size === 0);
    expect(await post(t)).toMatchObject({ ok: true });
    expect([rx.connections, rx.resumed]).toEqual([2, 1]);
  });
});

describe('HttpWebhookTransport https pool: a pooled connection the receiver already dropped', () => {
  it('is retried on a fresh connection within the same attempt, to the address this attempt checked', async () => {
    const rx = await receiver(trusted);
    const resolver = new SwitchingResolver(['127.0.0.1']);
    const t = transport(resolver, rx.port);
    expect(await post(t, '/drop-reused')).toMatchObject({ ok: true });
    expect(await post(t, '/drop-reused')).toMatchObject({ ok: true, status: 200 });
    expect(resolver.calls).toBe(2);
    expect(rx.connections).toBe(2);
    expect(rx.paths).toEqual(['/drop-reused', '/drop-reused', '/drop-reused']);
  });
});

describe('HttpWebhookTransport https pool: certificate verification with a warm pool and a cached session', () => {
  it('another name on the same address is verified on its own connection and fails when the certificate does not name it', async () => {
    const rx = await receiver(trustedOnlyHooks);
    const t = new HttpWebhookTransport({
      resolver: new SwitchingResolver(['127.0.0.1']), allowLocal: true, testConnectPort: rx.port, ca: trustedOnlyHooks.cert,
    });
    transports.push(t);
    expect(await post(t)).toMatchObject({ ok: true });
    expect(await post(t, '/in', 'other.test')).toMatchObject({ ok: false, status: null, error: 'connection failed: ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(rx.paths).toEqual(['/in']);
  });

  it('a DNS change to a receiver with an untrusted certificate fails verification despite the warm pool', async () => {
    const good = await receiver(trusted, '127.0.0.1');
    const bad = await receiver(untrusted, '127.0.0.2', good.port);
    const resolver = new SwitchingResolver(['127.0.0.1']);
    const t = transport(resolver, good.port);
    expect(await post(t)).toMatchObject({ ok: true });
    resolver.answer = ['127.0.0.2'];
    expect(await post(t)).toMatchObject({ ok: false, status: null, error: 'connection failed: DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(bad.paths).toEqual([]);
  });

  it('a receiver replaced at the same address by one with an untrusted certificate fails verification despite the cached session', async () => {
    const good = await receiver(trusted);
    const t = transport(new SwitchingResolver(['127.0.0.1']), good.port);
    expect(await post(t)).toMatchObject({ ok: true });
    good.server.closeAllConnections();
    expect(await post(t)).toMatchObject({ ok: true });
    expect(good.resumed).toBe(1);
    running.splice(running.indexOf(good), 1);
    good.server.closeAllConnections();
    await new Promise((resolve) => good.server.close(resolve));
    const impostor = await receiver(untrusted, '127.0.0.1', good.port);
    expect(await post(t)).toMatchObject({ ok: false, status: null, error: 'connection failed: DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(impostor.paths).toEqual([]);
    expect(impostor.resumed).toBe(0);
  });
});

describe('HttpWebhookTransport https pool: the reuse rule over random DNS histories', () => {
  const ANSWERS: readonly (readonly string[])[] = [['127.0.0.1'], ['127.0.0.2'], ['10.0.0.7'], ['127.0.0.1', '169.254.169.254'], ['192.168.1.1']];
  const allowed = (answer: readonly string[]): string | null => (answer.length === 1 && answer[0]!.startsWith('127.') ? answer[0]! : null);

  it('every attempt resolves; a refused answer reaches no receiver; an allowed one reaches its own address over at most one connection per address', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.constantFrom(...ANSWERS), { minLength: 1, maxLength: 8 }), async (history) => {
      const a = await receiver(trusted, '127.0.0.1');
      const b = await receiver(trusted, '127.0.0.2', a.port);
      const byAddress = new Map([['127.0.0.1', a], ['127.0.0.2', b]]);
      const resolver = new SwitchingResolver(['127.0.0.1']);
      const t = transport(resolver, a.port);
      const expected = new Map<string, string[]>([['127.0.0.1', []], ['127.0.0.2', []]]);
      try {
        for (const [i, answer] of history.entries()) {
          resolver.answer = [...answer];
          const result = await post(t, `/${i}`);
          const address = allowed(answer);
          if (address === null) {
            expect(result).toMatchObject({ ok: false, status: null, error: 'refused: blocked address' });
          } else {
            expect(result).toMatchObject({ ok: true, status: 200 });
            expected.get(address)!.push(`/${i}`);
          }
        }
        expect(resolver.calls).toBe(history.length);
        for (const [address, rx] of byAddress) {
          expect(rx.paths).toEqual(expected.get(address));
          expect(rx.connections).toBe(expected.get(address)!.length === 0 ? 0 : 1);
          // A session is never carried from one address to the other: each address's one connection is a full handshake.
          expect(rx.resumed).toBe(0);
        }
      } finally {
        t.close();
        for (const rx of [a, b]) rx.server.closeAllConnections();
        await Promise.all([a, b].map((rx) => new Promise((resolve) => rx.server.close(resolve))));
      }
    }), { numRuns: 15 });
  });
});
