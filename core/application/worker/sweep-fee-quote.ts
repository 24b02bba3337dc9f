import { DomainError } from '../../domain/errors.js';
import { TX_BYTES } from '../../domain/sweep-plan.js';
import { COLLECTION_STATUS, type CollectionTask } from '../../domain/model/collection-task.js';
import type { SweepFeeQuote } from './auto-collector.js';
import { planTrc20Sweep, type StepDeps, type StepSettings } from './collection-steps.js';

/**
 * The automatic collector's fee cap measure (issue #24 item 4), priced by the planner the collection itself runs at
 * PENDING: a token sweep's cheapest plan (planTrc20Sweep: energy by self-delegation, rental or burn, activation and
 * bandwidth, under the worker's own burn settings), null when no plan is possible now; a TRX sweep costs its
 * bandwidth burn when the sub-address lacks the bandwidth, else nothing. The chain may change before the task runs:
 * the cap is judged on this quote, and the task then follows its own plan as any collection does.
 */
export function plannedSweepFee(deps: StepDeps, settings: StepSettings): SweepFeeQuote {
  return async (wallet, asset, amount) => {
    const main = await deps.wallets.findMain(wallet.userId, wallet.networkCode);
    if (main === null) return null;
    if (asset.kind === 'native') {
      const [resources, prices] = await Promise.all([deps.chain.getResources(wallet.address), deps.chain.getChainPrices()]);
      const bandwidth = resources.bandwidth.freeAvailable + resources.bandwidth.stakedAvailable;
      return bandwidth >= TX_BYTES.trxTransfer ? 0n : BigInt(TX_BYTES.trxTransfer) * prices.bandwidthSun;
    }
    // The planner reads a task only for its addresses and the rental reference; nothing is stored.
    const now = deps.clock.now();
    const task: CollectionTask = {
      taskNo: `auto-collect-quote:${wallet.address}`, commandNo: '', userId: wallet.userId, networkCode: wallet.networkCode,
      assetSymbol: asset.symbol, address: wallet.address, mainAddress: main.address, status: COLLECTION_STATUS.PENDING,
      energyPath: null, steps: [], sweptAmount: null, sweepTxHash: null, errorCode: null, lastError: null,
      nextRunAt: now, lease: null, startedAt: now, finishedAt: null, version: 1,
    };
    try {
      return (await planTrc20Sweep(deps, settings, { task, asset }, amount)).estimatedCostSun;
    } catch (error) {
      // No plan now (BIZ-ENERGY-UNAVAILABLE): the trigger waits like one above the cap.
      if (error instanceof DomainError) return null;
      throw error;
    }
  };
}
