import type { Composition } from '../composition/container.js';

/** The background half of `npm start`: collections, withdrawals, webhooks, balance refresh. */
export interface DevWorker {
  /** One line for the banner: what runs in the background. */
  readonly description: string;
  stop(): Promise<void>;
}

/**
 * Hook where `npm start` starts the worker (hosts/worker `startWorker`) on the composed container. Until the worker
 * host exports it, nothing runs in the background: collections and withdrawals are accepted and stay PENDING.
 */
export async function startDevWorker(_composition: Composition): Promise<DevWorker> {
  return {
    description: 'worker: not started (hosts/worker startWorker is not built yet): collections stay PENDING',
    stop: () => Promise.resolve(),
  };
}
