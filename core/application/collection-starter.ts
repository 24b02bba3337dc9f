import { DomainError, InfrastructureError } from '../domain/errors.js';
import { INITIAL_COLLECTION_STATUS } from '../domain/collection-machine.js';
import { newTaskNo, NUMBER_RANDOM_BYTES } from '../domain/numbers.js';
import { cachedHolding, MIN_TRX_SWEEP_SUN, sweepableAmount, trxTransferReserveSun } from '../domain/sweepable-amount.js';
import type { ChainGateway } from '../ports/chain-gateway.port.js';
import type { Asset } from '../domain/model/asset.js';
import type { CollectionTask } from '../domain/model/collection-task.js';
import { COMMAND_TYPE } from '../domain/model/command.js';
import type { WalletAddress } from '../domain/model/wallet.js';
import type { ChangeSet } from '../ports/unit-of-work.port.js';
import type { ResolvedDeps } from './deps.js';
import { newCommand, refuseIfLocked, refuseIfRisky, withAddressLock, type CommandDraft } from './fund-commands.js';

/**
 * Extra checks a caller runs inside the address lock, after the active-command check (the dust refusal, the
 * cashier's session rule and minimum amount). Receives the cached available balance of the asset.
 */
export type CollectionGuard = (available: bigint) => Promise<void>;

/**
 * Whether a sweep of `amount` of `asset` from `wallet` to `mainAddress` can have its energy now (issue #34): null when
 * it can (or the check cannot tell: the task's own planning decides), else the refusal, a DomainError
 * BIZ-ENERGY-UNAVAILABLE whose message names the configured sources' reasons and the fix. The worker's planner
 * (plannedSweepCheck in worker/sweep-fee-quote.ts) answers it.
 */
export type SweepCheck = (wallet: WalletAddress, mainAddress: string, asset: Asset, amount: bigint) => Promise<DomainError | null>;

/**
 * The ports that starting a collection touches; `sweepCheck`, where the host wires it, refuses a collection whose
 * energy cannot be had before its task exists (absent: no such check, the task's planning at PENDING decides).
 */
export type CollectionStarterDeps = Pick<ResolvedDeps,
  'risk' | 'commands' | 'clock' | 'ids' | 'addressLock' | 'settings' | 'balances' | 'wallets' | 'uow'> & {
  readonly sweepCheck?: SweepCheck | undefined;
};

/**
 * Starts a collection of `asset` on the sub-address `wallet` (ownership and sub type already checked):
 * risk (403), then under the address lock the active-command check (409) and the guard, then the COLLECTION command
 * and its PENDING task written together by the unit of work (which refuses a locked address atomically). Before the
 * write, `deps.sweepCheck` (when wired) refuses a sweep whose energy cannot be had: 422 BIZ-ENERGY-UNAVAILABLE.
 * The command holds the cached available balance of the asset as balance_locked while it runs. `also` joins that
 * commit (the automatic collector's trigger mark, a paid request's collect mark: a version miss there makes no task
 * either); given as a function, it is made from the new task (a paid request records the task it follows).
 */
export async function startCollection(
  deps: CollectionStarterDeps, wallet: WalletAddress, asset: Asset, guard: CollectionGuard = async () => {},
  also: Pick<ChangeSet, 'deposits' | 'payments'> | ((task: CollectionTask) => Pick<ChangeSet, 'deposits' | 'payments'>) = {},
  scope: (commit: () => Promise<void>, task: CollectionTask) => Promise<void> = (commit) => commit(),
): Promise<CollectionTask> {
  const draft: CommandDraft = {
    userId: wallet.userId, type: COMMAND_TYPE.COLLECTION, address: wallet.address, assetSymbol: asset.symbol,
    lockedAmount: 0n, params: {},
  };
  await refuseIfRisky(deps, { userId: wallet.userId, operation: 'collection', address: wallet.address, assetSymbol: asset.symbol }, draft);
  return withAddressLock(deps, wallet.address, async () => {
    await refuseIfLocked(deps, wallet.address);
    const snapshot = await deps.balances.get(wallet.address);
    const available = snapshot?.items.find((item) => item.symbol === asset.symbol)?.available ?? 0n;
    await guard(available);
    const main = await deps.wallets.findMain(wallet.userId, wallet.networkCode);
    // A sub-address cannot exist without its main address (spec §2 rule 2); a missing one is corrupted state.
    if (main === null) throw new InfrastructureError('INTERNAL-ERROR', 'main address missing for a sub-address', { transient: false });
    // Last, after every rule of the caller: no task that can only fail for want of energy (issue #34).
    const refusal = await deps.sweepCheck?.(wallet, main.address, asset, cachedSweepable(asset, available)) ?? null;
    if (refusal !== null) throw refusal;
    const now = deps.clock.now();
    const taskNo = newTaskNo(now, deps.ids.randomBytes(NUMBER_RANDOM_BYTES));
    const command = newCommand(deps, { ...draft, lockedAmount: available, params: { task_no: taskNo } });
    const task: CollectionTask = {
      taskNo, commandNo: command.commandNo, userId: wallet.userId, networkCode: wallet.networkCode,
      assetSymbol: asset.symbol, address: wallet.address, mainAddress: main.address, status: INITIAL_COLLECTION_STATUS,
      energyPath: null, steps: [], sweptAmount: null, sweepTxHash: null, errorCode: null, lastError: null,
      nextRunAt: now, lease: null, startedAt: now, finishedAt: null, version: 1,
    };
    await scope(() => deps.uow.commit({ newCommands: [command], newTasks: [task], ...(typeof also === 'function' ? also(task) : also) }), task);
    return task;
  });
}

