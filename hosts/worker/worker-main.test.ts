import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../adapters/tron-devnet/index.js';
import { nodeArgsFor } from '../../contracts-tests/harness/ts-entry.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `npm run worker` (hosts/worker/main.ts) as a real child process, configured only through its environment. */
describe('worker process entry', () => {
  let devnet: Devnet;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'worker-main' });
  });
  afterAll(async () => {
    // Only the children this file spawned, by their own PID.
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await devnet.close();
  });

  function spawnWorker(env: Record<string, string>): { child: ChildProcess; exited: Promise<number | null>; output: () => string; waitFor: (p: RegExp) => Promise<RegExpMatchArray> } {
    const child = spawn(process.execPath, nodeArgsFor('hosts/worker/main.ts'), {
      cwd: ROOT, env: { ...process.env, NODE_ENV: 'production', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
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
    return { child, exited, output: () => text, waitFor };
  }

  const base = (): Record<string, string> => ({
    STORE: 'memory', ALLOW_EPHEMERAL: 'true', CHAIN: 'devnet', TRON_FULL_HOST: devnet.url, METRICS_PORT: '0', METRICS_HOST: '127.0.0.1',
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });

  it('runs without ADMIN_TOKEN, serves /healthz and /metrics as custody-worker, and exits 0 on SIGTERM within its deadline', async () => {
    const worker = spawnWorker(base());
    const [, url] = await worker.waitFor(/metrics on (http:\/\/127\.0\.0\.1:\d+)\"/);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', ok: true });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain('service="custody-worker"');
    expect(metrics).toContain('custody_worker_last_tick_timestamp_seconds');
    const sent = Date.now();
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(Date.now() - sent).toBeLessThan(10_000);
    // Every JSON line it wrote names the worker.
    for (const line of worker.output().split('\n').filter((l) => l !== '')) expect(JSON.parse(line)).toMatchObject({ service: 'custody-worker' });
  }, 60_000);

  it('refuses unsafe or broken configuration at once: memory store without ALLOW_EPHEMERAL, every bad variable in one message', async () => {
    const { ALLOW_EPHEMERAL: _allow, ...unsafe } = base();
    const worker = spawnWorker({ ...unsafe, KEY_ENCRYPTION_KEY: '', LOG_LEVEL: 'chatty' });
    expect(await worker.exited).toBe(2);
    expect(worker.output()).toMatch(/configuration: 3 problems/);
    for (const name of ['STORE', 'KEY_ENCRYPTION_KEY', 'LOG_LEVEL']) expect(worker.output()).toContain(name);
    expect(worker.output()).not.toContain('ADMIN_TOKEN');
  }, 60_000);
});
