import type { Env } from '../composition/config.js';
import type { Composition } from '../composition/container.js';
import { startComposedWorker } from '../worker/compose-worker.js';
import type { RunningWorker } from '../worker/index.js';

/** The background half of `npm start`: collections, withdrawals, webhook deliveries, balance refresh. */
export interface DevWorker {
  /** One line for the banner: what runs in the background. */
  readonly description: string;
  /** One pass of everything (with `manual`, the only way anything runs). */
  tick: RunningWorker['tick'];
  stop(): Promise<void>;
}

/**
 * Starts the worker host (hosts/worker) on the composed container, in this process. `manual` leaves out the timers:
 * nothing runs until `tick()` (tests drive it block by block).
 */
export function startDevWorker(composition: Composition, env: Env, options: { readonly manual?: boolean } = {}): DevWorker {
  const worker = startComposedWorker(composition, { BALANCE_SCAN_LEVEL: env['BALANCE_SCAN_LEVEL'] }, options.manual === true ? { manual: true } : {});
  return {
    description: options.manual === true
      ? 'worker: in-process, manual (runs on tick() only)'
      : 'worker: in-process (collections, withdrawals, webhook deliveries, balance refresh)',
    tick: () => worker.tick(),
    stop: () => worker.stop(),
  };
}
