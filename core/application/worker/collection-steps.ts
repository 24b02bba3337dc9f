import { DomainError, type ErrorCode } from '../../domain/errors.js';
import { planSweep, TX_BYTES, type PlanDryRun, type SweepInput, type SweepPlan } from '../../domain/sweep-plan.js';
import { spendableSun, sweepableAmount, trxTransferReserveSun, type Holding, type TrxHolding } from '../../domain/sweepable-amount.js';
import { addReceipt, NO_COST } from '../../domain/sweep-cost.js';
import type { TransactionState } from '../../domain/model/chain.js';
import type { PreparedTransaction } from '../../domain/model/command.js';
import type { Asset } from '../../domain/model/asset.js';
import { COLLECTION_STATUS, type CollectionTask, type EnergyPath, type StepRecord } from '../../domain/model/collection-task.js';
import type { SignedTransaction } from '../../domain/model/chain.js';
import type { ChainGateway, Signer, TransactionIntent } from '../../ports/chain-gateway.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { EnergyProvider, EnergyRequest } from '../../ports/energy-provider.port.js';
import { signerFor, type SignerDeps } from './worker-keys.js';
import { STALE_READ_GRACE_MS } from './write-ahead.js';

/** The ports a step plan reads. */
export interface StepDeps extends SignerDeps {
  readonly chain: ChainGateway;
  readonly clock: Clock;
  readonly energy: { readonly self?: EnergyProvider | undefined; readonly rental?: EnergyProvider | undefined };
}

/** Amounts and switches the plans use (see WorkflowOptions for their meaning and defaults). */
export interface StepSettings {
  /** Burning TRX for energy may be chosen (ENERGY_BURN), up to maxBurnSun per sweep when set. */
  readonly burnEnabled: boolean;
  readonly maxBurnSun: bigint | null;
  /** TRX left on a sub-address is swept back only when the recovery nets at least this much. */
  readonly minRecoverSun: bigint;
  readonly feeLimitSun: bigint;
  readonly transferBytes: number;
  readonly sunPerByte: bigint;
}

/**
 * What a step does, decided from chain balances read NOW (never from the request): send a transaction (built and
 * signed here, persisted by the executor before broadcast), record a rental order, complete without sending, or fail.
 */
export type StepPlan =
  | {
    readonly kind: 'send'; readonly tx: SignedTransaction; readonly amount: bigint | null; readonly energyPath?: EnergyPath;
    /** It shares a block with the next step's transaction: its step completes on acceptance (a `pipelined` record). */
    readonly pipelined?: boolean;
  }
  | { readonly kind: 'order'; readonly orderRef: string; readonly energyPath: EnergyPath }
  | { readonly kind: 'skip'; readonly energyPath?: EnergyPath | null }
  /** Nothing to do yet: read the chain again a poll later (an answer that may come from a node behind). */
  | { readonly kind: 'wait'; readonly reason: string }
  | { readonly kind: 'fail'; readonly code: ErrorCode; readonly message: string };

/** The task with its asset resolved. */
export interface StepSubject {
  readonly task: CollectionTask;
  readonly asset: Asset;
  /**
   * A funded withdrawal's transfer (withdrawal-funding.ts): this amount to this address instead of the whole balance
   * to the main address; the plan's dry run and the transfer are made for it. Absent for a collection.
   */
  readonly payout?: { readonly to: string; readonly amount: bigint };
}

/**
 * The first step's gate and COLLECTING's amount: what a sweep moves now, read on chain, by the sweepable rule
 * (core/domain/sweepable-amount.ts: the whole token balance; TRX less its fees, and 0 below minRecoverSun).
 */
export async function collectableAmount(deps: StepDeps, settings: StepSettings, subject: StepSubject): Promise<bigint> {
  const { task, asset } = subject;
  const holding: Holding = asset.kind === 'trc20'
    ? { kind: 'trc20', balance: await deps.chain.getTokenBalance(task.address, asset.contractAddress!) }
    : await trxHolding(deps.chain, settings, task.address, task.mainAddress);
  return sweepableAmount(holding, settings.minRecoverSun);
}

