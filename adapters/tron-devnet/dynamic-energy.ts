/**
 * TRON's dynamic energy model (TIP-491, java-tron since GreatVoyage 4.7.1), reduced to what the devnet needs.
 *
 * java-tron keeps, per contract, an `energy_factor` in parts per 10,000 (DYNAMIC_ENERGY_FACTOR_DECIMAL). Once per
 * maintenance cycle (6 h) ContractStateCapsule.catchUpToCycle raises it when the contract's energy usage in the last
 * cycle exceeded getDynamicEnergyThreshold (factor' = (factor + 10,000) × (1 + increase/10,000) − 10,000, capped at
 * getDynamicEnergyMaxFactor) and lets it decay otherwise. While it is above zero, VM.play charges every opcode
 * floor(base × (factor + 10,000) / 10,000): the base plus a penalty, `floor(base × factor / 10,000)` for an integer
 * base. The penalties add up into ProgramResult's energyPenaltyTotal, which the receipt's energy_usage_total and
 * triggerconstantcontract's `energy_used` include, and which triggerconstantcontract also reports alone as
 * `energy_penalty`.
 *
 * The devnet does not run the cycle's arithmetic: the factor of its USDT contract is a chain parameter
 * (`usdtEnergyFactor`) that tests set, as if proposals and the network's usage had moved it there; like java-tron's, it
 * moves only at a maintenance (a set value takes effect at the next one: Chain.toMaintenance, constants.ts
 * MAINTENANCE_PARAMS). The opcode-level rounding is kept,
 * applied to each outcome's opcode profile (constants.ts USDT_PROFILES), so the default factor of 34,000 gives the
 * mainnet-observed 64,285 / 130,285 exactly and any other factor gives what java-tron's rounding would.
 */
import type { OpcodeGroup } from './constants.js';

/** java-tron's Constant.DYNAMIC_ENERGY_FACTOR_DECIMAL. */
export const FACTOR_DECIMAL = 10_000;

/** Energy of executing `profile` under `factor`: the total (base + penalty) and the penalty alone. */
export function profileEnergy(profile: readonly OpcodeGroup[], factor: number): { energy: number; penalty: number } {
  let base = 0;
  let penalty = 0;
  for (const [cost, count] of profile) {
    base += cost * count;
    // VM.play: penalty = energy × (factor + DECIMAL) / DECIMAL − energy, in long arithmetic, per opcode.
    penalty += (Math.floor((cost * (factor + FACTOR_DECIMAL)) / FACTOR_DECIMAL) - cost) * count;
  }
  return { energy: base + penalty, penalty };
}
