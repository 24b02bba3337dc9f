/**
 * Child processes of the multi-process cluster test: API nodes (hosts/cluster/api-process.ts) and workers
 * (hosts/worker/main.ts, `npm run worker`) run through tsx with a given environment; their output is kept for the
 * verification codes and for the failure message. Stopped by their own PID only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeArgsFor } from '../../contracts-tests/harness/ts-entry.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A started child: its output so far, and a stop that waits for its exit. */
export interface ClusterProcess {
  readonly name: string;
  readonly output: string[];
  /** Resolves with the first output line matching `pattern` (rejects after `timeoutMs` or when the child exits). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(): Promise<void>;
  /** SIGKILL, as a crash: no handler runs, nothing is flushed. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** Whether the process is still running. */
  readonly alive: boolean;
}

/** Runs `entry` (a path from the repository root) with tsx and `env` on top of the test's environment. */
export function startProcess(name: string, entry: string, env: Record<string, string>): ClusterProcess {
  const child: ChildProcess = spawn(process.execPath, nodeArgsFor(entry), {
    cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    output.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
    for (const wake of waiters) wake();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', (code, signal) => {
    output.push(`[${name} exited: ${code ?? signal}]`);
    for (const wake of waiters) wake();
    resolve();
  }));
  return {
    name, output,
    get alive() {
      return child.exitCode === null && child.signalCode === null;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        process.kill(child.pid, 'SIGKILL');
        await exited;
      }
    },
    waitFor: (pattern, timeoutMs = 30_000) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`${name}: no line matching ${pattern} within ${timeoutMs} ms:\n${output.slice(-20).join('\n')}`)), timeoutMs);
      const finish = (error: Error | null, match?: RegExpMatchArray): void => {
        clearTimeout(timer);
        waiters.delete(check);
        if (error === null) resolve(match!);
        else reject(error);
      };
      const check = (): void => {
        for (const line of output) {
          const match = line.match(pattern);
          if (match !== null) return finish(null, match);
        }
        if (child.exitCode !== null || child.signalCode !== null) finish(new Error(`${name} exited:\n${output.slice(-20).join('\n')}`));
      };
      waiters.add(check);
      check();
    }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        process.kill(child.pid, 'SIGTERM');
        const force = setTimeout(() => { if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL'); }, 10_000);
        await exited;
        clearTimeout(force);
      }
    },
  };
}