/**
 * The address's TRX and the fees one TRX transfer to `to` burns from it (trxTransferReserveSun), read on chain; an
 * account the transfer creates (a main address that never received anything) costs its creation fee.
 */
async function trxHolding(chain: ChainGateway, settings: StepSettings, address: string, to?: string): Promise<TrxHolding> {
  const [balance, resources, creates] = await Promise.all([
    chain.getTrxBalance(address),
    chain.getResources(address),
    to === undefined ? false : chain.accountExists(to).then((exists) => !exists),
  ]);
  const reserveSun = trxTransferReserveSun({
    bandwidth: { free: resources.bandwidth.freeAvailable, staked: resources.bandwidth.stakedAvailable },
    createsRecipient: creates, transferBytes: settings.transferBytes, sunPerByte: settings.sunPerByte,
  });
  return { kind: 'native', balance, reserveSun };
}

/** SUN the address can send away in one TRX transfer to `to`: its balance less the fees burnt from it (no minimum). */
export async function sweepableSun(chain: ChainGateway, settings: StepSettings, address: string, to?: string): Promise<bigint> {
  const { balance, reserveSun } = await trxHolding(chain, settings, address, to);
  return spendableSun(balance, reserveSun);
}

/**
 * SUN the sub-address's TRC20 sweep burns for bandwidth at `bandwidthSun` per byte: none when its free or staked
 * bandwidth covers the transfer's bytes (a transaction takes its bytes whole from one source).
 */
export async function transferBurnSun(deps: StepDeps, address: string, bandwidthSun: bigint): Promise<bigint> {
  const { bandwidth } = await deps.chain.getResources(address);
  const bytes = TX_BYTES.trc20Transfer;
  return bandwidth.stakedAvailable >= bytes || bandwidth.freeAvailable >= bytes ? 0n : BigInt(bytes) * bandwidthSun;
}

async function send(deps: StepDeps, signer: Signer, intent: TransactionIntent, amount: bigint): Promise<StepPlan> {
  return { kind: 'send', tx: await deps.chain.prepare(signer, intent), amount };
}

/**
 * PENDING, for a TRC20 sweep: read the chain (the sub-address's account, TRX, bandwidth and energy; the transfer's
 * energy from the node's dry run; the main address's TRX and bandwidth; the chain's prices), price every energy
 * source (self-delegation, the rental quote, burning) and decide the plan (core/domain/sweep-plan.ts) before
 * anything is spent. A dry run that reverts is BIZ-TRANSFER-WOULD-REVERT; no source that fits is
 * BIZ-ENERGY-UNAVAILABLE: both before any transaction.
 */
