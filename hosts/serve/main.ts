/**
 * `npm run serve`: Custody Hub on a single machine, the API and the worker in one production process (see
 * startServe), configured from the environment like `npm run api` and `npm run worker`. The store must be durable
 * (STORE=postgres or mongodb) unless ALLOW_EPHEMERAL=true. Logs `serve listening <url>` once it accepts requests.
 * SIGINT/SIGTERM drain the API and stop the worker within WORKER_STOP_DEADLINE_S (default 20 s); a second signal
 * exits at once.
 */
import { ConfigError, integer } from '../composition/config.js';
import { processLogger, reportConfigError, stopOnSignals } from '../composition/process-log.js';
import { TOKENS } from '../composition/tokens.js';
import { startServe } from './start-serve.js';

const log = processLogger('all', process.env);

const [started, deadlineMs] = await (async () => {
  const deadline = 1_000 * integer(process.env, 'WORKER_STOP_DEADLINE_S', 20, 3_600, 'a number of seconds');
  return [await startServe(process.env, {}, {
    // One line at the first failed try, then one every 8 tries (about 16 s): the operator sees what serve waits for.
    onWait: ({ url, attempt, waitedMs, reason }) => {
      if (attempt === 1 || attempt % 8 === 0) {
        log.warn({ url, reason, waited_ms: waitedMs }, `waiting for the TRON devnet at ${url} (${reason}); start it with npm run devnet, or set TRON_FULL_HOST`);
      }
    },
  }), deadline] as const;
})().catch((error: unknown) => {
  if (error instanceof ConfigError) reportConfigError(log, error);
  else log.fatal({ err: error }, 'serve failed to start');
  process.exit(error instanceof ConfigError ? 2 : 1);
});
const config = started.composition.container.get(TOKENS.Config);
log.info({
  url: started.url, metrics: started.metricsUrl === null ? null : `${started.metricsUrl}/metrics`, store: config.store, chain: config.chain,
  node: config.tronFullHost, usdt_contract: config.usdtContract, faucet: started.faucet === null ? null : `${started.url}/dev/faucet`,
}, started.banner);

stopOnSignals(log, {
  action: 'draining the api and stopping the worker', leftover: 'its lease hands it to the next start', stop: (ms) => started.stop(ms), deadlineMs,
  flush: (done) => started.composition.container.get(TOKENS.Logger).flush(done),
});
