/**
 * The load generator of bench/api.ts: autocannon in its own process (pinned to its own CPU when taskset exists), so
 * none of the client's cost lands on the server being measured. Takes one `LoadOrder` per IPC message, answers with
 * a `LoadResult`, and exits on 'stop'.
 */
import { createRequire } from 'node:module';

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

process.on('message', (message: LoadOrder | 'stop') => {
  if (message === 'stop') process.exit(0);
  void autocannon({
    url: message.url, headers: message.headers, connections: message.connections, duration: message.seconds, pipelining: 1,
  }).then((r) => {
    const result: LoadResult = {
      ok: r['2xx'], notOk: r.non2xx, errors: r.errors + r.timeouts, seconds: r.duration, p50Ms: r.latency.p50, p99Ms: r.latency.p99,
    };
    process.send?.(result);
  });
});
process.send?.('ready');
