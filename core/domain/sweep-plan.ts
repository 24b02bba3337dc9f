import type { EnergyPath } from './model/collection-task.js';

/**
 * Sizes of the transactions of a sweep as tronweb builds them (one signature plus the 64 result bytes;
 * tron-facts.md): what each takes from one bandwidth source.
 */
export const TX_BYTES = { trxTransfer: 267, trc20Transfer: 345, delegate: 279, undelegate: 281 } as const;

/** TRON's fee for a transfer that creates its recipient (getCreateNewAccountFeeInSystemContract, 1 TRX). */
export const ACTIVATION_FEE_SUN = 1_000_000n;
/** The bandwidth fee of an account-creating transfer unless staked bandwidth pays it (getCreateAccountFee, 0.1 TRX). */
export const ACTIVATION_BANDWIDTH_FEE_SUN = 100_000n;

/** An account's bandwidth as a planner sees it: what is left of its staked and its free bytes today. */
export interface Bandwidth {
  readonly staked: number;
  readonly free: number;
}

/** Everything the sweep planner reads from the chain and the providers before anything is spent. */
export interface SweepInput {
  /** The sub-address exists on chain (a delegation to it needs that; a TRX transfer creates it). */
  readonly subExists: boolean;
  readonly subTrxSun: bigint;
  readonly subBandwidth: Bandwidth;
  /** Energy the sub-address has now, and what its transfer needs (the node's dry run). */
  readonly subEnergy: number;
  readonly energyNeeded: number;
  readonly mainTrxSun: bigint;
  readonly mainBandwidth: Bandwidth;
  /** SUN per energy unit and per bandwidth byte when burnt (getchainparameters). */
  readonly energySun: bigint;
  readonly bandwidthSun: bigint;
  /**
   * What self-delegation can cover now (null: no self-delegation provider is configured). `stakeSun`, when known, is
   * the free energy stake the main address would need to delegate the shortfall: the refusal names it.
   */
  readonly self: { readonly feasible: boolean; readonly stakeSun?: bigint } | null;
  /** The best rental quote for the shortfall within its price cap, or null (none, or no rental configured). */
  readonly rental: { readonly provider: string; readonly priceSun: bigint } | null;
  /** A rental provider is configured: when not, no rental option is priced and no refusal speaks of one. */
  readonly rentalConfigured: boolean;
  readonly burnEnabled: boolean;
  /** The most a burn may cost (null: no cap beyond ENERGY_BURN itself). */
  readonly maxBurnSun: bigint | null;
  /** TRX left on the sub-address is swept back only when the recovery nets at least this much. */
  readonly minRecoverSun: bigint;
  /** The main address, named in a refusal's fixes when given. */
  readonly mainAddress?: string;
}

/** One priced way to sweep. */
export interface SweepOption {
  readonly path: EnergyPath | 'none';
  readonly provider: string | null;
  /** TRX the sweep costs on this path: burnt fees, activation and the rental price (nothing lent and returned). */
  readonly costSun: bigint;
  /** Why it cannot be taken (null: it can). */
  readonly refusal: string | null;
}

/** The plan a collection follows from FUNDING_TRX on, decided at PENDING. */
export interface SweepPlan {
  /** The chosen energy source: `none` when the sub-address already has the energy. */
  readonly path: EnergyPath | 'none';
  readonly provider: string | null;
  /** Energy to acquire (the shortfall), 0 on `none`. */
  readonly energy: number;
  /** FUNDING_TRX activates the sub-address (a transfer that creates it). */
  readonly activate: boolean;
  /** TRX the sub-address must hold before the sweep (energy burn and bandwidth it cannot cover otherwise). */
  readonly subNeedsSun: bigint;
  /** TRX FUNDING_TRX sends (0: the step sends nothing). */
  readonly fundSun: bigint;
  /** The chosen source's own price: the rental's quote, the burn's energy, 0 for self-delegation. */
  readonly sourceSun: bigint;
  /** The cost the plan expects, and every option priced. */
  readonly estimatedCostSun: bigint;
  readonly options: readonly SweepOption[];
  /**
   * What the plan was read from, kept so later steps need not read it again (issue #27: one dry run per plan): the
   * token amount the node's dry run moved, the energy it took, the sub-address's TRX then, and when (Clock ms).
   * Absent on plans stored before it existed.
   */
  readonly dryRun?: PlanDryRun;
}

/** See SweepPlan.dryRun. */
export interface PlanDryRun {
  readonly amount: bigint;
  readonly energy: number;
  readonly subTrxSun: bigint;
  readonly at: number;
  /** The token contract's dynamic energy factor then (absent where the plan read the period instead). */
  readonly factor?: number;
  /** ChainGateway.maintenancePeriod then, where the gateway knew it (the factor was not read then). */
  readonly period?: number;
}

