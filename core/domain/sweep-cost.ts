import type { TransactionState } from './model/chain.js';

/**
 * What a collection actually cost, read from its transactions' receipts (and the rental price it paid): TRX burnt
 * for bandwidth and for energy, the chain's own fees (an account's activation), the rental price; beside it the TRX
 * that only moved between the main address and the sub-address (lent in FUNDING_TRX, returned by RECOVER_TRX or a
 * reclaim). Each receipt is counted once (`txids`: every transaction settled, by its receipt or proven dead).
 */
export interface SweepCost {
  readonly bandwidthSun: bigint;
  readonly energySun: bigint;
  readonly activationSun: bigint;
  readonly rentalSun: bigint;
  readonly lentSun: bigint;
  readonly returnedSun: bigint;
  readonly txids: readonly string[];
}

export const NO_COST: SweepCost = { bandwidthSun: 0n, energySun: 0n, activationSun: 0n, rentalSun: 0n, lentSun: 0n, returnedSun: 0n, txids: [] };

/** TRX the sweep cost: what was burnt, the chain's fees and the rental price (lending and returning cost nothing). */
/**
 * The cost with a transaction proven dead (never included, expired): it cost nothing, and is settled like a counted
 * receipt, so nothing waits for it again.
 */
export function settleDead(cost: SweepCost, txid: string): SweepCost {
  return cost.txids.includes(txid) ? cost : { ...cost, txids: [...cost.txids, txid] };
}

export function totalCostSun(cost: SweepCost): bigint {
  return cost.bandwidthSun + cost.energySun + cost.activationSun + cost.rentalSun;
}

/**
 * The cost with one more receipt: its bandwidth and energy burns, the rest of its fee as the chain's own fee (an
 * account creation), and the TRX it moved between main and sub when it succeeded. A receipt already counted changes
 * nothing.
 */
export function addReceipt(
  cost: SweepCost, txid: string, state: Extract<TransactionState, { state: 'confirmed' | 'failed' }>,
  moved: { readonly lentSun?: bigint; readonly returnedSun?: bigint } = {},
): SweepCost {
  if (cost.txids.includes(txid)) return cost;
  const net = state.netFeeSun ?? 0n;
  const energy = state.energyFeeSun ?? 0n;
  const rest = state.feeSun - net - energy;
  const ok = state.state === 'confirmed';
  return {
    bandwidthSun: cost.bandwidthSun + net,
    energySun: cost.energySun + energy,
    activationSun: cost.activationSun + (rest > 0n ? rest : 0n),
    rentalSun: cost.rentalSun,
    lentSun: cost.lentSun + (ok ? moved.lentSun ?? 0n : 0n),
    returnedSun: cost.returnedSun + (ok ? moved.returnedSun ?? 0n : 0n),
    txids: [...cost.txids, txid],
  };
}
