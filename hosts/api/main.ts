/**
 * `npm run api`: the API alone as a production process (scale it out next to `npm run worker`), composed from the
 * environment like the worker (hosts/composition/config.ts) and listening on PORT (API_HOST, default every
 * interface), its metrics on METRICS_PORT. Logs `api listening <url>` (pino JSON, like every line) once it accepts
 * requests. SIGINT/SIGTERM close it gracefully (requests in flight finish); a second signal exits at once.
 */
import { ConfigError } from '../composition/config.js';
import { processLogger, reportConfigError } from '../composition/process-log.js';
import { TOKENS } from '../composition/tokens.js';
import { startApi } from './start-api.js';

const log = processLogger('api', process.env);
const api = await startApi(process.env, {}, {
  onWait: ({ url, attempt, reason }) => {
    if (attempt === 1 || attempt % 8 === 0) log.warn({ url, reason }, `waiting for the TRON devnet at ${url} (${reason}); start it with npm run devnet, or set TRON_FULL_HOST`);
  },
}).catch((error: unknown) => {
  if (error instanceof ConfigError) reportConfigError(log, error);
  else log.fatal({ err: error }, 'api failed to start');
  process.exit(error instanceof ConfigError ? 2 : 1);
});
log.info({ url: api.url, metrics: api.metricsUrl === null ? null : `${api.metricsUrl}/metrics` }, `api listening ${api.url}`);

let stopping = false;
const shutdown = (signal: NodeJS.Signals): void => {
  if (stopping) process.exit(1);
  stopping = true;
  log.info({ signal }, `${signal}: stopping the api (again to force)`);
  // The request log is written asynchronously: flush it before exiting so the last lines are not lost.
  const requests = api.composition.container.get(TOKENS.Logger);
  api.stop().then(() => requests.flush(() => process.exit(0)), (error: unknown) => {
    log.error({ err: error }, 'shutdown failed');
    process.exit(1);
  });
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
