/**
 * Issue #24, end to end through the real `npm start` (a child process on free ports, a block every 100 ms): a user opts
 * into deposit events and automatic collection, a payer pays the sub-address with the faucet (a real devnet transfer),
 * and with no API call in between the receiver gets `deposit.confirmed` and then `collection.completed` for that
 * sub-address, each with both signatures valid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySpecSignature, verifyStandardWebhook } from '../../packages/client/src/webhooks.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ADMIN_TOKEN = `adm_deposit_e2e_${Date.now()}_0123456789abcdef`;
const SECRET = 'whsec-deposit-e2e-secret';

interface Received { readonly body: string; readonly headers: IncomingHttpHeaders; readonly at: number }

/** Polls `check` until it gives a value (every 200 ms, at most `ms`). */
async function until<T>(what: string, ms: number, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (const deadline = Date.now() + ms; ;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('deposits through npm start: a payment, deposit.confirmed, the automatic collection, collection.completed', () => {
  let server: ChildProcess | null = null;
  let out = '';
  let base = '';
  let receiver: Server;
  const received: Received[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, at: Date.now() });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    server = spawn('npm', ['start'], {
      cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: '0', DEVNET_PORT: '0', DEVNET_BLOCK_MS: '100', WEBHOOK_ALLOW_LOCAL: 'true', ADMIN_TOKEN, NODE_ENV: 'development' },
    });
    server.stdout?.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
    server.stderr?.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
    base = await until("npm start to say where it listens", 60_000, () => /listening on (http:\/\/\S+)/.exec(out)?.[1]);
  }, 90_000);

  afterAll(async () => {
    receiver?.close();
    const pid = server?.pid;
    if (pid === undefined || server?.exitCode !== null) return;
    process.kill(-pid, 'SIGTERM');
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    const stopped = await Promise.race([exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 10_000))]);
    if (stopped !== true) process.kill(-pid, 'SIGKILL');
  }, 20_000);

  /** One API call; the envelope's data, or a thrown error with its code and message. */
  const api = async (method: string, path: string, token: string | null, body?: unknown): Promise<any> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const envelope = await res.json() as { code: string; message: string; data: unknown };
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${envelope.code}: ${envelope.message}`);
    return envelope.data;
  };

  it('with no API call between the payment and the end, both events arrive signed', async () => {
    const email = `deposit-e2e-${Date.now()}@example.com`;
    const password = 'correct horse battery staple';
    const account = await api('POST', '/api/auth/register', null, { email, password });
    const { code } = await api('GET', `/dev/verification-code?email=${encodeURIComponent(email)}`, null);
    await api('POST', '/api/auth/verify', null, { email, code });
    const { session_token: session } = await api('POST', '/api/auth/login', null, { email, password });
    await api('POST', '/api/subscriptions/activate', session, { service_code: 'developer' });
    await api('POST', '/api/subscriptions/activate', session, { service_code: 'sub_address', plan_code: 'starter' });
    const { token } = await api('POST', '/api/api-tokens', session, { name: 'deposit-e2e' });
    const port = (receiver.address() as { port: number }).port;
    await api('PUT', '/api/subscriptions/config', session, {
      service_code: 'developer',
      config: {
        webhook_url: `http://127.0.0.1:${port}/hooks`, webhook_secret: SECRET,
        event_types: ['deposit.confirmed'], auto_collect: { USDT: { min_amount: '1000000', max_fee_sun: '100000000' } },
      },
    });
    await api('POST', `/api/admin/webhooks/${account.user_id}/approve`, ADMIN_TOKEN);
    await api('POST', '/api/wallets', token, { network_code: 'TRON', address_type: 1 });
    const sub = await api('POST', '/api/wallets', token, { network_code: 'TRON', address_type: 2, address_label: 'order-1' });

    // The payer pays (a real devnet transfer); from here on only the receiver is watched.
    await api('POST', '/dev/faucet', null, { address: sub.address, asset_symbol: 'USDT', amount: '25000000' });
    const events = (): { event: Record<string, unknown>; raw: Received }[] =>
      received.map((raw) => ({ event: JSON.parse(raw.body) as Record<string, unknown>, raw }));
    const completed = await until('collection.completed', 120_000, () =>
      events().find(({ event }) => event['event_type'] === 'collection.completed' && event['address'] === sub.address));
    const deposit = events().find(({ event }) => event['event_type'] === 'deposit.confirmed' && event['address'] === sub.address);

    expect(deposit?.event).toMatchObject({ asset_symbol: 'USDT', amount: '25000000', network_code: 'TRON' });
    expect(completed.event).toMatchObject({ asset_symbol: 'USDT' });
    // The deposit was told before the collection ended, once.
    expect(events().filter(({ event }) => event['event_type'] === 'deposit.confirmed')).toHaveLength(1);
    expect(deposit!.raw.at).toBeLessThanOrEqual(completed.raw.at);
    for (const { raw } of [deposit!, completed]) {
      expect(verifySpecSignature(raw.body, SECRET, raw.headers['x-webhook-signature'] as string | undefined)).toBe(true);
      expect(verifyStandardWebhook(raw.body, raw.headers, SECRET, { receivedAt: raw.at })).toMatchObject({ ok: true });
      expect(verifySpecSignature(raw.body.replace('USDT', 'TRX'), SECRET, raw.headers['x-webhook-signature'] as string | undefined)).toBe(false);
    }
  }, 180_000);
});
