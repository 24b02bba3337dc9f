/**
 * Issue #34 "the docs' examples run in order": every block of docs/integration.md marked `<!-- curl-walkthrough -->`,
 * in page order, run as one bash session against the real `npm start` (a child process on free ports, a block every
 * 100 ms) and the page's own webhook receiver (receiver.mjs and verify-webhooks.mjs cut out of section 9), as a reader
 * with three terminals does. Only the ports the page fixes (3000, 4000) are moved, right after the block that sets
 * them. `set -euo pipefail`: a variable no earlier block set, or a failing command, stops the run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeUnless } from '../../contracts-tests/support/skipped.js';
import { walkthroughBlocks } from './walkthrough-blocks.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SUITE = 'docs/integration.md: the curl walkthrough, every block in order, against npm start';
const missing = ['bash', 'curl', 'jq'].filter((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0);
const markdown = readFileSync(join(ROOT, 'docs/integration.md'), 'utf8');

/** A named snippet of section 9. */
function snippet(name: string): string {
  const found = new RegExp(`<!-- snippet: ${name.replace('.', '\\.')} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``).exec(markdown);
  if (found === null) throw new Error(`no snippet ${name}`);
  return `${found[1]}\n`;
}

/** A child process whose output is collected as it comes. */
interface Collected {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

function collect(child: ChildProcess): Collected {
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
  child.stderr?.on('data', (chunk: Buffer) => { err += chunk.toString('utf8'); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Waits until `find` matches the output (every 100 ms, at most `ms`). */
async function waitFor(what: string, process: Collected, ms: number, find: (out: string) => string | undefined): Promise<string> {
  for (const deadline = Date.now() + ms; ;) {
    const found = find(process.stdout());
    if (found !== undefined) return found;
    if (Date.now() > deadline || process.child.exitCode !== null) throw new Error(`no ${what}:\n${process.stdout()}\n${process.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Ends a process started in its own group, by its id. */
async function stop(process: Collected | null): Promise<void> {
  const pid = process?.child.pid;
  if (process === null || pid === undefined || process.child.exitCode !== null) return;
  globalThis.process.kill(-pid, 'SIGTERM');
  const stopped = await Promise.race([process.exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 10_000))]);
  if (stopped !== true) globalThis.process.kill(-pid, 'SIGKILL');
}

describeUnless(missing.length === 0 ? null : `${missing.join(', ')} not installed (.ci/run installs jq and curl)`, SUITE, () => {
  const work = mkdtempSync(join(tmpdir(), 'walkthrough-'));
  let server: Collected | null = null;
  let receiver: Collected | null = null;
  let base = '';
  let hook = '';

  beforeAll(async () => {
    // Terminal 1, as the page starts it (its own process group: npm → sh → tsx → node, ended by its id afterwards).
    server = collect(spawn('npm', ['start'], {
      cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env, PORT: '0', DEVNET_PORT: '0', DEVNET_BLOCK_MS: '100', NODE_ENV: 'development',
        ADMIN_TOKEN: 'local-admin-token-0123456789abcdef', WEBHOOK_ALLOW_LOCAL: 'true',
      },
    }));
    base = await waitFor('BASE= line from npm start', server, 60_000, (out) => /^BASE=(\S+?);/m.exec(out)?.[1]);
    // Terminal 2: the page's receiver, on a free port.
    writeFileSync(join(work, 'verify-webhooks.mjs'), snippet('verify-webhooks.mjs'));
    writeFileSync(join(work, 'receiver.mjs'), snippet('receiver.mjs'));
    receiver = collect(spawn('node', ['receiver.mjs'], {
      cwd: work, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, WEBHOOK_SECRET: 'whsec-quickstart-0123456789', RECEIVER_PORT: '0' },
    }));
    hook = await waitFor('receiver URL', receiver, 10_000, (out) => /receiver listening on (\S+)/.exec(out)?.[1]);
  }, 80_000);

  afterAll(async () => {
    await stop(receiver);
    await stop(server);
    rmSync(work, { recursive: true, force: true });
  }, 30_000);

  it('runs every block in order: sign-up, webhook, sweep, cashier link, a payment request paid and found again', async () => {
    const [first, ...rest] = walkthroughBlocks(markdown);
    expect(first).toMatch(/^BASE=http:\/\/127\.0\.0\.1:3000;/);
    const script = ['set -euo pipefail', first!, `BASE=${base}; API=$BASE/api; HOOK=${hook}`, ...rest].join('\n');
    const run = collect(spawn('bash', ['-s'], { cwd: work, stdio: ['pipe', 'pipe', 'pipe'], timeout: 100_000, killSignal: 'SIGKILL' }));
    run.child.stdin?.end(script);
    const code = await run.exited;
    const output = `${run.stdout()}\n${run.stderr()}`;
    expect(code, output).toBe(0);
    expect(output).not.toMatch(/"code":"(?!OK)[A-Z-]+"/);
    expect(run.stdout()).toContain('25 USDT credited');
    expect(run.stdout()).toMatch(/^status 11$/m);
    // Charge an amount: a request on the order's own sub-address, awaiting, with the payer's link.
    expect(run.stdout()).toContain('"status":"awaiting","reference":"order-1042"');
    expect(run.stdout()).toMatch(new RegExp(`^payer page: ${base}/cashier\\?ct=ct_`, 'm'));
    // Find an order: paid, found by its reference, forwarded by itself.
    expect(run.stdout()).toMatch(/\{"token_no":"\S+","status":"paid","received":"25000000"\}/);
    expect(run.stdout()).toMatch(/"status":11,"asset_symbol":"USDT","swept_amount":"\d+","sweep_tx_hash":"[0-9a-f]{64}"/);
    // Terminal 2 verified the events the page says it prints, payment.paid with the txid that paid.
    await waitFor('payment.paid at the receiver', receiver!, 20_000, (out) => (/"event_type":"payment.paid"[^\n]*"txids":\["[0-9a-f]{64}"\]/.test(out) ? 'seen' : undefined));
    expect(receiver!.stdout()).toMatch(/^verified collection\.completed .*X-Webhook-Signature ok$/m);
    expect(receiver!.stdout()).not.toContain('refused');
  }, 180_000);
});
