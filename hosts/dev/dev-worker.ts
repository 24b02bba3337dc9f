import type { Env } from '../composition/config.js';
import type { Composition } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';
import { startComposedWorker } from '../worker/compose-worker.js';
import type { RunningWorker } from '../worker/index.js';
import { startMaintenance } from '../worker/maintenance.js';
import { operatorStatusOf } from '../worker/operator-status.js';

/** The background half of `npm start`: collections, withdrawals, webhook deliveries, balance refresh. */
export interface DevWorker {
  /** One line for the banner: what runs in the background. */
  readonly description: string;
  /** One pass of everything (with `manual`, the only way anything runs). */
  tick: RunningWorker['tick'];
  stop(): Promise<void>;
}

/**
 * Starts the worker host (hosts/worker) on the composed container, in this process, with its maintenance cron jobs
 * (daily summary, stuck check, expiry of unverified accounts) as `npm run worker` has them. `manual` leaves out the
 * timers and the jobs: nothing runs until `tick()` (tests drive it block by block).
 */
export function startDevWorker(composition: Composition, env: Env, options: { readonly manual?: boolean } = {}): DevWorker {
  const manual = options.manual === true;
  const worker = startComposedWorker(composition, { BALANCE_SCAN_LEVEL: env['BALANCE_SCAN_LEVEL'] }, manual ? { manual: true } : {});
  const maintenance = manual ? null : startMaintenance(
    composition.container.get(TOKENS.Metrics), composition.container.get(TOKENS.Logger), composition.container.get(TOKENS.Application).accounts,
    operatorStatusOf(composition),
  );
  return {
    description: manual
      ? 'worker: in-process, manual (runs on tick() only)'
      : 'worker: in-process (collections, withdrawals, webhook deliveries, balance refresh, maintenance jobs)',
    tick: () => worker.tick(),
    stop: async () => {
      await maintenance?.stop();
      await worker.stop();
    },
  };
}
