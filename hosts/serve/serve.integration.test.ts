/**
 * `npm run serve` as an operator starts it: a child process on the production configuration. On the memory store
 * without ALLOW_EPHEMERAL it (like `npm run api` and `npm run worker`) is refused at start; on PostgreSQL it listens,
 * reports ready with the store checked, runs the worker on the same database, and exits 0 on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startDevnet } from '../../adapters/tron-devnet/index.js';
import { createTestDatabase } from '../../contracts-tests/harness/postgres.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { startProcess } from '../cluster/cluster-processes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The secrets and mail settings of a production process; the store and chain are each test's. */
const secrets = (): Record<string, string> => ({
  NODE_ENV: 'production', KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), ADMIN_TOKEN: `adm_${randomBytes(24).toString('hex')}`,
  SMTP_URL: 'smtp://127.0.0.1:1', MAIL_FROM: 'no-reply@custody.test', PORT: '0', API_HOST: '127.0.0.1', METRICS_PORT: '0', METRICS_HOST: '127.0.0.1',
});

/** Runs `npm run <script>` to its exit (it must exit by itself within the timeout), with its exit code and output. */
function npmRun(script: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => { output += c.toString('utf8'); });
    child.stderr.on('data', (c: Buffer) => { output += c.toString('utf8'); });
    const timer = setTimeout(() => {
      if (child.pid !== undefined && child.exitCode === null) child.kill('SIGKILL');
      reject(new Error(`npm run ${script} did not exit within 30 s:\n${output}`));
    }, 30_000);
    child.once('close', (code) => { clearTimeout(timer); resolve({ code, output }); });
  });
}

describe('production entries on the memory store without ALLOW_EPHEMERAL', () => {
  it('npm run serve, npm run api and npm run worker are each refused at start (exit 2, the message, never listening)', async () => {
    const entries = [
      ['serve', 'STORE is memory in a production process that keeps its state (npm run serve)', /serve listening/],
      ['api', 'STORE is memory in a separate api process', /api listening/],
      ['worker', 'STORE is memory in a separate worker process', /worker running/],
    ] as const;
    const env = { ...secrets(), STORE: 'memory', ALLOW_EPHEMERAL: '', DATABASE_URL: '', CHAIN: 'devnet', TRON_FULL_HOST: 'http://127.0.0.1:1' };
    const runs = await Promise.all(entries.map(([script]) => npmRun(script, env)));
    for (const [i, [script, message, started]] of entries.entries()) {
      const { code, output } = runs[i]!;
      expect(code, `npm run ${script}:\n${output}`).toBe(2);
      expect(output).toContain(message);
      expect(output).toContain('set STORE=postgres (or mongodb), or ALLOW_EPHEMERAL=true');
      expect(output).not.toMatch(started);
    }
  }, 60_000);
});

describeWithPostgres('npm run serve on PostgreSQL', (serverUrl) => {
  it('listens, /api/readyz answers ready with the store checked, the worker writes to the same database, SIGTERM exits 0', async () => {
    const database = await createTestDatabase(serverUrl, 'serve');
    // Virtual time starts at the wall clock, as in `npm start`: the process's SystemClock and the chain agree.
    const devnet = await startDevnet({ port: 0, blockMs: 500, seed: 'serve-process', genesisTime: Math.floor(Date.now() / 3_000) * 3_000 });
    const client = new pg.Client({ connectionString: database.url });
    const serve = startProcess('serve', 'hosts/serve/main.ts', {
      ...secrets(), STORE: 'postgres', DATABASE_URL: database.url, DATABASE_POOL_SIZE: '4', LOCKS: 'memory', CHAIN: 'devnet',
      TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.usdtAddress, ALLOW_EPHEMERAL: '', BALANCE_SCAN_START: 'head',
    });
    try {
      const [, url] = await serve.waitFor(/serve listening (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
      const [, metrics] = await serve.waitFor(/"metrics":"(http:\/\/127\.0\.0\.1:\d+)\/metrics".*serve listening/);
      const ready = await fetch(`${url}/api/readyz`);
      const body = (await ready.json()) as { data: { status: string; checks: { name: string; ok: boolean }[] } };
      expect(ready.status).toBe(200);
      expect(body.data.status).toBe('ready');
      expect(body.data.checks).toContainEqual({ name: 'store', ok: true });
      expect(body.data.checks).toContainEqual({ name: 'chain', ok: true });
      expect((await fetch(`${metrics}/healthz`)).status).toBe(200);

      // Migrations ran at start; the worker half (its balance scanner) keeps its cursor in the same database.
      await client.connect();
      expect(Number((await client.query('SELECT count(*) AS n FROM schema_migrations')).rows[0].n)).toBeGreaterThan(0);
      const deadline = Date.now() + 20_000;
      while (Number((await client.query('SELECT count(*) AS n FROM scan_cursors')).rows[0].n) === 0) {
        if (Date.now() > deadline) throw new Error(`no scan cursor written:\n${serve.output.slice(-20).join('\n')}`);
        await sleep(200);
      }

      await serve.stop();
      expect(serve.output.at(-1)).toBe('[serve exited: 0]');
      expect(serve.output.join('\n')).toContain('SIGTERM: draining the api and stopping the worker');
      await expect(fetch(`${url}/api/healthz`)).rejects.toThrow();
    } finally {
      await serve.kill();
      await client.end().catch(() => undefined);
      await devnet.close();
      await database.drop();
    }
  }, 120_000);
});
