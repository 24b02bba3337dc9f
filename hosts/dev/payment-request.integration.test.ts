/**
 * Issue #25, end to end through the real `npm start` (a child process on free ports, a block every 100 ms): a merchant
 * makes a payment request for 25 USDT, the payer pays 10 and then 15 with the faucet (real devnet transfers), and with
 * no call that starts anything the receiver gets `payment.paid`, the request's collection starts by itself (seen on the
 * payer's session), and `collection.completed` follows, each event with both signatures valid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySpecSignature, verifyStandardWebhook } from '../../packages/client/src/webhooks.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ADMIN_TOKEN = `adm_payment_e2e_${Date.now()}_0123456789abcdef`;
const SECRET = 'whsec-payment-e2e-secret';

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

describe('payment requests through npm start: 25 USDT asked, 10 then 15 paid, payment.paid, the collection by itself, collection.completed', () => {
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

  it('pay 10 then 15: partially paid, then payment.paid and the collection starts with no call, then collection.completed', async () => {
    const email = `payment-e2e-${Date.now()}@example.com`;
    const password = 'correct horse battery staple';
    const account = await api('POST', '/api/auth/register', null, { email, password });
    const { code } = await api('GET', `/dev/verification-code?email=${encodeURIComponent(email)}`, null);
    await api('POST', '/api/auth/verify', null, { email, code });
    const { session_token: session } = await api('POST', '/api/auth/login', null, { email, password });
    await api('POST', '/api/subscriptions/activate', session, { service_code: 'developer' });
    await api('POST', '/api/subscriptions/activate', session, { service_code: 'sub_address', plan_code: 'starter' });
    const { token } = await api('POST', '/api/api-tokens', session, { name: 'payment-e2e' });
    const port = (receiver.address() as { port: number }).port;
    // No auto_collect: the collection that follows is the paid request's own.
    await api('PUT', '/api/subscriptions/config', session, {
      service_code: 'developer',
      config: {
        webhook_url: `http://127.0.0.1:${port}/hooks`, webhook_secret: SECRET, display_name: 'Acme Store',
        event_types: ['payment.paid', 'payment.expired', 'payment.paid_late'],
      },
    });
    await api('POST', `/api/admin/webhooks/${account.user_id}/approve`, ADMIN_TOKEN);
    await api('POST', '/api/wallets', token, { network_code: 'TRON', address_type: 1 });
    const sub = await api('POST', '/api/wallets', token, { network_code: 'TRON', address_type: 2 });
    const request = await api('POST', '/api/cashier/tokens', token, {
      address: sub.address, amount: '25000000', asset_symbol: 'USDT', reference: 'order-2501', pay_within_minutes: 30,
    });
    expect(request.payment).toMatchObject({ status: 'awaiting', amount: '25000000', remaining: '25000000' });
    const payer = request.token as string;

    // The payer pays 10 (a real devnet transfer); the payer's session (a read) shows it once confirmed.
    await api('POST', '/dev/faucet', null, { address: sub.address, asset_symbol: 'USDT', amount: '10000000' });
    const partial = await until('partially_paid', 120_000, async () => {
      const s = await api('GET', '/api/cashier/session', payer);
      return s.payment.status === 'partially_paid' ? s : undefined;
    });
    expect(partial.payment).toMatchObject({ received: '10000000', remaining: '15000000', merchant_name: 'Acme Store' });
    expect(partial.active_task).toBeNull();

    // The rest; from here on only the receiver and reads are watched.
    await api('POST', '/dev/faucet', null, { address: sub.address, asset_symbol: 'USDT', amount: '15000000' });
    const events = (): { event: Record<string, unknown>; raw: Received }[] =>
      received.map((raw) => ({ event: JSON.parse(raw.body) as Record<string, unknown>, raw }));
    const paid = await until('payment.paid', 120_000, () =>
      events().find(({ event }) => event['event_type'] === 'payment.paid' && event['address'] === sub.address));
    expect(paid.event).toMatchObject({
      token_no: request.token_no, reference: 'order-2501', asset_symbol: 'USDT', amount: '25000000', received: '25000000',
      remaining: '0', status: 'paid',
    });
    const started = await until('the collection to start', 60_000, async () => {
      const s = await api('GET', '/api/cashier/session', payer);
      return s.active_task === null ? undefined : s;
    });
    expect(started.payment.status).toBe('paid');
    const completed = await until('collection.completed', 120_000, () =>
      events().find(({ event }) => event['event_type'] === 'collection.completed' && event['address'] === sub.address));
    expect(completed.event).toMatchObject({ asset_symbol: 'USDT', task_no: started.active_task.task_no, swept_amount: 25000000 });
    expect(events().filter(({ event }) => event['event_type'] === 'payment.paid')).toHaveLength(1);
    expect(events().filter(({ event }) => String(event['event_type']).startsWith('payment.') && event['event_type'] !== 'payment.paid')).toEqual([]);
    expect(paid.raw.at).toBeLessThanOrEqual(completed.raw.at);
    for (const { raw } of [paid, completed]) {
      expect(verifySpecSignature(raw.body, SECRET, raw.headers['x-webhook-signature'] as string | undefined)).toBe(true);
      expect(verifyStandardWebhook(raw.body, raw.headers, SECRET, { receivedAt: raw.at })).toMatchObject({ ok: true });
      expect(verifySpecSignature(raw.body.replace('USDT', 'TRX'), SECRET, raw.headers['x-webhook-signature'] as string | undefined)).toBe(false);
    }
    // Only one collection was made: the task the session shows is the sub-address's only one.
    const commands = await api('GET', '/api/commands?per_page=100', token);
    expect(commands.items.filter((c: { type: number }) => c.type === 3)).toHaveLength(1);
  }, 240_000);
});