/**
 * No source fits: `refusal` says why, naming only the sources configured, then what would make one fit (`fixes`, also
 * listed on their own: stake on the main address, a rental provider, ENERGY_BURN, TRX for the main address).
 */
export type SweepDecision = { readonly plan: SweepPlan } | { readonly refusal: string; readonly fixes: readonly string[]; readonly options: readonly SweepOption[] };

/** Takes `bytes` from one source, staked first, then free, else burns them: returns the SUN burnt. */
class BandwidthMeter {
  private staked: number;
  private free: number;
  constructor(start: Bandwidth, private readonly sunPerByte: bigint) {
    this.staked = start.staked;
    this.free = start.free;
  }

  take(bytes: number, freeAllowed = true): bigint {
    if (this.staked >= bytes) {
      this.staked -= bytes;
      return 0n;
    }
    if (freeAllowed && this.free >= bytes) {
      this.free -= bytes;
      return 0n;
    }
    return BigInt(bytes) * this.sunPerByte;
  }

  /** Whether staked bandwidth pays `bytes` (what an account-creating transfer needs to avoid its 0.1 TRX fee). */
  stakedCovers(bytes: number): boolean {
    return this.staked >= bytes;
  }
}

/**
 * Prices one path: the sub-address's needs (its sweep's bandwidth, a burn's energy), the funding that brings them
 * (and activates a new sub-address), the main address's transactions (funding, delegation and undelegation) and
 * the recovery of what would be left. Bandwidth is taken per transaction from one source, in order.
 */
function price(input: SweepInput, path: EnergyPath | 'none', shortfall: number, rentalSun: bigint): { costSun: bigint; subNeedsSun: bigint; fundSun: bigint } {
  const main = new BandwidthMeter(input.mainBandwidth, input.bandwidthSun);
  const sub = new BandwidthMeter(input.subExists ? input.subBandwidth : { staked: 0, free: 600 }, input.bandwidthSun);
  const energyBurn = path === 'burn' ? BigInt(shortfall) * input.energySun : 0n;
  // The sweep's own bandwidth: burnt from the sub's TRX when neither staked nor free bytes cover it.
  const sweepBandwidth = sub.take(TX_BYTES.trc20Transfer);
  const subNeedsSun = energyBurn + sweepBandwidth;
  const missing = subNeedsSun > input.subTrxSun ? subNeedsSun - input.subTrxSun : 0n;
  const fundSun = missing > 0n ? missing : input.subExists ? 0n : 1n;
  let costSun = energyBurn + sweepBandwidth + rentalSun;
  if (fundSun > 0n) {
    if (!input.subExists) {
      costSun += ACTIVATION_FEE_SUN;
      costSun += main.stakedCovers(TX_BYTES.trxTransfer) ? main.take(TX_BYTES.trxTransfer, false) : ACTIVATION_BANDWIDTH_FEE_SUN;
    } else {
      costSun += main.take(TX_BYTES.trxTransfer);
    }
  }
  if (path === 'self') costSun += main.take(TX_BYTES.delegate) + main.take(TX_BYTES.undelegate);
  // What is left on the sub after the sweep goes home only when that is worth its own transfer.
  const left = input.subTrxSun + fundSun - subNeedsSun;
  const recoveryBurn = sub.take(TX_BYTES.trxTransfer);
  if (left - recoveryBurn >= input.minRecoverSun) costSun += recoveryBurn;
  return { costSun, subNeedsSun, fundSun };
}

/**
 * The sweep engine's choice (issue #10, "plan before spending"): every energy source priced — self-delegation (no
 * energy cost, the main address's bandwidth for its delegation and undelegation), the best rental quote, burning at
 * the chain's energy price — and the cheapest that can be taken. When none can, the refusal says why and nothing is
 * sent. Pure: the planner reads the chain, this decides.
 */
