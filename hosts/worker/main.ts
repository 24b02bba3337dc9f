/**
 * `npm run worker`: the background half of Custody Hub as its own process (collections, withdrawals, staking, webhook
 * deliveries, balance refresh), configured from the environment like the API (hosts/composition/config.ts), with
 * `/metrics` and `/healthz` on METRICS_PORT. SIGINT/SIGTERM stop it: the stage in flight finishes within
 * WORKER_STOP_DEADLINE_S (default 20 s; leases cover anything cut short); a second signal exits at once.
 */
import { ConfigError, integer } from '../composition/config.js';
import { startWorkerProcess } from './start-worker.js';

const [started, deadlineMs] = await (async () => {
  const deadline = 1_000 * integer(process.env, 'WORKER_STOP_DEADLINE_S', 20, 3_600, 'a number of seconds');
  return [await startWorkerProcess(process.env), deadline] as const;
})().catch((error: unknown) => {
  process.stderr.write(error instanceof ConfigError ? `${error.message}\n` : `worker failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
process.stdout.write(`worker: collections, withdrawals, staking, webhooks and balance refresh running${
  started.metricsUrl === null ? '' : `; metrics on ${started.metricsUrl}`}\n`);

let stopping = false;
const shutdown = (signal: NodeJS.Signals): void => {
  if (stopping) process.exit(1);
  stopping = true;
  process.stdout.write(`${signal}: stopping the worker (again to force)\n`);
  started.stop(deadlineMs).then((finished) => {
    if (!finished) process.stderr.write(`worker: work still in flight after ${deadlineMs} ms; exiting (leases hand it to another worker)\n`);
    process.exit(finished ? 0 : 1);
  }, (error: unknown) => {
    process.stderr.write(`shutdown failed: ${(error as Error).message}\n`);
    process.exit(1);
  });
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
