import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The real-Redis test harness. Order of preference: a `redis-server` binary on PATH, started on a free port
 * without persistence; else `REDIS_URL`; else a `redis:7` container through testcontainers when a container runtime
 * answers; else "unavailable" with a reason, which the suites report as a loud SKIPPED (never a silent pass).
 * No vitest import here, so bench/ can use it too.
 */

/** A redis-server child process this harness started; stopped by its PID, restartable on the same port. */
export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** PID of the running process; undefined while stopped. */
  readonly pid: number | undefined;
  /** Stops the process (SIGTERM waits for a clean exit; SIGKILL simulates a crash) and waits until it has exited. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Starts it again on the same port after `stop`, resolving once PING answers. */
  start(): Promise<void>;
}

/** Where the shared Redis of a test run comes from, or why there is none. */
export type RedisTarget =
  | { readonly kind: 'binary' | 'env' | 'container'; readonly url: string; stop(): Promise<void> }
  | { readonly kind: 'unavailable'; readonly reason: string };

/** Children still running, killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Absolute path of `redis-server` on PATH, or null. */
export function findRedisServerBinary(): string | null {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      continue;
    }
  }
  return null;
}

/** Starts a dedicated redis-server (no RDB, no AOF, loopback only) on `port` or on a free one. */
export async function startRedisServer(options: { port?: number; binary?: string } = {}): Promise<RedisServer> {
  const binary = options.binary ?? findRedisServerBinary();
  if (binary === null) throw new Error('redis-server is not on PATH');
  installExitHook();
  const attempts = options.port === undefined ? 3 : 1;
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    try {
      let child = await spawnReady(binary, port);
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        get pid() {
          return isRunning(child) ? child.pid : undefined;
        },
        stop: (signal = 'SIGTERM') => stopChild(child, signal),
        start: async () => {
          if (isRunning(child)) throw new Error(`redis-server on ${port} is still running`);
          child = await spawnReady(binary, port);
        },
      };
    } catch (error) {
      // Another process may grab the free port between probing and binding: try another one.
      if (attempt >= attempts) throw error;
    }
  }
}

/** Finds the run's shared Redis (see the module comment). Never throws: failures become a reason. */
export async function provisionRedis(): Promise<RedisTarget> {
  const reasons: string[] = [];
  const binary = findRedisServerBinary();
  if (binary !== null) {
    try {
      const server = await startRedisServer({ binary });
      return { kind: 'binary', url: server.url, stop: () => server.stop() };
    } catch (error) {
      reasons.push(`redis-server failed to start (${message(error)})`);
    }
  } else {
    reasons.push('no redis-server on PATH');
  }
  const fromEnv = process.env['REDIS_URL'];
  if (fromEnv !== undefined && fromEnv !== '') {
    const url = new URL(fromEnv);
    if (await answersPing(url.hostname, Number(url.port || 6379))) return { kind: 'env', url: fromEnv, stop: async () => undefined };
    reasons.push(`REDIS_URL ${url.host} does not answer PING`);
  } else {
    reasons.push('REDIS_URL not set');
  }
  try {
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('redis:7')
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
      .start();
    const url = `redis://${container.getHost()}:${container.getMappedPort(6379)}`;
    return { kind: 'container', url, stop: async () => void (await container.stop()) };
  } catch (error) {
    reasons.push(`no container runtime (${message(error).split('\n')[0]})`);
  }
  return { kind: 'unavailable', reason: reasons.join('; ') };
}

/** True when something on host:port answers a Redis PING within `timeoutMs`. */
export function answersPing(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    let reply = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

async function spawnReady(binary: string, port: number): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'];
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  child.once('exit', () => running.delete(child));
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (!isRunning(child)) throw new Error(`redis-server on port ${port} exited: ${stderr.trim()}`);
    if (await answersPing('127.0.0.1', port, 200)) return child;
    await sleep(20);
  }
  await stopChild(child, 'SIGKILL');
  throw new Error(`redis-server on port ${port} did not answer PING within 10 s`);
}

async function stopChild(child: ChildProcess, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  if (!isRunning(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  kill(child, signal);
  const escalate = setTimeout(() => kill(child, 'SIGKILL'), 3_000);
  await exited;
  clearTimeout(escalate);
}

function isRunning(child: ChildProcess): boolean {
  return child.pid !== undefined && child.exitCode === null && child.signalCode === null;
}

/** Signals exactly this child by its PID; a child that is already gone is fine. */
function kill(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!isRunning(child)) return;
  try {
    process.kill(child.pid!, signal);
  } catch {
    return;
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) kill(child, 'SIGKILL');
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
