/**
 * The real `npm start` as a child process for end-to-end tests (free ports, a block every 100 ms, local webhooks
 * allowed), with a local webhook receiver that keeps every delivery, an API caller, and a merchant signed up the way
 * a new user does it (register, verify, log in, both subscriptions, an API token, the webhook config, the admin's
 * approval of the URL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** One webhook delivery as the receiver got it. */
export interface Received { readonly body: string; readonly headers: IncomingHttpHeaders; readonly at: number }

/** Polls `check` until it gives a value (every 200 ms, at most `ms`). */
export async function until<T>(what: string, ms: number, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (const deadline = Date.now() + ms; ;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A running `npm start` with its webhook receiver. */
export interface NpmStart {
  readonly base: string;
  readonly adminToken: string;
  /** Every delivery so far, in arrival order. */
  readonly received: readonly Received[];
  /** Deliveries so far, parsed. */
  events(): { event: Record<string, unknown>; raw: Received }[];
  /** One API call; the envelope's data, or a thrown error with its code and message. */
  api(method: string, path: string, token: string | null, body?: unknown): Promise<any>;
  /** Signs a merchant up as a new user does, with `config` beside the webhook URL and secret; returns its ids and tokens. */
  merchant(name: string, secret: string, config: Record<string, unknown>): Promise<{ userId: number; session: string; token: string }>;
  stop(): Promise<void>;
}

/** Starts `npm start` and the receiver (`name` makes the admin token and e-mails unique). */
export async function startNpmStart(name: string): Promise<NpmStart> {
  const adminToken = `adm_${name}_e2e_${Date.now()}_0123456789abcdef`;
  const received: Received[] = [];
  const receiver: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, at: Date.now() });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const server: ChildProcess = spawn('npm', ['start'], {
    cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: '0', DEVNET_PORT: '0', DEVNET_BLOCK_MS: '100', WEBHOOK_ALLOW_LOCAL: 'true', ADMIN_TOKEN: adminToken, NODE_ENV: 'development' },
  });
  let out = '';
  server.stdout?.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
  server.stderr?.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
  const stop = async (): Promise<void> => {
    receiver.close();
    const pid = server.pid;
    if (pid === undefined || server.exitCode !== null) return;
    process.kill(-pid, 'SIGTERM');
    const exited = new Promise((resolve) => server.once('exit', resolve));
    const stopped = await Promise.race([exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 10_000))]);
    if (stopped !== true) process.kill(-pid, 'SIGKILL');
  };
  let base: string;
  try {
    base = await until('npm start to say where it listens', 60_000, () => /listening on (http:\/\/\S+)/.exec(out)?.[1]);
  } catch (error) {
    await stop();
    throw error;
  }
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
  const merchant = async (who: string, secret: string, config: Record<string, unknown>) => {
    const email = `${who}-${Date.now()}@example.com`;
    const password = 'correct horse battery staple';
    const account = await api('POST', '/api/auth/register', null, { email, password });
    const { code } = await api('GET', `/dev/verification-code?email=${encodeURIComponent(email)}`, null);
    await api('POST', '/api/auth/verify', null, { email, code });
    const { session_token: session } = await api('POST', '/api/auth/login', null, { email, password });
    await api('POST', '/api/subscriptions/activate', session, { service_code: 'developer' });
    await api('POST', '/api/subscriptions/activate', session, { service_code: 'sub_address', plan_code: 'starter' });
    const { token } = await api('POST', '/api/api-tokens', session, { name: who });
    const port = (receiver.address() as { port: number }).port;
    await api('PUT', '/api/subscriptions/config', session, {
      service_code: 'developer', config: { webhook_url: `http://127.0.0.1:${port}/hooks`, webhook_secret: secret, ...config },
    });
    await api('POST', `/api/admin/webhooks/${account.user_id}/approve`, adminToken, { url: `http://127.0.0.1:${port}/hooks` });
    return { userId: account.user_id as number, session: session as string, token: token as string };
  };
  return {
    base, adminToken, received, api, merchant, stop,
    events: () => received.map((raw) => ({ event: JSON.parse(raw.body) as Record<string, unknown>, raw })),
  };
}
