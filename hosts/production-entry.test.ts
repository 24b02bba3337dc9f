import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSmtpReceiver, type LocalSmtpReceiver } from '../adapters/node/local-smtp-receiver.js';
import { startDevnet, type Devnet } from '../adapters/tron-devnet/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Under `npm test` the run's one TypeScript compile has already written dist/ as `npm run build` does
 * (scripts/typecheck-build.mjs: the same roots, options and assets) and says so in this file; the test waits for it
 * rather than compiling the code a second time. Run alone, the test runs `npm run build` itself.
 */
const SHARED_BUILD = process.env['TEST_SHARED_BUILD'] || undefined;

async function sharedBuild(marker: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(marker)) {
    if (Date.now() > deadline) throw new Error(`the run's build (${marker}) did not finish within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const build = JSON.parse(readFileSync(marker, 'utf8')) as { ok: boolean; errors: string };
  if (!build.ok) throw new Error(`the build failed (as npm run build would):\n${build.errors}`);
}

/**
 * The production entry points as a container runs them: `npm run build` compiles to dist/, then `npm run start:api`
 * and `npm run start:worker` run `node dist/…` (no tsx) and SIGTERM goes to the npm process, as `docker stop` sends
 * it to PID 1 of an image whose command is `npm run start:api`. The scripts `exec` node, so npm's forwarded signal
 * reaches the server itself (a `sh -c` in between would die and leave node serving).
 */
describe('production entry points (npm run build, node dist/…, SIGTERM to npm)', () => {
  let devnet: Devnet;
  let smtp: LocalSmtpReceiver;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    if (SHARED_BUILD === undefined) await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT, timeout: 170_000 });
    else await sharedBuild(SHARED_BUILD, 170_000);
    devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'production-entry' });
    smtp = await startLocalSmtpReceiver({ user: 'mailer', pass: 'mail-pass-0123' });
  }, 180_000);
  afterAll(async () => {
    // Only the children this file spawned, by their own PID.
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await devnet?.close();
    await smtp?.close();
  });

  function npmRun(script: string, env: Record<string, string>): { child: ChildProcess; exited: Promise<number | null>; waitFor: (p: RegExp) => Promise<RegExpMatchArray>; output: () => string } {
    const child = spawn('npm', ['run', script], { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let text = '';
    child.stdout?.on('data', (c: Buffer) => { text += c.toString('utf8'); });
    child.stderr?.on('data', (c: Buffer) => { text += c.toString('utf8'); });
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const waitFor = async (pattern: RegExp): Promise<RegExpMatchArray> => {
      for (let i = 0; i < 600; i++) {
        const match = text.match(pattern);
        if (match !== null) return match;
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no ${pattern}:\n${text}`);
    };
    return { child, exited, waitFor, output: () => text };
  }

  const env = (): Record<string, string> => ({
    STORE: 'memory', ALLOW_EPHEMERAL: 'true', CHAIN: 'devnet', TRON_FULL_HOST: devnet.url, METRICS_PORT: '0', METRICS_HOST: '127.0.0.1',
    PORT: '0', API_HOST: '127.0.0.1', SMTP_URL: smtp.url, MAIL_FROM: 'Custody Hub <no-reply@custody.test>', KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), ADMIN_TOKEN: `admin-${randomBytes(24).toString('hex')}`,
  });

  it('the API from dist/ serves, and SIGTERM to npm lets a request in flight complete before it exits 0', async () => {
    const api = npmRun('start:api', env());
    const [, url] = await api.waitFor(/api listening (http:\/\/127\.0\.0\.1:\d+)\"/);
    expect(api.output()).toContain('exec node dist/hosts/api/main.js');
    expect((await fetch(`${url}/api/healthz`)).status).toBe(200);

    // A request in flight: headers and half the body sent, the rest after the signal.
    const body = JSON.stringify({ email: 'inflight@example.com', password: 'a-long-enough-password-1' });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${url}/api/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => { text += c.toString('utf8'); });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        api.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 500);
      }, 200);
    });
    const { status, text } = await answer;
    expect(status).toBe(201);
    expect(JSON.parse(text)).toMatchObject({ code: 'OK' });
    // The code went by SMTP, and nowhere into the production log.
    const mail = smtp.mails.find((m) => m.to.includes('inflight@example.com'));
    const code = mail?.raw.match(/verification code is (\d+)/)?.[1];
    expect(code).toMatch(/^\d{4,8}$/);
    expect(api.output()).not.toContain(code!);
    expect(await api.exited).toBe(0);
    expect(api.output()).toContain('SIGTERM: stopping the api');
    await expect(fetch(`${url}/api/healthz`)).rejects.toThrow();
  }, 60_000);

  it('the worker from dist/ runs, serves /healthz, and exits 0 on SIGTERM to npm within its deadline', async () => {
    const worker = npmRun('start:worker', { ...env(), WORKER_STOP_DEADLINE_S: '10' });
    const [, url] = await worker.waitFor(/metrics on (http:\/\/127\.0\.0\.1:\d+)\"/);
    expect(worker.output()).toContain('exec node dist/hosts/worker/main.js');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const sent = Date.now();
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(Date.now() - sent).toBeLessThan(10_000);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  }, 60_000);
});
