import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_VECTORS } from '../../../packages/client/test/webhook-test-vectors.js';

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

/** Bytes of every file under `dir` (apparent sizes, symbolic links not followed): what an install puts on disk. */
function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? treeBytes(path) : lstatSync(path).size;
  }
  return total;
}

/**
 * The packages an install put in node_modules, by name, from npm's own record of the tree
 * (`node_modules/.package-lock.json`, nested copies included).
 */
function installedPackages(app: string): string[] {
  const record = JSON.parse(readFileSync(join(app, 'node_modules/.package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  return Object.keys(record.packages).map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)).sort();
}

/** Largest install allowed: measured 0.70 MB (the package 0.44 MB, most of it the generated types; openapi-fetch 0.24 MB). */
const MAX_INSTALL_BYTES = 2_000_000;

/**
 * @custody-hub/client as an integrator gets it: `npm pack` in packages/client (its prepack builds it), and the tarball
 * installed in a fresh project, from the npm cache when it holds the dependencies (--prefer-offline).
 * - Issue #23 item 6: the install is light. Only the package, openapi-fetch and openapi-fetch's one dependency, in
 *   under 2 MB; the root package the client used to ship in installed 126 packages, 104 MB (mongodb, tronweb, tsx…).
 * - Issue #15 "Done means": a program that imports only the package type-checks against the packed `.d.ts` and,
 *   against a running `npm start`, signs up, creates a main and a sub address, funds the sub through the faucet (a
 *   real devnet transaction), collects it and verifies the collection webhook with both signatures.
 */
describe('@custody-hub/client, packed and installed in a fresh project', () => {
  const work = mkdtempSync(join(tmpdir(), 'custody-hub-client-pack-'));
  const app = join(work, 'app');

  beforeAll(async () => {
    await run('npm', ['pack', '--pack-destination', work], { cwd: join(ROOT, 'packages/client'), timeout: 120_000 });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (tarball === undefined) throw new Error('npm pack wrote no tarball');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'custody-hub-consumer', private: true, type: 'module' }));
    await run('npm', ['install', join(work, tarball), '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: app, timeout: 170_000 });
  }, 300_000);

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('ships JavaScript and declarations only, and its two entries resolve to them', async () => {
    const installed = join(app, 'node_modules/@custody-hub/client');
    const files = (await run('find', ['.', '-type', 'f'], { cwd: installed })).stdout.split('\n').filter((f) => f !== '').sort();
    expect(files).toEqual(expect.arrayContaining(['./LICENSE', './README.md', './package.json', './dist/client.js', './dist/client.d.ts',
      './dist/webhooks.js', './dist/webhooks.d.ts', './dist/openapi-types.d.ts']));
    expect(files.filter((f) => !/^\.\/dist\/[\w-]+(\.d\.ts|\.js)$/.test(f) && !['./LICENSE', './README.md', './package.json'].includes(f))).toEqual([]);
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e',
      'console.log(import.meta.resolve("@custody-hub/client"), import.meta.resolve("@custody-hub/client/webhooks"))'], { cwd: app });
    expect(stdout.trim()).toMatch(/^file:\/\/\S*\/node_modules\/@custody-hub\/client\/dist\/client\.js file:\/\/\S*\/node_modules\/@custody-hub\/client\/dist\/webhooks\.js$/);
  });

  it('installs itself, openapi-fetch and its one dependency, and nothing else, in under 2 MB', () => {
    expect.soft(installedPackages(app)).toEqual(['@custody-hub/client', 'openapi-fetch', 'openapi-typescript-helpers']);
    const bytes = treeBytes(join(app, 'node_modules'));
    expect(bytes, `node_modules holds ${bytes} bytes`).toBeLessThan(MAX_INSTALL_BYTES);
  });

  it('the installed verifier checks a known-answer vector, and a client built from it adds an Idempotency-Key', async () => {
    const [vector] = WEBHOOK_VECTORS;
    const program = `
      import { createCustodyClient } from '@custody-hub/client';
      import { verifySpecSignature, verifyStandardWebhook } from '@custody-hub/client/webhooks';
      const v = JSON.parse(process.env.VECTOR);
      const headers = { 'webhook-id': v.id, 'webhook-timestamp': String(v.timestamp), 'webhook-signature': v.standardSignature };
      const sent = [];
      const hub = createCustodyClient({ baseUrl: 'http://127.0.0.1:9/', token: 'dk_test', retry: false, fetch: async (request) => {
        sent.push({ method: request.method, url: request.url, authorization: request.headers.get('authorization'), key: request.headers.get('idempotency-key') });
        return Response.json({ code: 'OK', message: 'success', data: { task_no: 'T1' } });
      } });
      const created = await hub.unwrap(hub.POST('/api/collections', { body: { address: 'TXYZ', asset_symbol: 'USDT' } }));
      console.log(JSON.stringify({
        standard: verifyStandardWebhook(v.body, headers, v.secret, { receivedAt: v.timestamp * 1000 }),
        forged: verifyStandardWebhook(v.body.replace('USDT', 'TRX'), headers, v.secret, { receivedAt: v.timestamp * 1000 }),
        spec: verifySpecSignature(v.body, v.secret, v.specSignature), created, sent,
      }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', program], { cwd: app, env: { ...process.env, VECTOR: JSON.stringify(vector) } });
    expect(JSON.parse(stdout)).toEqual({
      standard: { ok: true, id: vector!.id, timestamp: vector!.timestamp },
      forged: { ok: false, reason: 'no-matching-signature' },
      spec: true,
      created: { task_no: 'T1' },
      sent: [{ method: 'POST', url: 'http://127.0.0.1:9/api/collections', authorization: 'Bearer dk_test', key: expect.stringMatching(/^[0-9a-f-]{36}$/) }],
    });
  });

  describe('a program using only the package, against npm start', () => {
    let server: Child | null = null;
    let baseUrl = '';
    const adminToken = `admin-pack-test-${Date.now()}-0123456789abcdef`;

    beforeAll(async () => {
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
    }, 90_000);

    afterAll(async () => {
      const pid = server?.process.pid;
      if (pid !== undefined) await stopGroup(pid);
    }, 30_000);

    it('type-checks against the packed declarations and goes from sign-up to a verified collection webhook', async () => {
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
});
