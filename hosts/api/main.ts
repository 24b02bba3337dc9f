/**
 * `npm run api`: the API alone as a production process (scale it out next to `npm run worker`), composed from the
 * environment like the worker (hosts/composition/config.ts) and listening on PORT (API_HOST, default every
 * interface). Prints `api listening <url>` once it accepts requests. SIGINT/SIGTERM close it gracefully (requests in
 * flight finish); a second signal exits at once.
 */
import { ConfigError } from '../composition/config.js';
import { startApi } from './start-api.js';

const api = await startApi(process.env).catch((error: unknown) => {
  process.stderr.write(error instanceof ConfigError ? `${error.message}\n` : `api failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
process.stdout.write(`api listening ${api.url}\n`);
if (api.metricsUrl !== null) process.stdout.write(`api metrics ${api.metricsUrl}/metrics\n`);

let stopping = false;
const shutdown = (signal: NodeJS.Signals): void => {
  if (stopping) process.exit(1);
  stopping = true;
  process.stdout.write(`${signal}: stopping the api (again to force)\n`);
  api.stop().then(() => process.exit(0), (error: unknown) => {
    process.stderr.write(`shutdown failed: ${(error as Error).message}\n`);
    process.exit(1);
  });
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
