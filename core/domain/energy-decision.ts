import type { EnergyPath } from './model/collection-task.js';

/** What the worker knows when it picks an energy source for a TRC20 sweep. Energy in units, not SUN. */
export interface EnergyInput {
  /** Energy the transfer will consume (ChainGateway.estimateTrc20TransferEnergy). */
  readonly needed: number;
  /** Energy the sub-address already has available. */
  readonly alreadyAvailable: number;
  /** Energy the main address can still delegate (its delegatable stake converted to energy). */
  readonly selfDelegatableEnergy: number;
  /** Whether the configured third-party provider can deliver now. */
  readonly rentalAvailable: boolean;
  /** Whether burning TRX (funded in FUNDING_TRX) is enabled by configuration. */
  readonly burnEnabled: boolean;
}

/**
 * The decision: acquire `energy` more units via `path`; `'none'` when the sub-address already has enough (no
 * acquisition step, and the task's energyPath stays null — in particular the undelegation step is skipped);
 * or `path: null` with the reason the task fails (BIZ-ENERGY-UNAVAILABLE).
 */
export type EnergyDecision =
  | { readonly path: EnergyPath; readonly energy: number }
  | { readonly path: 'none'; readonly energy: 0 }
  | { readonly path: null; readonly reason: string };

function requireCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
}

/**
 * DESIGN.md "Collection / Energy": self-delegation when the main address can delegate the whole shortfall; else the
 * third-party rental; else burning TRX if enabled; else no source. Only the shortfall (needed - alreadyAvailable) is
 * acquired: partial self-delegation plus rental is not attempted, because two sources double the failure modes of
 * one step for little saving.
 */
export function decideEnergySource(input: EnergyInput): EnergyDecision {
  requireCount('needed', input.needed);
  requireCount('alreadyAvailable', input.alreadyAvailable);
  requireCount('selfDelegatableEnergy', input.selfDelegatableEnergy);
  const shortfall = input.needed - input.alreadyAvailable;
  if (shortfall <= 0) return { path: 'none', energy: 0 };
  if (input.selfDelegatableEnergy >= shortfall) return { path: 'self', energy: shortfall };
  if (input.rentalAvailable) return { path: 'rental', energy: shortfall };
  if (input.burnEnabled) return { path: 'burn', energy: shortfall };
  return {
    path: null,
    reason: `no energy source for ${shortfall} energy: main address can delegate ${input.selfDelegatableEnergy}, `
      + 'no rental provider available, burning TRX disabled',
  };
}
