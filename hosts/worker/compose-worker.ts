/**
 * The worker on a composed container (hosts/composition): the executors on the configured store and chain, the
 * webhook dispatcher on the outbox, and the balance scanner on the configured node. Used by `npm run worker` and
 * available to `npm start` (hosts/dev) for the embedded mode.
 */
import { BalanceScanner } from '../../core/application/worker/balance-scanner.js';
import { WebhookDispatcher } from '../../core/application/worker/webhook-dispatcher.js';
import type { Composition } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';
import { parseScanLevel } from './jobs/balance-scan.js';
import { startWorker, type RunningWorker, type WorkerOptions } from './index.js';

/** Environment the worker reads beyond the composition's configuration. */
export interface ComposedWorkerEnv {
  /** `head` (default) or `solidified`. */
  readonly BALANCE_SCAN_LEVEL?: string | undefined;
}

/**
 * Starts the worker from the container. Collection steps wait CHAIN_CONFIRMATIONS blocks and may burn TRX for energy
 * when ENERGY_BURN is on; `options` may override
 * anything (tests pass `manual: true`).
 */
export function startComposedWorker(composition: Composition, env: ComposedWorkerEnv = {}, options: WorkerOptions = {}): RunningWorker {
  const c = composition.container;
  const core = c.get(TOKENS.CoreDeps);
  const stores = c.get(TOKENS.Stores);
  const energy = c.get(TOKENS.EnergyProviders);
  const config = c.get(TOKENS.Config);
  const webhooks = new WebhookDispatcher({
    clock: core.clock, ids: core.ids, outbox: stores.outbox, deliveries: core.deliveries,
    developerConfigs: core.developerConfigs, cipher: core.cipher, transport: core.transport,
  });
  const balanceScanner = new BalanceScanner({
    clock: core.clock, blocks: c.get(TOKENS.BlockSource), cursors: stores.scanCursors, wallets: core.wallets,
    balances: core.balances, chain: core.chain, assets: core.assets,
  }, { level: parseScanLevel(env.BALANCE_SCAN_LEVEL) });
  return startWorker({
    ...core,
    energy: { self: energy.self, rental: energy.rental ?? undefined },
    webhooks,
    balanceScanner,
  }, {
    log: c.get(TOKENS.Logger),
    ...options,
    collection: {
      confirmations: config.chainConfirmations, burnEnabled: config.energyBurn, stuckAfterMs: config.workflowStuckAfterMs,
      ...(config.energyBurnMaxSun === null ? {} : { maxBurnSun: config.energyBurnMaxSun }),
      ...options.collection,
    },
    commands: {
      stuckAfterMs: config.workflowStuckAfterMs,
      completeOn: config.withdrawalConfirmations === 0 ? 'broadcast' : config.withdrawalConfirmations,
      ...options.commands,
    },
  });
}
