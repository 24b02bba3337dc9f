/**
 * The load generator of bench/api.ts, in its own process (pinned to its own CPU when taskset exists), so none of the
 * client's cost lands on the server being measured: `wrk` (C, one thread) when it is installed (Debian's package
 * `wrk`), else autocannon from npm; BENCH_LOAD=wrk|autocannon picks one. Takes one `LoadOrder` per IPC message,
 * answers with a `LoadResult`, and exits on 'stop'.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

/** One round: keep `connections` keep-alive connections busy with GETs for `seconds`. */
export interface LoadOrder {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly seconds: number;
  readonly connections: number;
}

/** What a round achieved. */
export interface LoadResult {
  readonly ok: number;
  readonly notOk: number;
  readonly errors: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

interface AutocannonResult {
  readonly '2xx': number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly duration: number;
  readonly latency: { readonly p50: number; readonly p99: number };
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

// autocannon ships no types and is CommonJS.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** The generator this machine offers: wrk when installed, unless BENCH_LOAD says otherwise. */
function loadGenerator(): 'wrk' | 'autocannon' {
  const wanted = process.env['BENCH_LOAD'];
  if (wanted === 'wrk' || wanted === 'autocannon') return wanted;
  return spawnSync('wrk', ['--version']).error === undefined ? 'wrk' : 'autocannon';
}

/** wrk's `--latency` percentile in milliseconds (`99%    4.21ms`). */
function wrkPercentile(out: string, p: string): number {
  const m = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(out);
  if (m === null) return Number.NaN;
  const value = Number(m[1]);
  return m[2] === 'us' ? value / 1_000 : m[2] === 's' ? value * 1_000 : value;
}

async function runWrk(order: LoadOrder): Promise<LoadResult> {
  const headers = Object.entries(order.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const { stdout } = await promisify(execFile)('wrk', ['-t1', `-c${order.connections}`, `-d${order.seconds}s`, '--latency', ...headers, order.url]);
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m)/.exec(stdout);
  if (total === null) throw new Error(`unexpected wrk output: ${stdout}`);
  const seconds = Number(total[2]) * ({ us: 1e-6, ms: 1e-3, s: 1, m: 60 } as Record<string, number>)[total[3]!]!;
  const notOk = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const errors = socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0);
  const requests = Number(total[1]);
  return { ok: requests - notOk, notOk, errors, seconds, p50Ms: wrkPercentile(stdout, '50'), p99Ms: wrkPercentile(stdout, '99') };
}

const generator = loadGenerator();

process.on('message', (message: LoadOrder | 'stop') => {
  if (message === 'stop') process.exit(0);
  if (generator === 'wrk') {
    void runWrk(message).then((result) => process.send?.(result));
    return;
  }
  void autocannon({
    url: message.url, headers: message.headers, connections: message.connections, duration: message.seconds, pipelining: 1,
  }).then((r) => {
    const result: LoadResult = {
      ok: r['2xx'], notOk: r.non2xx, errors: r.errors + r.timeouts, seconds: r.duration, p50Ms: r.latency.p50, p99Ms: r.latency.p99,
    };
    process.send?.(result);
  });
});
// The first message names the generator (bench/api.ts prints it).
process.send?.(generator);