export function planSweep(input: SweepInput): SweepDecision {
  const shortfall = Math.max(0, input.energyNeeded - input.subEnergy);
  const options: SweepOption[] = [];
  const add = (path: EnergyPath | 'none', provider: string | null, rentalSun: bigint, refusal: string | null): void => {
    const { costSun } = price(input, path, shortfall, rentalSun);
    options.push({ path, provider, costSun, refusal });
  };
  if (shortfall === 0) {
    add('none', null, 0n, null);
  } else {
    if (input.self !== null) add('self', null, 0n, input.self.feasible ? null : 'the main address cannot delegate enough energy');
    if (input.rentalConfigured) {
      add('rental', input.rental?.provider ?? null, input.rental?.priceSun ?? 0n, input.rental === null ? 'no rental quote within the price cap' : null);
    }
    const burn = BigInt(shortfall) * input.energySun;
    add('burn', null, 0n, !input.burnEnabled ? 'burning TRX for energy is disabled (ENERGY_BURN)'
      : input.maxBurnSun !== null && burn > input.maxBurnSun ? `burning ${burn} SUN exceeds the cap of ${input.maxBurnSun} SUN` : null);
  }
  // The least TRX the main address lacks for a source that fits otherwise (null: none lacks it).
  let mainLacks: bigint | null = null;
  const affordable = options.map((o) => {
    if (o.refusal !== null) return o;
    const { fundSun } = price(input, o.path, shortfall, 0n);
    const mainSpends = fundSun + (input.subExists ? 0n : ACTIVATION_FEE_SUN + ACTIVATION_BANDWIDTH_FEE_SUN);
    if (mainSpends <= input.mainTrxSun) return o;
    const lacks = mainSpends - input.mainTrxSun;
    if (mainLacks === null || lacks < mainLacks) mainLacks = lacks;
    return { ...o, refusal: `the main address holds ${input.mainTrxSun} SUN, ${mainSpends} SUN needed` };
  });
  const candidates = affordable.filter((o) => o.refusal === null).sort((a, b) => (a.costSun < b.costSun ? -1 : a.costSun > b.costSun ? 1 : 0));
  const best = candidates[0];
  if (best === undefined) {
    const fixes = sweepFixes(input, shortfall, mainLacks);
    return {
      refusal: `no energy source for ${shortfall} energy: ${affordable.map((o) => `${o.path}: ${o.refusal}`).join('; ')}. To sweep, ${fixes.join('; or ')}`,
      fixes, options: affordable,
    };
  }
  const { subNeedsSun, fundSun } = price(input, best.path, shortfall, 0n);
  const sourceSun = best.path === 'rental' ? input.rental!.priceSun : best.path === 'burn' ? BigInt(shortfall) * input.energySun : 0n;
  return {
    plan: {
      path: best.path, provider: best.provider, energy: best.path === 'none' ? 0 : shortfall, activate: !input.subExists,
      subNeedsSun, fundSun, sourceSun, estimatedCostSun: best.costSun, options: affordable,
    },
  };
}

const SUN_PER_TRX = 1_000_000n;

/** SUN as whole TRX, rounded up (what an operator is told to stake or send). */
function trxUp(sun: bigint): string {
  return `${(sun + SUN_PER_TRX - 1n) / SUN_PER_TRX} TRX`;
}

/**
 * What would let a refused sweep find its energy (issue #34): one fix per source, in the order of what they cost a
 * sweep (a stake lends and takes back; a rental is paid per sweep; a burn costs the most). A source that is not
 * configured is offered as something to configure, never given a reason of its own.
 */
function sweepFixes(input: SweepInput, shortfall: number, mainLacks: bigint | null): string[] {
  const main = input.mainAddress === undefined ? 'the main address' : `the main address ${input.mainAddress}`;
  const stake = `POST /wallets/${input.mainAddress ?? '{address}'}/stake with resource ENERGY`;
  const fixes: string[] = [];
  if (mainLacks !== null) fixes.push(`send at least ${trxUp(mainLacks)} to ${main} (it pays the sub-address's activation and fees)`);
  if (shortfall === 0) return fixes;
  if (input.self !== null && !input.self.feasible) {
    const amount = input.self.stakeSun === undefined ? 'TRX' : `about ${trxUp(input.self.stakeSun)}`;
    fixes.push(`stake ${amount} for energy on ${main} (${stake}) so that it can delegate ${shortfall} energy`);
  }
  if (!input.rentalConfigured) {
    fixes.push('configure an energy rental provider (ENERGY_PROVIDER=rental with TRONSAVE_API_KEY, or ITRX_API_KEY and ITRX_API_SECRET)');
  } else if (input.rental === null) {
    fixes.push('wait for a rental quote within the price cap, or raise ENERGY_RENTAL_MAX_PRICE_SUN');
  }
  const burn = BigInt(shortfall) * input.energySun;
  if (!input.burnEnabled) fixes.push(`set ENERGY_BURN=true (this sweep would burn about ${trxUp(burn)} for its energy)`);
  else if (input.maxBurnSun !== null && burn > input.maxBurnSun) fixes.push(`raise ENERGY_BURN_MAX_SUN to at least ${burn}`);
  return fixes;
}
