import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../adapters/tron-devnet/index.js';
import { nodeArgsFor } from '../../contracts-tests/harness/ts-entry.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `npm run api` (hosts/api/main.ts) as a real child process, configured only through its environment. */
describe.concurrent('API-only process entry', () => {
  let devnet: Devnet;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'api-main' });
  });
  afterAll(async () => {
    // Only the children this file spawned, by their own PID.
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await devnet.close();
  });

  interface ApiChild {
    readonly child: ChildProcess;
    readonly exited: Promise<number | null>;
    output(): string;
    /** The first match of `pattern` in the output so far or to come; rejects if the child exits first. */
    waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  }

  function spawnApi(env: Record<string, string>): ApiChild {
    const child = spawn(process.execPath, nodeArgsFor('hosts/api/main.ts'), {
      cwd: ROOT, env: { ...process.env, NODE_ENV: 'production', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let text = '';
    const append = (chunk: Buffer): void => { text += chunk.toString('utf8'); };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const waitFor = (pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> => new Promise((resolve, reject) => {
      const check = (): void => {
        const match = text.match(pattern);
        if (match === null) return;
        stop();
        resolve(match);
      };
      const timer = setTimeout(() => { stop(); reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${text}`)); }, timeoutMs);
      const stop = (): void => {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        child.stderr?.off('data', check);
      };
      child.stdout?.on('data', check);
      child.stderr?.on('data', check);
      // 'close' comes after the last output, so a line that did arrive has been checked by then.
      void exited.then(() => { stop(); reject(new Error(`exited before ${pattern}:\n${text}`)); });
      check();
    });
    return { child, exited, output: () => text, waitFor };
  }

  const productionEnv = (): Record<string, string> => ({
    PORT: '0', API_HOST: '127.0.0.1', STORE: 'memory', ALLOW_EPHEMERAL: 'true', METRICS_PORT: '0', METRICS_HOST: '127.0.0.1', SMTP_URL: 'smtp://127.0.0.1:1', MAIL_FROM: 'no-reply@custody.test', LOCKS: 'memory', CHAIN: 'devnet', TRON_FULL_HOST: devnet.url,
    ADMIN_TOKEN: `admin-${randomBytes(24).toString('hex')}`, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });

  it('composes from the environment, logs `api listening <url>`, answers /healthz, and exits 0 on SIGTERM', async () => {
    const env = productionEnv();
    const api = spawnApi(env);
    const [, url] = await api.waitFor(/api listening (http:\/\/127\.0\.0\.1:\d+)\"/, 30_000);
    const res = await fetch(`${url}/api/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ code: 'OK', message: 'success', data: { status: 'ok' } });
    // The configured ADMIN_TOKEN is the one in force (production mode generates none).
    const pending = (token: string): Promise<Response> => fetch(`${url}/api/admin/webhooks/pending`, { headers: { authorization: `Bearer ${token}` } });
    expect((await pending(env['ADMIN_TOKEN']!)).status).toBe(200);
    expect((await pending(`admin-${randomBytes(24).toString('hex')}`)).status).toBe(401);
    // Metrics on their own port (METRICS_PORT), never on the public one.
    const [, metricsUrl] = await api.waitFor(/\"metrics\":\"(http:\/\/[^\"]+)\"/, 5_000);
    const metrics = await (await fetch(metricsUrl!)).text();
    expect(metrics).toMatch(/custody_http_request_duration_seconds_count\{[^}]*route="\/api\/healthz"[^}]*status="200"[^}]*\} 1/);
    expect(metrics).toContain('service="custody-api"');
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
    const sent = Date.now();
    api.child.kill('SIGTERM');
    expect(await api.exited).toBe(0);
    expect(Date.now() - sent).toBeLessThan(5_000);
    await expect(fetch(`${url}/api/healthz`)).rejects.toThrow();
    // Every line it wrote is pino JSON naming the API.
    for (const line of api.output().split('\n').filter((l) => l !== '')) expect(JSON.parse(line)).toMatchObject({ service: 'custody-api' });
  }, 60_000);

  it('refuses to start without the production secrets: exit 2 naming the variable, nothing listens', async () => {
    const api = spawnApi({ ...productionEnv(), KEY_ENCRYPTION_KEY: '' });
    expect(await api.exited).toBe(2);
    expect(api.output()).toContain('KEY_ENCRYPTION_KEY');
    expect(api.output()).not.toContain('api listening');
  }, 60_000);
});
