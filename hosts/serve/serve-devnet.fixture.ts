/**
 * docs/operations.md's devnet recipe as a test drives it: the variables its serve block exports, `npm run devnet`'s
 * entry as a child process, and child processes started with a clean environment (PATH and HOME only, then what the
 * test gives), so nothing of the test runner's environment reaches `serve`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { nodeArgsFor } from '../../contracts-tests/harness/ts-entry.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The `export NAME=VALUE` assignments of the recipe's serve block in docs/operations.md (the fenced block whose first
 * line is `# 3. serve on it`), in order; a value the shell computes (`$(…)`) is kept as written.
 */
export function recipeServeVariables(): Map<string, string> {
  const doc = readFileSync(`${ROOT}/docs/operations.md`, 'utf8');
  const start = doc.indexOf('# 3. serve on it');
  if (start < 0) throw new Error('docs/operations.md has no "# 3. serve on it" block');
  const block = doc.slice(start, doc.indexOf('```', start));
  const variables = new Map<string, string>();
  for (const line of block.split('\n').filter((l) => l.startsWith('export '))) {
    const code = line.replace(/\s+#.*$/, '').slice('export '.length);
    for (const [, name, value] of code.matchAll(/([A-Z_]+)=(\$\([^)]*\)|\S+)/g)) variables.set(name!, value!);
  }
  return variables;
}

/** A free TCP port on loopback (closed again, so a child can take it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A child process and its output lines. */
export interface Child {
  readonly output: string[];
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGTERM, then SIGKILL after 10 s; resolves at its exit. */
  stop(): Promise<void>;
}

/** Runs `entry` (a path from the repository root) with tsx and only PATH, HOME and `env` in its environment. */
export function startClean(name: string, entry: string, env: Record<string, string>): Child {
  const child: ChildProcess = spawn(process.execPath, nodeArgsFor(entry), {
    cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const onData = (chunk: Buffer): void => { output.push(...chunk.toString('utf8').split('\n').filter((l) => l !== '')); };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', (code, signal) => { output.push(`[${name} exited: ${code ?? signal}]`); resolve(); }));
  return {
    output,
    async waitFor(pattern, timeoutMs = 30_000) {
      for (const deadline = Date.now() + timeoutMs; ;) {
        for (const line of output) {
          const match = line.match(pattern);
          if (match !== null) return match;
        }
        if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
          throw new Error(`${name}: no line matching ${pattern}:\n${output.slice(-30).join('\n')}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      process.kill(child.pid, 'SIGTERM');
      const force = setTimeout(() => { if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL'); }, 10_000);
      await exited;
      clearTimeout(force);
    },
  };
}

/** `npm run devnet` (adapters/tron-devnet/main.ts) on `port`, a block every `blockMs`; resolves once it listens. */
export async function startDevnetProcess(port: number, blockMs: number): Promise<Child> {
  const devnet = startClean('devnet', 'adapters/tron-devnet/main.ts', { DEVNET_PORT: String(port), DEVNET_BLOCK_MS: String(blockMs) });
  await devnet.waitFor(/TRON devnet listening on/);
  return devnet;
}

/** Polls `check` every 1.5 s (under the API's 60 reads a minute) until it gives a value, at most `ms`. */
export async function until<T>(what: string, ms: number, check: () => Promise<T | undefined>): Promise<T> {
  for (const deadline = Date.now() + ms; ;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  }
}
