/**
 * Merging a partial fault setting (in-process `setFaults` or `POST /sim/faults`, same snake_case keys) into the
 * chain's current faults. Unspecified keys keep their value; a bad value throws before anything changes.
 */
import type { Faults } from './chain.js';
import { parseChaos, parseRateLimit, parseScript } from './node-faults.js';

const nonNegNumber = (x: unknown, name: string): number => {
  const n = Number(x);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number`);
  return n;
};

const nonNegInt = (x: unknown, name: string): number => {
  const n = nonNegNumber(x, name);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be a non-negative integer`);
  return n;
};

/** The validated subset of `patch` that differs in shape from its wire form (lists and objects are fresh copies). */
function parse(patch: Partial<Record<keyof Faults, unknown>>): Partial<Faults> {
  const out: Partial<Faults> = {};
  if (patch.node_down !== undefined) out.node_down = Boolean(patch.node_down);
  if (patch.reject_broadcast !== undefined) out.reject_broadcast = patch.reject_broadcast ? String(patch.reject_broadcast) : null;
  if (patch.drop_next_transactions !== undefined) out.drop_next_transactions = Math.max(0, Math.floor(Number(patch.drop_next_transactions)) || 0);
  if (patch.stall_solidification !== undefined) out.stall_solidification = Boolean(patch.stall_solidification);
  if (patch.slow_ms !== undefined) out.slow_ms = Math.max(0, Number(patch.slow_ms) || 0);
  if (patch.script !== undefined) out.script = parseScript(patch.script);
  if (patch.chaos !== undefined) out.chaos = parseChaos(patch.chaos);
  if (patch.rate_limit !== undefined) out.rate_limit = parseRateLimit(patch.rate_limit);
  if (patch.solidify_jitter !== undefined) out.solidify_jitter = nonNegInt(patch.solidify_jitter, 'solidify_jitter');
  if (patch.energy_weight_drift_bps !== undefined) {
    out.energy_weight_drift_bps = nonNegNumber(patch.energy_weight_drift_bps, 'energy_weight_drift_bps');
    if (out.energy_weight_drift_bps > 10_000) throw new Error('energy_weight_drift_bps must be at most 10000');
  }
  return out;
}

/** Applies `patch` to `current` (all or nothing) and returns which keys were set. */
export function applyFaults(current: Faults, patch: Partial<Record<keyof Faults, unknown>>): Set<keyof Faults> {
  const parsed = parse(patch);
  Object.assign(current, parsed);
  return new Set(Object.keys(parsed) as Array<keyof Faults>);
}

/** A deep copy of the faults, safe to hand out (the script's rules are consumed in place). */
export function copyFaults(f: Faults): Faults {
  return structuredClone(f);
}
