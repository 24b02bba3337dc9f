/**
 * Bandwidth and energy accounting modelled on java-tron's BandwidthProcessor / EnergyProcessor: usage recovers
 * linearly over a 24 h window, limits come from stake × network limit / network weight.
 */
import { RESOURCE_WINDOW_MS, SUN_PER_TRX, type ChainParams } from './constants.js';
import { stakeTotals, type Account, type ChainState } from './state.js';

/** Usage left of `usage` recorded at `last` when seen at `now` (linear recovery over the window). */
export function decayed(usage: number, last: number, now: number): number {
  if (usage <= 0) return 0;
  if (now <= last) return usage;
  if (now - last >= RESOURCE_WINDOW_MS) return 0;
  return Math.round((usage * (RESOURCE_WINDOW_MS - (now - last))) / RESOURCE_WINDOW_MS);
}

/**
 * TotalEnergyWeight: TRX staked for energy by the simulated rest of the network (params.baseEnergyWeight plus the
 * state's drift, at least 1) plus every devnet stake (incl. delegated).
 */
export function totalEnergyWeight(s: ChainState, p: ChainParams): number {
  return Math.max(1, p.baseEnergyWeight + s.energyWeightDrift) + Math.floor(stakeTotals(s).energy / SUN_PER_TRX);
}

/**
 * Moves the rest of the network's energy stake by `bps` basis points (signed, |bps| ≤ 10,000) of the current
 * TotalEnergyWeight, as other people's stakes and unstakes in one block would.
 */
export function driftEnergyWeight(s: ChainState, p: ChainParams, bps: number): void {
  const delta = Math.round((totalEnergyWeight(s, p) * bps) / 10_000);
  // Others can unstake at most what they have staked: keep at least 1 TRX of theirs.
  s.energyWeightDrift = Math.max(1 - p.baseEnergyWeight, s.energyWeightDrift + delta);
}

/** TotalNetWeight, same construction for bandwidth. */
export function totalNetWeight(s: ChainState, p: ChainParams): number {
  return p.baseNetWeight + Math.floor(stakeTotals(s).bandwidth / SUN_PER_TRX);
}

/** Energy limit from own (undelegated) stake plus energy delegated to the account (java-tron calculateGlobalEnergyLimit). */
export function energyLimit(a: Account, s: ChainState, p: ChainParams): number {
  const weight = Math.floor((a.frozenEnergy + a.acquiredEnergy) / SUN_PER_TRX);
  return Math.floor(weight * (p.totalEnergyLimit / totalEnergyWeight(s, p)));
}

/** Staked bandwidth limit (java-tron calculateGlobalNetLimit). */
export function netLimit(a: Account, s: ChainState, p: ChainParams): number {
  const weight = Math.floor((a.frozenBandwidth + a.acquiredBandwidth) / SUN_PER_TRX);
  return Math.floor(weight * (p.totalNetLimit / totalNetWeight(s, p)));
}

/** Energy currently used (after recovery). */
export function energyUsed(a: Account, now: number): number {
  return decayed(a.energyUsage, a.latestConsumeTimeForEnergy, now);
}

/** Staked bandwidth currently used. */
export function netUsed(a: Account, now: number): number {
  return decayed(a.netUsage, a.latestConsumeTime, now);
}

/** Free bandwidth currently used. */
export function freeNetUsed(a: Account, now: number): number {
  return decayed(a.freeNetUsage, a.latestConsumeFreeTime, now);
}

/** Energy available from stake right now. */
export function energyLeft(a: Account, s: ChainState, p: ChainParams, now: number): number {
  return Math.max(0, energyLimit(a, s, p) - energyUsed(a, now));
}

/** Records energy consumption at `now` (decay first, then add, like EnergyProcessor.useEnergy). */
export function useEnergy(a: Account, amount: number, now: number): void {
  if (amount <= 0) return;
  a.energyUsage = energyUsed(a, now) + amount;
  a.latestConsumeTimeForEnergy = now;
}

/** Outcome of charging bandwidth for one transaction. */
export interface NetCharge {
  /** Bytes taken from stake or free bandwidth (receipt.net_usage). */
  netUsage: number;
  /** Sun burned for bandwidth (receipt.net_fee). */
  netFee: number;
}

/** Thrown when neither bandwidth nor balance can pay (BANDWITH_ERROR on broadcast). */
export class BandwidthError extends Error {}

/**
 * Charges bandwidth like BandwidthProcessor.consume: a transaction that creates an account may only use staked
 * bandwidth, else it burns getCreateAccountFee (0.1 TRX); otherwise staked bandwidth, then the 600 free bytes,
 * then a burn of bytes × getTransactionFee. Each source is all-or-nothing, as in java-tron.
 */
export function chargeBandwidth(
  a: Account,
  bytes: number,
  createsAccount: boolean,
  s: ChainState,
  p: ChainParams,
  now: number,
): NetCharge {
  const stakedLeft = netLimit(a, s, p) - netUsed(a, now);
  if (createsAccount) {
    if (bytes <= stakedLeft) {
      a.netUsage = netUsed(a, now) + bytes;
      a.latestConsumeTime = now;
      return { netUsage: bytes, netFee: 0 };
    }
    return burn(a, p.createAccountFee, s, 'create new account');
  }
  if (bytes <= stakedLeft) {
    a.netUsage = netUsed(a, now) + bytes;
    a.latestConsumeTime = now;
    return { netUsage: bytes, netFee: 0 };
  }
  if (bytes <= p.freeNetLimit - freeNetUsed(a, now)) {
    a.freeNetUsage = freeNetUsed(a, now) + bytes;
    a.latestConsumeFreeTime = now;
    return { netUsage: bytes, netFee: 0 };
  }
  return burn(a, bytes * p.transactionFee, s, 'transaction');
}

function burn(a: Account, fee: number, s: ChainState, what: string): NetCharge {
  if (a.balance < fee) {
    throw new BandwidthError(`Account has insufficient bandwidth and balance[${a.balance}] to ${what}`);
  }
  a.balance -= fee;
  s.burned += fee;
  return { netUsage: 0, netFee: fee };
}
