import { DomainError, InfrastructureError } from '../../domain/errors.js';
import { COLLECTION_STATUS, type CollectionTask } from '../../domain/model/collection-task.js';
import type { Asset } from '../../domain/model/asset.js';
import type { WalletAddress } from '../../domain/model/wallet.js';
import { TX_BYTES } from '../../domain/sweep-plan.js';
import { trxTransferReserveSun } from '../../domain/sweepable-amount.js';
import { planTrxFunding, type WithdrawalFunding } from '../../domain/withdrawal-funding.js';
import { planTrc20Sweep, type StepDeps, type StepSettings } from './collection-steps.js';
import { collectionStepSettings } from './collection-executor.js';
import type { WorkflowOptions } from './workflow-executor.js';

/** What a withdrawal asks for: from a managed address, this amount of the asset, to this address. */
export interface WithdrawalRequest {
  readonly wallet: Pick<WalletAddress, 'userId' | 'networkCode' | 'address' | 'addressType'>;
  readonly asset: Asset;
  readonly to: string;
  readonly amount: bigint;
  /** The rental order's reference (the command number once there is one). */
  readonly reference: string;
}

/**
 * How a withdrawal pays its fees, decided from the chain before anything is sent:
 * - `self`: as before issue #34: a main address, or a sub-address that holds the TRX (and bandwidth, energy) its
 *   transfer burns;
 * - `short`: the sub-address does not hold the amount (as read now: the executor reads again, and fails it as before);
 * - `funded`: the main address funds them, by the collection's own planner (planTrc20Sweep: every energy source
 *   priced, the cheapest that fits) or, for TRX, planTrxFunding.
 * When the funding cannot be had, BIZ-FEES-UNFUNDABLE names what is missing and the fixes; nothing is made or sent.
 */
export async function planWithdrawalFees(
  deps: StepDeps, settings: StepSettings, request: WithdrawalRequest,
): Promise<{ readonly kind: 'self' | 'short' } | { readonly kind: 'funded'; readonly funding: WithdrawalFunding }> {
  const { wallet, asset, to, amount } = request;
  if (wallet.addressType !== 2) return { kind: 'self' };
  const main = await deps.wallets.findMain(wallet.userId, wallet.networkCode);
  if (main === null) return { kind: 'self' };
  const [subExists, resources, subTrxSun, prices] = await Promise.all([
    deps.chain.accountExists(wallet.address), deps.chain.getResources(wallet.address), deps.chain.getTrxBalance(wallet.address),
    deps.chain.getChainPrices(),
  ]);
  const bandwidth = { free: resources.bandwidth.freeAvailable, staked: resources.bandwidth.stakedAvailable };
  if (asset.kind !== 'trc20') {
    if (subTrxSun < amount) return { kind: 'short' };
    const createsRecipient = !(await deps.chain.accountExists(to));
    const reserveSun = subExists
      ? trxTransferReserveSun({ bandwidth, createsRecipient, transferBytes: settings.transferBytes, sunPerByte: settings.sunPerByte })
      : BigInt(settings.transferBytes) * settings.sunPerByte;
    if (subExists && subTrxSun - amount >= reserveSun) return { kind: 'self' };
    const mainTrxSun = await deps.chain.getTrxBalance(main.address);
    const decision = planTrxFunding({ amount, subExists, subTrxSun, reserveSun, mainTrxSun });
    if ('refusal' in decision) throw unfundable(wallet.address, main.address, decision.refusal);
    return { kind: 'funded', funding: newFunding(main.address, decision.plan) };
  }
  if (await deps.chain.getTokenBalance(wallet.address, asset.contractAddress!) < amount) return { kind: 'short' };
  const needed = await deps.chain.estimateTrc20TransferEnergy(wallet.address, to, asset.contractAddress!, amount);
  if (subExists) {
    // What the transfer burns from the sub-address's own TRX: the energy it lacks and the bytes no bandwidth covers.
    const shortfall = Math.max(0, needed - resources.energy.available);
    const bytes = TX_BYTES.trc20Transfer;
    const bandwidthSun = bandwidth.staked >= bytes || bandwidth.free >= bytes ? 0n : BigInt(bytes) * prices.bandwidthSun;
    if (BigInt(shortfall) * prices.energySun + bandwidthSun <= subTrxSun) return { kind: 'self' };
  }
  try {
    const plan = await planTrc20Sweep(deps, settings, { task: planningTask(request, main.address), asset, payout: { to, amount } }, amount);
    return { kind: 'funded', funding: newFunding(main.address, plan) };
  } catch (error) {
    if (error instanceof DomainError && error.code === 'BIZ-ENERGY-UNAVAILABLE') throw unfundable(wallet.address, main.address, error.message);
    throw error;
  }
}

function newFunding(mainAddress: string, plan: WithdrawalFunding['plan']): WithdrawalFunding {
  return { mainAddress, phase: COLLECTION_STATUS.FUNDING_TRX, plan, energyPath: null, steps: [], outcome: null };
}

/** BIZ-FEES-UNFUNDABLE: what the planner found missing, and what fixes it. */
function unfundable(sub: string, main: string, why: string): DomainError {
  return new DomainError('BIZ-FEES-UNFUNDABLE', {
    message: `${sub} cannot pay this withdrawal's fees and its main address ${main} cannot fund them: ${why}. `
      + `Fix: stake TRX for energy on the main address, configure an energy rental provider, set ENERGY_BURN=true with TRX on `
      + `the main address, or send TRX to ${sub}`,
  });
}

/** The collection task the planner reads (its addresses and the rental reference); nothing is stored. */
function planningTask(request: WithdrawalRequest, mainAddress: string): CollectionTask {
  return {
    taskNo: request.reference, commandNo: request.reference, userId: request.wallet.userId, networkCode: request.wallet.networkCode,
    assetSymbol: request.asset.symbol, address: request.wallet.address, mainAddress, status: COLLECTION_STATUS.PENDING,
    energyPath: null, steps: [], sweptAmount: null, sweepTxHash: null, errorCode: null, lastError: null,
    nextRunAt: 0, lease: null, startedAt: 0, finishedAt: null, version: 1,
  };
}

/**
 * POST /transfers' check before a withdrawal is recorded (issue #34): the worker's own fee plan under the configured
 * energy sources and burn settings; it throws BIZ-FEES-UNFUNDABLE when the funding cannot be had, and says nothing
 * otherwise (the worker plans again from the chain when the command starts).
 */
export type WithdrawalFeeCheck = (request: WithdrawalRequest) => Promise<void>;

/**
 * The check on the planner's ports, under the collections' burn settings (the composition gives it their energy
 * sources; the worker funds withdrawals with those).
 */
export function plannedWithdrawalFeeCheck(deps: StepDeps, burn: Pick<WorkflowOptions, 'burnEnabled' | 'maxBurnSun'>): WithdrawalFeeCheck {
  const settings = collectionStepSettings(burn);
  return async (request) => {
    try {
      await planWithdrawalFees(deps, settings, request);
    } catch (error) {
      // A node or a rental provider that fails now never refuses the request: the command starts, and the worker plans
      // again from the chain under its own retries (as plannedSweepCheck does for a collection).
      if (error instanceof InfrastructureError) return;
      throw error;
    }
  };
}
