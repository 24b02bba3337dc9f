import { DomainError, InfrastructureError } from '../../domain/errors.js';
import type { Asset } from '../../domain/model/asset.js';
import type { WalletAddress } from '../../domain/model/wallet.js';
import type { SweepCheck } from '../collection-starter.js';
import { TX_BYTES } from '../../domain/sweep-plan.js';
import { COLLECTION_STATUS, type CollectionTask } from '../../domain/model/collection-task.js';
import type { SweepFeeQuote } from './auto-collector.js';
import { planTrc20Sweep, type StepDeps, type StepSettings, type StepSubject } from './collection-steps.js';

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
    try {
      return (await planTrc20Sweep(deps, settings, quoteSubject(deps, wallet, main.address, asset, 'auto-collect-quote'), amount)).estimatedCostSun;
    } catch (error) {
      // No plan now (BIZ-ENERGY-UNAVAILABLE): the trigger waits like one above the cap.
      if (error instanceof DomainError) return null;
      throw error;
    }
  };
}

/**
 * The energy check before a collection is made (issue #34; SweepCheck in collection-starter.ts): the PENDING planner
 * (planTrc20Sweep) run on the chain now, under the worker's own energy sources and burn settings. Its
 * BIZ-ENERGY-UNAVAILABLE, whose message says why and what would fix it, is the answer; a TRX sweep needs no energy.
 * Any other outcome makes the task: a dry run that reverts is the task's own failure to report, and a node or a rental
 * provider that fails now (any infrastructure failure) leaves the planning to PENDING, which retries it.
 */
export function plannedSweepCheck(deps: StepDeps, settings: StepSettings): SweepCheck {
  return async (wallet, mainAddress, asset, amount) => {
    if (asset.kind !== 'trc20' || amount <= 0n) return null;
    try {
      await planTrc20Sweep(deps, settings, quoteSubject(deps, wallet, mainAddress, asset, 'sweep-check'), amount);
      return null;
    } catch (error) {
      if (error instanceof DomainError) return error.code === 'BIZ-ENERGY-UNAVAILABLE' ? error : null;
      // A node or a rental provider that fails now never fails the request: PENDING plans again, under its own retries.
      if (error instanceof InfrastructureError) return null;
      throw error;
    }
  };
}

/** The planner reads a task only for its addresses and the rental reference: an unsaved one is enough. */
function quoteSubject(deps: Pick<StepDeps, 'clock'>, wallet: WalletAddress, mainAddress: string, asset: Asset, purpose: string): StepSubject {
  const now = deps.clock.now();
  const task: CollectionTask = {
    taskNo: `${purpose}:${wallet.address}`, commandNo: '', userId: wallet.userId, networkCode: wallet.networkCode,
    assetSymbol: asset.symbol, address: wallet.address, mainAddress, status: COLLECTION_STATUS.PENDING,
    energyPath: null, steps: [], sweptAmount: null, sweepTxHash: null, errorCode: null, lastError: null,
    nextRunAt: now, lease: null, startedAt: now, finishedAt: null, version: 1,
  };
  return { task, asset };
}