export async function planTrc20Sweep(deps: StepDeps, settings: StepSettings, { task, asset, payout }: StepSubject, amount: bigint): Promise<SweepPlan> {
  const [needed, period, subExists, subResources, subTrxSun, mainTrxSun, mainResources, prices] = await Promise.all([
    deps.chain.estimateTrc20TransferEnergy(task.address, payout?.to ?? task.mainAddress, asset.contractAddress!, amount),
    deps.chain.maintenancePeriod(),
    deps.chain.accountExists(task.address),
    deps.chain.getResources(task.address),
    deps.chain.getTrxBalance(task.address),
    deps.chain.getTrxBalance(task.mainAddress),
    deps.chain.getResources(task.mainAddress),
    deps.chain.getChainPrices(),
  ]);
  const shortfall = Math.max(0, needed - subResources.energy.available);
  const main = await signerFor(deps, task.mainAddress);
  const request: EnergyRequest = { receiver: task.address, energy: Math.max(shortfall, 1), reference: task.taskNo };
  const self = deps.energy.self;
  const rental = deps.energy.rental;
  const [selfFeasible, rentalQuote] = await Promise.all([
    shortfall > 0 && self !== undefined ? self.canProvide(request, main) : Promise.resolve(false),
    shortfall > 0 && rental !== undefined
      ? quoteOf(rental, { ...request, energy: rentalEnergy(needed) }, main, BigInt(shortfall) * prices.energySun) : Promise.resolve(null),
  ]);
  const input: SweepInput = {
    subExists, subTrxSun, subEnergy: subResources.energy.available, energyNeeded: needed,
    subBandwidth: { staked: subResources.bandwidth.stakedAvailable, free: subResources.bandwidth.freeAvailable },
    mainTrxSun, mainBandwidth: { staked: mainResources.bandwidth.stakedAvailable, free: mainResources.bandwidth.freeAvailable },
    energySun: prices.energySun, bandwidthSun: prices.bandwidthSun,
    self: self === undefined ? null : { feasible: selfFeasible }, rental: rentalQuote, rentalConfigured: rental !== undefined,
    burnEnabled: settings.burnEnabled, maxBurnSun: settings.maxBurnSun, minRecoverSun: settings.minRecoverSun,
    mainAddress: task.mainAddress,
  };
  let decision = planSweep(input);
  if ('refusal' in decision && input.self !== null && shortfall > 0) {
    // Refused: a second decision only to name the stake self-delegation would need (one more read, on refusals only).
    decision = planSweep({ ...input, self: { feasible: false, stakeSun: await stakeFor(deps.chain, shortfall) } });
  }
  if ('refusal' in decision) throw new DomainError('BIZ-ENERGY-UNAVAILABLE', { message: decision.refusal });
  // Kept for the later steps: the energy wait and the sweep use this dry run instead of making their own, while the
  // maintenance period it was made in lasts or, where the gateway cannot tell it, while the factor it ran at does.
  const mark = period !== null ? { period } : { factor: await deps.chain.energyFactor(asset.contractAddress!) };
  return { ...decision.plan, dryRun: { amount, energy: needed, subTrxSun, at: deps.clock.now(), ...mark } };
}

/**
 * About how much free energy stake delegates `energy` at the network's ratio now, with the self-delegation provider's
 * default 5 % margin (for a refusal's message; the provider sizes the real delegation).
 */
async function stakeFor(chain: ChainGateway, energy: number): Promise<bigint | undefined> {
  const perSun = await chain.energyPerStakedSun().catch(() => 0);
  if (!(perSun > 0)) return undefined;
  return BigInt(Math.ceil((energy * 1.05) / perSun));
}

/**
 * How long a plan's dry run stands for the sweep it planned (issue #27: one dry run per plan): 10 minutes. Its
 * inputs do not change meanwhile except the token contract's dynamic energy factor, which moves at a maintenance
 * (every 6 h, by a bounded step): a task older than this dry-runs again. A deposit that arrives meanwhile is taken
 * by the next sweep (the sweep moves the amount its plan dry-ran).
 */
export const DRY_RUN_REUSE_MS = 10 * 60_000;

/**
 * The plan's dry run, while it stands: younger than DRY_RUN_REUSE_MS and made in the maintenance period the gateway
 * still marks (TRON moves a contract's dynamic energy factor only at a maintenance), or at the token contract's
 * current dynamic energy factor (kept for the period, shared by every sweep of the token); null: run it again.
 */
export async function standingDryRun(deps: Pick<StepDeps, 'clock' | 'chain'>, { task, asset }: StepSubject): Promise<PlanDryRun | null> {
  const dryRun = task.plan?.dryRun;
  if (dryRun === undefined || deps.clock.now() - dryRun.at > DRY_RUN_REUSE_MS || asset.contractAddress === null) return null;
  if (dryRun.period !== undefined) return (await deps.chain.maintenancePeriod()) === dryRun.period ? dryRun : null;
  if (dryRun.factor === undefined) return null;
  const factor = await deps.chain.energyFactor(asset.contractAddress);
  return dryRun.factor === factor ? dryRun : null;
}

