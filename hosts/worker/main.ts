/**
 * `npm run worker`: the background half of Custody Hub as its own process (collections, withdrawals, staking, webhook
 * deliveries, balance refresh), configured from the environment like the API (hosts/composition/config.ts).
 * SIGINT/SIGTERM stop it gracefully (work in flight finishes; leases cover anything cut short); a second signal exits.
 */
import { ConfigError, loadConfig } from '../composition/config.js';
import { openComposition } from '../composition/container.js';
import { startComposedWorker } from './compose-worker.js';

const started = await (async () => {
  const config = loadConfig(process.env, { mode: process.env['NODE_ENV'] === 'development' ? 'dev' : 'production', role: 'worker' });
  const composition = await openComposition(config);
  return { composition, worker: startComposedWorker(composition, process.env) };
})().catch((error: unknown) => {
  process.stderr.write(error instanceof ConfigError ? `${error.message}\n` : `worker failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
process.stdout.write('worker: collections, withdrawals, staking, webhooks and balance refresh running\n');

let stopping = false;
const shutdown = (signal: NodeJS.Signals): void => {
  if (stopping) process.exit(1);
  stopping = true;
  process.stdout.write(`${signal}: stopping the worker (again to force)\n`);
  started.worker.stop()
    .then(() => started.composition.close())
    .then(() => process.exit(0), (error: unknown) => {
      process.stderr.write(`shutdown failed: ${(error as Error).message}\n`);
      process.exit(1);
    });
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
