/**
 * `npm run serve`: Custody Hub on a single machine, the API and the worker in one production process (see
 * startServe), configured from the environment like `npm run api` and `npm run worker`. The store must be durable
 * (STORE=postgres or mongodb) unless ALLOW_EPHEMERAL=true. Logs `serve listening <url>` once it accepts requests.
 * SIGINT/SIGTERM drain the API and stop the worker within WORKER_STOP_DEADLINE_S (default 20 s); a second signal
 * exits at once.
 */
import { ConfigError, integer } from '../composition/config.js';
import { processLogger } from '../composition/process-log.js';
import { TOKENS } from '../composition/tokens.js';
import { startServe } from './start-serve.js';

const log = processLogger('all', process.env);

const [started, deadlineMs] = await (async () => {
  const deadline = 1_000 * integer(process.env, 'WORKER_STOP_DEADLINE_S', 20, 3_600, 'a number of seconds');
  return [await startServe(process.env), deadline] as const;
})().catch((error: unknown) => {
  if (error instanceof ConfigError) log.fatal({ variables: error.problems.map((p) => p.variable) }, error.message);
  else log.fatal({ err: error }, 'serve failed to start');
  process.exit(error instanceof ConfigError ? 2 : 1);
});
log.info({ url: started.url, metrics: started.metricsUrl === null ? null : `${started.metricsUrl}/metrics` },
  `serve listening ${started.url} (API and worker in one process)`);

let stopping = false;
const shutdown = (signal: NodeJS.Signals): void => {
  if (stopping) process.exit(1);
  stopping = true;
  log.info({ signal }, `${signal}: draining the api and stopping the worker (again to force)`);
  started.stop(deadlineMs).then((finished) => {
    if (!finished) log.warn({ deadlineMs }, 'work still in flight at the stop deadline; exiting (its lease hands it to the next start)');
    // The request and worker log is written asynchronously: flush it before exiting so the last lines are not lost.
    started.composition.container.get(TOKENS.Logger).flush(() => process.exit(finished ? 0 : 1));
  }, (error: unknown) => {
    log.error({ err: error }, 'shutdown failed');
    process.exit(1);
  });
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