/**
 * Whether the sub-address may hold TRX worth recovering after the sweep: the plan funded it, or it held that much
 * before (a plan without its dry run: assume so). When not, UNDELEGATING_ENERGY and RECOVER_TRX read nothing for
 * it: TRX that arrives meanwhile is a deposit, taken by a TRX collection (the sub-address's key is ours, so nothing
 * else can move what is there).
 */
export function mayRecover(settings: StepSettings, task: CollectionTask): boolean {
  const plan = task.plan;
  if (plan?.dryRun === undefined) return true;
  // It can never hold more than it held plus what FUNDING_TRX sends it (the sweep's fees only take away).
  const sent = [plan.fundSun, plan.subNeedsSun, plan.activate ? 1n : 0n].reduce((a, b) => (a > b ? a : b));
  return plan.dryRun.subTrxSun + sent >= settings.minRecoverSun;
}

/**
 * Energy to rent for a transfer that needs `needed`: all of it (energy a sub-address holds from an earlier rental
 * is the provider's to reclaim at any moment, and a reclaim moves usage with it), plus 1 %: a provider delegates
 * stake, and the network's energy per staked TRX rounds (and drifts) against the receiver, so an exact order can
 * arrive a few units short, and the sub-address has no TRX to burn for them (only a self-delegation gets a top-up).
 */
export function rentalEnergy(needed: number): number {
  return Math.ceil(needed * 1.01);
}

/**
 * A rental's price for the request: its quote, or (a provider that does not price) what burning the energy would
 * cost, so that it is never taken for cheaper than it may be; null when it cannot deliver.
 */
async function quoteOf(rental: EnergyProvider, request: EnergyRequest, main: Signer, burnEquivalent: bigint) {
  if (rental.quote !== undefined) {
    const quote = await rental.quote(request, main);
    return quote === null ? null : { provider: quote.provider, priceSun: quote.priceSun };
  }
  return (await rental.canProvide(request, main)) ? { provider: rental.name, priceSun: burnEquivalent } : null;
}

/**
 * FUNDING_TRX: only what the plan says the sub-address needs and does not hold now (a burn's energy, bandwidth it
 * cannot cover), and 1 SUN to activate a sub-address that does not exist yet (the main address pays the chain's
 * creation fee); nothing at all for an activated sub-address whose bandwidth covers its sweep.
 */
export async function planFunding(deps: StepDeps, _settings: StepSettings, { task }: StepSubject): Promise<StepPlan> {
  const plan = task.plan;
  const [balance, exists] = await Promise.all([deps.chain.getTrxBalance(task.address), deps.chain.accountExists(task.address)]);
  const need = plan?.subNeedsSun ?? 0n;
  const missing = need > balance ? need - balance : 0n;
  const amount = missing > 0n ? missing : exists ? 0n : 1n;
  if (amount === 0n) return { kind: 'skip' };
  const main = await signerFor(deps, task.mainAddress);
  const funding = await send(deps, main, { kind: 'transfer-trx', to: task.address, amountSun: amount }, amount);
  // An activated sub-address's funding shares a block with its delegation; the energy wait awaits it.
  return plan?.activate === false && funding.kind === 'send' ? { ...funding, pipelined: true } : funding;
}

/** Energy the sweep needs now, and what the sub-address already has. */
export async function energyNeed(deps: StepDeps, { task, asset, payout }: StepSubject): Promise<{ needed: number; available: number }> {
  const dryRun = await standingDryRun(deps, { task, asset });
  if (dryRun !== null) return { needed: dryRun.energy, available: await deps.chain.energyAvailable(task.address) };
  const amount = payout?.amount ?? await deps.chain.getTokenBalance(task.address, asset.contractAddress!);
  const [needed, resources] = await Promise.all([
    deps.chain.estimateTrc20TransferEnergy(task.address, payout?.to ?? task.mainAddress, asset.contractAddress!, amount > 0n ? amount : 1n),
    deps.chain.getResources(task.address),
  ]);
  return { needed, available: resources.energy.available };
}