/** The asset of the wallet's network with that symbol, else 422 BIZ-ASSET-NOT-FOUND. */
export function assetOf(deps: Pick<ResolvedDeps, 'assets'>, wallet: WalletAddress, symbol: string): Asset {
  const asset = deps.assets.find(wallet.networkCode, symbol);
  if (asset === null) throw new DomainError('BIZ-ASSET-NOT-FOUND');
  return asset;
}

/**
 * What a collection of `asset` would move, judged from its cached available balance by the sweepable rule
 * (core/domain/sweepable-amount.ts): 0 for dust. What the payer page offers and what a threshold counts.
 */
export function cachedSweepable(asset: Asset, available: bigint): bigint {
  return sweepableAmount(cachedHolding(asset.kind, available), MIN_TRX_SWEEP_SUN);
}

/**
 * The cached balance's sweepable amount, or 422 BIZ-AMOUNT-BELOW-MINIMUM when it is dust (issue #24 item 5): a task
 * for it could only fail (BIZ-NOTHING-TO-COLLECT) and send collection.failed. Every use case that starts a collection
 * calls it in its guard, before any threshold of its own.
 */
export function sweepableOrRefuse(asset: Asset, available: bigint): bigint {
  const amount = cachedSweepable(asset, available);
  if (amount > 0n) return amount;
  const held = asset.kind === 'native'
    ? `a ${asset.symbol} collection moves at least ${MIN_TRX_SWEEP_SUN} after fees and the address holds ${available}`
    : `the address holds no ${asset.symbol}`;
  throw new DomainError('BIZ-AMOUNT-BELOW-MINIMUM', {
    message: `nothing to collect: ${held} (cached balance; refresh it if a payment just arrived)`,
  });
}

/** A TRX transfer's size and the SUN a byte burns without bandwidth: the worker's defaults (collectionStepSettings). */
const TRX_TRANSFER_BYTES = 300;
const SUN_PER_BYTE = 1_000n;

/**
 * sweepableOrRefuse, exact for TRX near the minimum: a cached TRX balance that clears 0.1 TRX with the fee at its
 * least but not at its most (no free bandwidth: the transfer burns its bytes) is judged on the sub-address's
 * bandwidth read from the chain, so no task is made that can only fail at PENDING (issue #24 item 5). One node read,
 * only in that band; tokens and clear balances read nothing.
 */
export async function sweepableOnChainOrRefuse(chain: Pick<ChainGateway, 'getResources'>, asset: Asset, address: string, available: bigint): Promise<bigint> {
  const amount = sweepableOrRefuse(asset, available);
  const worstReserve = BigInt(TRX_TRANSFER_BYTES) * SUN_PER_BYTE;
  if (asset.kind !== 'native' || sweepableAmount({ kind: 'native', balance: available, reserveSun: worstReserve }, MIN_TRX_SWEEP_SUN) > 0n) return amount;
  const { bandwidth } = await chain.getResources(address);
  const reserveSun = trxTransferReserveSun({
    bandwidth: { free: bandwidth.freeAvailable, staked: bandwidth.stakedAvailable }, createsRecipient: false,
    transferBytes: TRX_TRANSFER_BYTES, sunPerByte: SUN_PER_BYTE,
  });
  const exact = sweepableAmount({ kind: 'native', balance: available, reserveSun }, MIN_TRX_SWEEP_SUN);
  if (exact > 0n) return exact;
  throw new DomainError('BIZ-AMOUNT-BELOW-MINIMUM', {
    message: `a ${asset.symbol} collection moves at least ${MIN_TRX_SWEEP_SUN} after fees; the address holds ${available} and has no free bandwidth, so the transfer burns ${reserveSun} of it`,
  });
}
