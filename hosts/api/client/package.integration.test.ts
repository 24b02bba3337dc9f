import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** A child process whose output is kept and can be waited on (bounded). */
interface Child {
  readonly process: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

function start(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Child {
  // Its own process group: `npm start` runs tsx under a shell, and afterAll ends the whole group by its id.
  const child = spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let text = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer): void => { text += chunk.toString('utf8'); for (const l of listeners) l(); };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => { for (const l of listeners) l(); resolve(code); }));
  const waitFor = (pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> => new Promise((resolve, reject) => {
    const check = (): void => {
      const match = text.match(pattern);
      if (match !== null) { done(); resolve(match); } else if (child.exitCode !== null) { done(); reject(new Error(`exited before ${pattern}:\n${text.slice(-4000)}`)); }
    };
    const timer = setTimeout(() => { done(); reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${text.slice(-4000)}`)); }, timeoutMs);
    const done = (): void => { clearTimeout(timer); listeners.delete(check); };
    listeners.add(check);
    check();
  });
  return { process: child, output: () => text, waitFor, exited };
}

/** True while any process of the group `pgid` is alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends the process group this file started (npm, its shell, tsx and the server): SIGTERM for a graceful stop, then
 * SIGKILL for whatever is left after 10 s. npm exits at once on SIGTERM, so the group is watched, not npm alone.
 */
async function stopGroup(pgid: number): Promise<void> {
  if (!groupAlive(pgid)) return;
  process.kill(-pgid, 'SIGTERM');
  for (let i = 0; i < 100 && groupAlive(pgid); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
}

/**
 * Issue #15 "Done means": `npm run build` and `npm pack` give a tarball that a fresh project installs; a program there
 * that imports only `custody-hub/client` and `custody-hub/webhooks` type-checks against the packed `.d.ts` and, against
 * a running `npm start`, signs up, creates a main and a sub address, funds the sub through the faucet (a real devnet
 * transaction), collects it and verifies the collection webhook with both signatures.
 */
describe('the packed package, installed in a fresh project, against npm start', () => {
  const work = mkdtempSync(join(tmpdir(), 'custody-hub-pack-'));
  const app = join(work, 'app');
  let server: Child | null = null;
  let baseUrl = '';
  const adminToken = `admin-pack-test-${Date.now()}-0123456789abcdef`;

  beforeAll(async () => {
    // The build goes to a staging copy of the package (never the repository's dist/, which another test may be running).
    const stage = join(work, 'stage');
    await run('npm', ['run', 'build', '--', '--out-dir', join(stage, 'dist')], { cwd: ROOT, timeout: 170_000 });
    for (const file of ['package.json', 'README.md', 'LICENSE']) copyFileSync(join(ROOT, file), join(stage, file));
    // --ignore-scripts: prepack would build again, and the staging copy has no sources (the build above is the one packed).
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: stage, timeout: 60_000 });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (tarball === undefined) throw new Error('npm pack wrote no tarball');

    rmSync(app, { recursive: true, force: true });
    await run('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'custody-hub-consumer', private: true, type: 'module' }));
    await run('npm', ['install', join(work, tarball), '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: app, timeout: 170_000 });
    copyFileSync(join(ROOT, 'scripts/pack-consumer/consumer.ts'), join(app, 'consumer.ts'));
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true,
        // The packed declarations are checked too, not skipped.
        skipLibCheck: false, outDir: 'out', typeRoots: [join(ROOT, 'node_modules/@types')], types: ['node'],
      },
      files: ['consumer.ts'],
    }));

    server = start('npm', ['start'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', DEVNET_PORT: '0', DEVNET_BLOCK_MS: '300', WEBHOOK_ALLOW_LOCAL: 'true', ADMIN_TOKEN: adminToken, NODE_ENV: 'development' },
    });
    baseUrl = (await server.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1]!;
  }, 240_000);

  afterAll(async () => {
    const pid = server?.process.pid;
    if (pid !== undefined) await stopGroup(pid);
    rmSync(work, { recursive: true, force: true });
  }, 30_000);

  it('ships JavaScript and declarations only, and its exports resolve to them', async () => {
    const installed = join(app, 'node_modules/custody-hub');
    const files = (await run('find', ['.', '-type', 'f'], { cwd: installed })).stdout.split('\n').filter((f) => f !== '');
    expect(files).toContain('./dist/hosts/api/client/client.js');
    expect(files).toContain('./dist/hosts/api/client/client.d.ts');
    expect(files).toContain('./dist/hosts/api/client/webhooks.d.ts');
    expect(files).toContain('./dist/hosts/api/cashier-page/payer-page.css');
    expect(files.filter((f) => /\.test\.|fixture|test-harness|\.map$|(?<!\.d)\.ts$/.test(f))).toEqual([]);
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e',
      'const c = await import("custody-hub/client"); const w = await import("custody-hub/webhooks"); console.log(typeof c.createCustodyClient, typeof w.verifyStandardWebhook, import.meta.resolve("custody-hub/client"))'],
    { cwd: app });
    expect(stdout).toMatch(/^function function file:\/\/.*\/node_modules\/custody-hub\/dist\/hosts\/api\/client\/client\.js/);
  });

  it('a program using only custody-hub/client and custody-hub/webhooks type-checks and goes from sign-up to a verified collection webhook', async () => {
    const typecheck = await run(process.execPath, [TSC, '-p', join(app, 'tsconfig.json')], { cwd: app, timeout: 120_000 })
      .catch((error: { stdout?: string }) => ({ stdout: `tsc failed:\n${error.stdout ?? String(error)}` }));
    expect(typecheck.stdout).toBe('');
    const consumer = start(process.execPath, [join(app, 'out/consumer.js')], { cwd: app, env: { ...process.env, BASE_URL: baseUrl, ADMIN_TOKEN: adminToken } });
    try {
      const email = (await consumer.waitFor(/CODE\? (\S+)/, 30_000))[1]!;
      const escaped = email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const code = (await server!.waitFor(new RegExp(`verification code for ${escaped}: (\\d{6})`), 30_000))[1]!;
      consumer.process.stdin?.write(`${code}\n`);
      const line = (await consumer.waitFor(/^RESULT (.*)$/m, 120_000))[1]!;
      expect(await consumer.exited).toBe(0);
      const result = JSON.parse(line) as Record<string, any>;
      expect(result['wallets']).toEqual([result['main'], result['sub']]);
      expect(result['faucetTxid']).toMatch(/^[0-9a-f]{64}$/);
      expect(result['balance']).toBe('25000000');
      expect(result['task']).toMatchObject({ status: 11 });
      expect(result['event']).toMatchObject({ event_type: 'collection.completed', task_no: result['task'].task_no, address: result['sub'], asset_symbol: 'USDT', status: 11 });
      expect(result['specOk']).toBe(true);
      expect(result['standard']).toMatchObject({ ok: true, id: result['event'].event_id });
      expect(result['forged']).toEqual({ ok: false, reason: 'no-matching-signature' });
      expect(result['typedError']).toBe('BIZ-WALLET-ADDRESS-NOT-FOUND');
    } finally {
      if (consumer.process.pid !== undefined) await stopGroup(consumer.process.pid);
    }
  }, 180_000);
});