/**
 * WAIT_ENERGY_READY's test: the transfer can go out now when the sub-address has the energy it needs, or the TRX to
 * burn for what it lacks (at the chain's energy price, beside the transfer's bandwidth). Else what is missing.
 */
export async function energyReadiness(
  deps: StepDeps, subject: StepSubject,
): Promise<{ readonly ready: true } | { readonly ready: false; readonly needed: number; readonly available: number }> {
  const { task } = subject;
  const { needed, available } = await energyNeed(deps, subject);
  if (available >= needed) return { ready: true };
  const [prices, balance] = await Promise.all([deps.chain.getChainPrices(), deps.chain.getTrxBalance(task.address)]);
  const burnForBandwidth = await transferBurnSun(deps, task.address, prices.bandwidthSun);
  if (BigInt(needed - available) * prices.energySun + burnForBandwidth <= balance) return { ready: true };
  return { ready: false, needed, available };
}

/**
 * WAIT_ENERGY_READY's one top-up on the self-delegation path: a delegation of the shortfall from the main address
 * (the network's energy weight moves every block, so a delegation sized minutes ago can come up short); null when
 * self-delegation cannot provide it.
 */
export async function planTopUp(deps: StepDeps, { task }: StepSubject, shortfall: number): Promise<StepPlan | null> {
  const self = deps.energy.self;
  if (self === undefined) return null;
  const main = await signerFor(deps, task.mainAddress);
  const request = { receiver: task.address, energy: shortfall, reference: `${task.taskNo}:top-up` };
  if (!(await self.canProvide(request, main))) return null;
  const order = await self.acquire(request, main);
  return order.kind === 'transaction' ? { kind: 'send', tx: order.tx, amount: order.delegatedSun ?? null } : null;
}

/**
 * ACQUIRING_ENERGY: the source the plan chose, for the shortfall as it is now (the sub-address may have gained
 * energy since): self-delegation is a transaction from the main address, a rental an order keyed by the task number
 * (so a repeated order after a crash finds the first one), burning and an energy-ready sub send nothing.
 */
export async function planEnergy(deps: StepDeps, _settings: StepSettings, subject: StepSubject): Promise<StepPlan> {
  const { task } = subject;
  const path = task.plan?.path ?? 'none';
  if (path === 'none') return { kind: 'skip', energyPath: null };
  if (path === 'burn') return { kind: 'skip', energyPath: 'burn' };
  const { needed, available } = await energyNeed(deps, subject);
  const shortfall = needed - available;
  if (shortfall <= 0) return { kind: 'skip', energyPath: null };
  const provider = path === 'self' ? deps.energy.self : deps.energy.rental;
  if (provider === undefined) return { kind: 'fail', code: 'BIZ-ENERGY-UNAVAILABLE', message: `the planned energy source (${path}) is not configured` };
  const main = await signerFor(deps, task.mainAddress);
  const energy = path === 'rental' ? rentalEnergy(needed) : shortfall;
  const order = await provider.acquire({ receiver: task.address, energy, reference: task.taskNo }, main);
  if (order.kind === 'order') return { kind: 'order', orderRef: order.orderId, energyPath: path };
  return { kind: 'send', tx: order.tx, amount: order.delegatedSun ?? null, energyPath: path };
}

/**
 * ACQUIRING_ENERGY, for a collection and a funded withdrawal alike: a rental order recorded by an earlier visit
 * (`orderRef`, from the step's open record) is followed (delivered: the step completes; failed, or no rental provider
 * configured any more: BIZ-ENERGY-UNAVAILABLE; else read again a poll later); with none, the plan's source (planEnergy).
 */
