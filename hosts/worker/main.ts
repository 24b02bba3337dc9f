/**
 * `npm run worker`: the background half of Custody Hub as its own process (collections, withdrawals, staking, webhook
 * deliveries, balance refresh), configured from the environment like the API (hosts/composition/config.ts), with
 * `/metrics` and `/healthz` on METRICS_PORT. SIGINT/SIGTERM stop it: the stage in flight finishes within
 * WORKER_STOP_DEADLINE_S (default 20 s; leases cover anything cut short); a second signal exits at once.
 */
import { ConfigError, integer } from '../composition/config.js';
import { processLogger, reportConfigError, stopOnSignals } from '../composition/process-log.js';
import { TOKENS } from '../composition/tokens.js';
import { startWorkerProcess } from './start-worker.js';

const log = processLogger('worker', process.env);

const [started, deadlineMs] = await (async () => {
  const deadline = 1_000 * integer(process.env, 'WORKER_STOP_DEADLINE_S', 20, 3_600, 'a number of seconds');
  return [await startWorkerProcess(process.env, {}, {
    onWait: ({ url, attempt, reason }) => {
      if (attempt === 1 || attempt % 8 === 0) log.warn({ url, reason }, `waiting for the TRON devnet at ${url} (${reason}); start it with npm run devnet, or set TRON_FULL_HOST`);
    },
  }), deadline] as const;
})().catch((error: unknown) => {
  if (error instanceof ConfigError) reportConfigError(log, error);
  else log.fatal({ err: error }, 'worker failed to start');
  process.exit(error instanceof ConfigError ? 2 : 1);
});
log.info({ metrics: started.metricsUrl }, `worker running: collections, withdrawals, staking, webhooks and balance refresh${
  started.metricsUrl === null ? '' : `; metrics on ${started.metricsUrl}`}`);

stopOnSignals(log, {
  action: 'stopping the worker', leftover: 'leases hand it to another worker', stop: (ms) => started.stop(ms), deadlineMs,
  flush: (done) => started.composition.container.get(TOKENS.Logger).flush(done),
});
