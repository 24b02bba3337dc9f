/**
 * Issue #23 "the first hour works": the quickstart `npm start` prints, pasted whole into bash, goes from sign-up to a
 * finished collection by itself. The real `npm start` runs as a child process on free ports (a block every 100 ms);
 * its stdout is read as a user sees it, the block from `BASE=` to the first blank line is cut out as printed and run
 * with bash, fed on stdin as a paste is.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeUnless } from '../../contracts-tests/support/skipped.js';
import { QUICKSTART_USDT } from './quickstart.js';
import { quickstartBlock } from './quickstart.fixture.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SUITE = 'the printed quickstart, pasted into bash, against npm start';
const missing = ['bash', 'curl', 'jq'].filter((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0);

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

/** Runs `script` with bash, fed on stdin; resolves with its exit code and output. */
async function bash(script: string, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = collect(spawn('bash', ['-s'], { stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL' }));
  run.child.stdin?.end(script);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** `NAME=value` as the block prints it. */
function printed(output: string, name: string): string {
  const value = new RegExp(`^${name}=(\\S+)$`, 'm').exec(output)?.[1];
  if (value === undefined) throw new Error(`the block printed no ${name}=`);
  return value;
}

describeUnless(missing.length === 0 ? null : `${missing.join(', ')} not installed (.ci/run installs jq and curl)`, SUITE, () => {
  let server: Collected | null = null;
  let lines: string[] = [];

  beforeAll(async () => {
    // Its own process group (npm → sh → tsx → node), ended by its id afterwards.
    server = collect(spawn('npm', ['start'], {
      cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: '0', DEVNET_PORT: '0', DEVNET_BLOCK_MS: '100', NODE_ENV: 'development' },
    }));
    const deadline = Date.now() + 50_000;
    for (;;) {
      lines = server.stdout().split('\n');
      const base = lines.findIndex((line) => line.startsWith('BASE='));
      // The blank line that ends the block, not the empty tail of output that stops mid-block (a chunk boundary).
      const blank = lines.indexOf('', base);
      if (base >= 0 && blank > base && blank < lines.length - 1) return;
      if (Date.now() > deadline || server.child.exitCode !== null) {
        throw new Error(`npm start printed no quickstart:\n${server.stdout()}\n${server.stderr()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 60_000);

  afterAll(async () => {
    const pid = server?.child.pid;
    if (pid === undefined || server?.child.exitCode !== null) return;
    process.kill(-pid, 'SIGTERM');
    const stopped = await Promise.race([server.exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 10_000))]);
    if (stopped !== true) process.kill(-pid, 'SIGKILL');
  }, 20_000);

  it('runs from sign-up to DONE on its own: the code read from the server, the credit and the collection waited for', async () => {
    const block = quickstartBlock(lines);
    const run = await bash(block, 45_000);
    expect(run.stderr, run.stdout).not.toContain('FAILED');
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/^CODE=\d{6}$/m);
    expect(run.stdout).toMatch(/^DONE: collection T\d+ swept the USDT/m);
    expect(run.stdout).toMatch(/status 11$/m);

    // The collection finished, and the swept USDT is on the main address (the block's last step read it from the chain).
    const api = /^BASE=(\S+?);/.exec(block)![1]!;
    const dk = printed(run.stdout, 'DK');
    const get = async (path: string): Promise<any> =>
      ((await (await fetch(`${api}/api${path}`, { headers: { authorization: `Bearer ${dk}` } })).json()) as { data: unknown }).data;
    const task = await get(`/collections/${printed(run.stdout, 'TASK')}`);
    expect(task).toMatchObject({ status: 11, error_code: null });
    expect(task.finished_at).not.toBeNull();
    const main = await get(`/wallets/${printed(run.stdout, 'MAIN')}/balances`);
    expect(main.items.find((item: { symbol: string }) => item.symbol === 'USDT').balance_available).toBe(QUICKSTART_USDT);
  }, 50_000);

  it('stops at the first failure with the envelope\'s code and message', async () => {
    const block = quickstartBlock(lines).replace(/^EMAIL=\S+;/m, 'EMAIL=not-an-address;');
    const run = await bash(block, 20_000);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^FAILED: HTTP 422 VALIDATION-ERROR: .*email/m);
    expect(run.stdout).not.toContain('CODE=');
    expect(run.stdout).not.toContain('DONE');
  });
});