export async function planAcquireEnergy(deps: StepDeps, settings: StepSettings, subject: StepSubject, orderRef: string | null | undefined): Promise<StepPlan> {
  if (orderRef == null) return planEnergy(deps, settings, subject);
  const rental = deps.energy.rental;
  if (rental === undefined) return { kind: 'fail', code: 'BIZ-ENERGY-UNAVAILABLE', message: 'rental order recorded but no rental provider configured' };
  const status = await rental.orderStatus(orderRef);
  if (status === 'delivered') return { kind: 'skip' };
  if (status === 'failed') return { kind: 'fail', code: 'BIZ-ENERGY-UNAVAILABLE', message: `energy rental order ${orderRef} failed` };
  return { kind: 'wait', reason: `energy rental order ${orderRef} not delivered yet` };
}

/**
 * COLLECTING: the whole balance of the asset as it stands on chain now, to the main address; for a funded withdrawal
 * (`payout`), its amount to its destination.
 */
export async function planCollecting(deps: StepDeps, settings: StepSettings, subject: StepSubject): Promise<StepPlan> {
  const { task, asset, payout } = subject;
  // A token sweep moves what its plan dry-ran (its energy was sized for that transfer); TRX is read (fees vary); a
  // funded withdrawal moves its amount, to its destination.
  const dryRun = asset.kind === 'trc20' && payout === undefined ? await standingDryRun(deps, subject) : null;
  const amount = payout?.amount ?? dryRun?.amount ?? await collectableAmount(deps, settings, subject);
  if (amount <= 0n) return { kind: 'fail', code: 'BIZ-NOTHING-TO-COLLECT', message: `${task.address} holds no ${asset.symbol} to collect` };
  const sub = await signerFor(deps, task.address);
  const to = payout?.to ?? task.mainAddress;
  const intent: TransactionIntent = asset.kind === 'trc20'
    ? { kind: 'transfer-trc20', contract: asset.contractAddress!, to, amount, feeLimitSun: settings.feeLimitSun }
    : { kind: 'transfer-trx', to, amountSun: amount };
  return send(deps, sub, intent, amount);
}

/**
 * UNDELEGATING_ENERGY: give back the stake the task delegated (the recorded amounts of its delegation and top-up),
 * never more than the sub-address still receives (a delegation already taken back leaves nothing to do).
 */
export async function planUndelegation(deps: StepDeps, _settings: StepSettings, { task }: StepSubject): Promise<StepPlan> {
  // Every delegation sent, landed or not: one that never landed only makes the sum exceed what is received.
  const delegations = delegationRecords(task);
  const known = delegations.length > 0 && delegations.every((s) => s.amount != null);
  // The first undelegation gives back what was recorded, with no read (issue #27): every delegation landed (the
  // runner followed each to its depth) and only this task's main address undelegates while the task holds the
  // address. An attempt that was dropped (dead, or refused as more than is delegated) reads the chain instead.
  if (known && !undelegationDropped(task) && delegations.every((s) => s.completedAt !== null && settledDelegation(task, s))) {
    const main = await signerFor(deps, task.mainAddress);
    const recorded = delegations.reduce((sum, s) => sum + s.amount!, 0n);
    return send(deps, main, { kind: 'undelegate', resource: 'ENERGY', receiver: task.address, amountSun: recorded }, recorded);
  }
  const received = (await deps.chain.getResources(task.address)).energy.receivedSun;
  const recorded = known ? delegations.reduce((sum, s) => sum + s.amount!, 0n) : received;
  // Less received than delegated soon after the last delegation, or after an undelegation was dropped (the first
  // read since): the answering node may be behind (only this task's main address undelegates), and giving back only
  // what it shows would leave the rest delegated for good.
  const dropped = task.steps.filter((s) => s.status === COLLECTION_STATUS.UNDELEGATING_ENERGY && s.transaction === null && s.completedAt !== null);
  const lastChange = Math.max(...delegations.map((s) => s.completedAt ?? s.startedAt), ...dropped.map((s) => s.completedAt!));
  if (received < recorded && deps.clock.now() - lastChange < STALE_READ_GRACE_MS) {
    return { kind: 'wait', reason: `${task.address} shows ${received} SUN of the ${recorded} delegated` };
  }
  const amount = recorded < received ? recorded : received;
  if (amount <= 0n) return { kind: 'skip' };
  const main = await signerFor(deps, task.mainAddress);
  return send(deps, main, { kind: 'undelegate', resource: 'ENERGY', receiver: task.address, amountSun: amount }, amount);
}

