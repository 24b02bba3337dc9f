/**
 * `npm run serve`: Custody Hub on a single machine, the API and the worker in one production process (see
 * startServe), configured from the environment like `npm run api` and `npm run worker`. The store must be durable
 * (STORE=postgres or mongodb) unless ALLOW_EPHEMERAL=true. Logs `serve listening <url>` once it accepts requests.
 * SIGINT/SIGTERM drain the API and stop the worker within WORKER_STOP_DEADLINE_S (default 20 s); a second signal
 * exits at once.
 */
import { ConfigError, integer } from '../composition/config.js';
import { processLogger, stopOnSignals } from '../composition/process-log.js';
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

stopOnSignals(log, {
  action: 'draining the api and stopping the worker', leftover: 'its lease hands it to the next start', stop: (ms) => started.stop(ms), deadlineMs,
  flush: (done) => started.composition.container.get(TOKENS.Logger).flush(done),
});
