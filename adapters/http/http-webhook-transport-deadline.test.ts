import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { DnsResolver } from '../../core/ports/dns-resolver.port.js';
import { HttpWebhookTransport } from './http-webhook-transport.js';

/** Issue #13 regressions: one deadline over connect, headers and body; sockets always gone; no lookup for literals. */

class CountingResolver implements DnsResolver {
  calls: string[] = [];
  async resolve(host: string): Promise<string[]> {
    this.calls.push(host);
    return ['93.184.216.34'];
  }
}

const request = (url: string) => ({ url, headers: { 'Content-Type': 'application/json' }, body: '{"event_id":"e-1"}' });

interface Receiver { readonly server: Server; readonly port: number; readonly opened: () => number; readonly open: () => number }

async function receiver(handler: Parameters<typeof createServer>[1]): Promise<Receiver> {
  const sockets = new Set<Socket>();
  let opened = 0;
  const server = createServer(handler);
  server.on('connection', (socket) => {
    opened += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, opened: () => opened, open: () => sockets.size };
}

async function eventually(check: () => boolean, ms = 2_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
}

let running: Receiver | undefined;
afterEach(async () => {
  const rx = running;
  running = undefined;
  if (rx === undefined) return;
  rx.server.closeAllConnections();
  await new Promise((resolve) => rx.server.close(resolve));
});

describe('HttpWebhookTransport deadline and socket hygiene (issue #13)', () => {
  it('a receiver trickling its body 1 byte at a time is cut at the one deadline: 30 of 30 attempts fail, 0 sockets stay open', async () => {
    const timers: NodeJS.Timeout[] = [];
    running = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      timers.push(setInterval(() => res.write('x'), 50));
    });
    const rx = running;
    const transport = new HttpWebhookTransport({ resolver: new CountingResolver(), allowLocal: true, timeoutMs: 400 });
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 30 }, () => transport.post(request(`http://127.0.0.1:${rx.port}/slow`))));
    const took = Date.now() - started;
    for (const result of results) {
      expect(result).toMatchObject({ ok: false, status: null });
      expect(!result.ok && result.error).toMatch(/^timeout/);
    }
    expect(took).toBeLessThan(3_000);
    expect(rx.opened()).toBe(30);
    await eventually(() => rx.open() === 0);
    for (const timer of timers) clearInterval(timer);
    expect(rx.open()).toBe(0);
  });

  it('headers sent slowly count against the same deadline as the body', async () => {
    running = await receiver((_req, res) => {
      setTimeout(() => { res.writeHead(200); res.end('ok'); }, 1_000).unref();
    });
    const result = await new HttpWebhookTransport({ resolver: new CountingResolver(), allowLocal: true, timeoutMs: 300 })
      .post(request(`http://127.0.0.1:${running.port}/late`));
    expect(result).toMatchObject({ ok: false, status: null });
  });

  it('a complete answer and an oversized one both leave no socket open afterwards', async () => {
    running = await receiver((req, res) => {
      res.writeHead(200, { connection: 'keep-alive' });
      if (req.url === '/big') {
        const chunk = Buffer.alloc(16 * 1024, 97);
        const pump = (): void => { while (res.write(chunk)); res.once('drain', pump); };
        pump();
      } else {
        res.end('fine');
      }
    });
    const rx = running;
    const transport = new HttpWebhookTransport({ resolver: new CountingResolver(), allowLocal: true, maxResponseBytes: 64 * 1024 });
    expect(await transport.post(request(`http://127.0.0.1:${rx.port}/small`))).toMatchObject({ ok: true, status: 200 });
    expect(await transport.post(request(`http://127.0.0.1:${rx.port}/big`))).toMatchObject({ ok: true, status: 200 });
    await eventually(() => rx.open() === 0);
    expect(rx.open()).toBe(0);
  });

  it('localhost names and blocked IP literals are refused before any DNS lookup', async () => {
    const resolver = new CountingResolver();
    const transport = new HttpWebhookTransport({ resolver });
    for (const url of ['https://localhost/x', 'https://hooks.localhost./x', 'https://10.0.0.1/x', 'https://[::1]/x', 'https://169.254.169.254/x']) {
      expect(await transport.post(request(url)), url).toMatchObject({ ok: false, status: null, error: 'refused: blocked address' });
    }
    expect(resolver.calls).toEqual([]);
  });
});