/** Whether a delegation record's transaction is settled in the task's cost (its receipt noted: it landed). */
function settledDelegation(task: CollectionTask, step: StepRecord): boolean {
  return step.transaction !== null && (task.cost?.txids ?? []).includes(step.transaction.txid);
}

/**
 * Whether an undelegation of this task was dropped before (its record kept closed without a transaction: see the
 * collection workflow's withRecord): then what is still delegated is read, never assumed.
 */
export function undelegationDropped(task: CollectionTask): boolean {
  return task.steps.some((s) => s.status === COLLECTION_STATUS.UNDELEGATING_ENERGY && s.transaction === null && s.completedAt !== null);
}

/**
 * The self-delegations a task sent: its ACQUIRING_ENERGY transaction on the self path, and a top-up delegation sent
 * while waiting for energy. What UNDELEGATING_ENERGY (or a reclaim) gives back.
 */
export function delegationRecords(task: CollectionTask): StepRecord[] {
  if (task.energyPath !== 'self') return [];
  return task.steps.filter((s) => s.transaction !== null
    && (s.status === COLLECTION_STATUS.ACQUIRING_ENERGY || s.status === COLLECTION_STATUS.WAIT_ENERGY_READY));
}

/** What RECOVER_TRX would send back now: the sub-address's sweepable TRX, or 0 when that is dust (below minRecoverSun). */
export async function planRecoveryAmount(deps: StepDeps, settings: StepSettings, { task }: StepSubject): Promise<bigint> {
  return sweepableAmount(await trxHolding(deps.chain, settings, task.address, task.mainAddress), settings.minRecoverSun);
}

/** RECOVER_TRX: whatever TRX the sub-address can still send goes back to the main address. */
export async function planRecovery(deps: StepDeps, settings: StepSettings, subject: StepSubject): Promise<StepPlan> {
  const { task } = subject;
  const amount = await planRecoveryAmount(deps, settings, subject);
  if (amount === 0n) return { kind: 'skip' };
  const sub = await signerFor(deps, task.address);
  return send(deps, sub, { kind: 'transfer-trx', to: task.mainAddress, amountSun: amount }, amount);
}

/**
 * The task with a receipt of one of its transactions (its own steps' or its reclaim's) counted in its cost: the fees
 * burnt, and the TRX a FUNDING_TRX lent or a RECOVER_TRX returned when it succeeded.
 */
export function withReceipt(task: CollectionTask, tx: PreparedTransaction, state: TransactionState): CollectionTask {
  if (state.state !== 'confirmed' && state.state !== 'failed') return task;
  const step = [...task.steps, ...(task.reclaim?.steps ?? [])].find((s) => s.transaction?.txid === tx.txid);
  const moved = step?.status === COLLECTION_STATUS.FUNDING_TRX ? { lentSun: step.amount ?? 0n }
    : step?.status === COLLECTION_STATUS.RECOVER_TRX && step.purpose === undefined ? { returnedSun: step.amount ?? 0n } : {};
  return { ...task, cost: addReceipt(task.cost ?? NO_COST, tx.txid, state, moved) };
}

/** The task with the rental price its plan chose counted in its cost (once the order delivered). */
export function withRentalPaid(task: CollectionTask): CollectionTask {
  const price = task.plan?.path === 'rental' ? task.plan.sourceSun : 0n;
  if (price === 0n) return task;
  const cost = task.cost ?? NO_COST;
  return { ...task, cost: { ...cost, rentalSun: cost.rentalSun + price } };
}
