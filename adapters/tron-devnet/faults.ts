/**
 * The devnet's fault switches, and merging a partial setting (in-process `setFaults` or `POST /sim/faults`, same
 * snake_case keys) into the current ones. Unspecified keys keep their value; a bad value throws before anything
 * changes.
 */
import { parseChaos, parseRateLimit, parseScript, type ChaosFaults, type NodeFaultRule, type RateLimitFaults } from './node-faults.js';

/** Fault injection switches (see /sim/faults; snake_case as on the wire). */
export interface Faults {
  /** Every node call has its socket destroyed (a dead full node). */
  node_down: boolean;
  /** Every broadcast is refused with this api.Return code. */
  reject_broadcast: string | null;
  /** The next N accepted broadcasts are answered with success but never reach a block. */
  drop_next_transactions: number;
  /** The solidified head stops moving. */
  stall_solidification: boolean;
  /** Real milliseconds every node call waits before it is handled. */
  slow_ms: number;
  /** Scripted failures, consumed in order: the first rule matching a call applies. setFaults({script}) REPLACES the list; [] clears. */
  script: NodeFaultRule[];
  /**
   * Random failures: each node call (wallet/* and walletsolidity/*) fails with probability `rate` (0..1), kind drawn
   * uniformly from `kinds`, from a PRNG seeded by `seed` (deterministic per call sequence). null = off.
   */
  chaos: ChaosFaults | null;
  /**
   * TronGrid-style quota: at most `budget` node calls per window of `window_ms` of VIRTUAL time (windows aligned to
   * multiples of window_ms of the head block time); further calls in the window answer HTTP `status` (403 or 429)
   * with TronGrid's real body and a Retry-After header (seconds until the window ends, at least 1). null = off.
   * Quota-refused calls are not processed and do not count against the budget.
   */
  rate_limit: RateLimitFaults | null;
  /**
   * Solidified lag varies: at each new block the lag is params.solidifyLag + a seeded draw in [0, solidify_jitter];
   * the solidified number never goes backwards. 0 = off.
   */
  solidify_jitter: number;
  /**
   * Each mined block moves the network's TotalEnergyWeight (what getaccountresource reports, and what
   * energy-per-staked-TRX and delegation use) by a seeded draw in [-bps, +bps] basis points, as other people's
   * stakes/unstakes would. 0 = off.
   */
  energy_weight_drift_bps: number;
  /**
   * Full-node state reads (accounts, resources, delegations, constant calls, stake queries) answer from a state a
   * seeded draw of 0..stale_reads blocks behind the head, per call, as a provider's load-balanced backends at
   * different heights do; the answer is that older block's state at that block's time. Heads, blocks, transactions,
   * builds, broadcasts and the solidity view are unaffected. 0 = off.
   */
  stale_reads: number;
  /**
   * Full-node transaction lookups (gettransactioninfobyid, gettransactionbyid) answer as a node N blocks behind the
   * head does: a transaction in a newer block is not known yet. Up to 200 blocks, far more than stale_reads allows: a
   * backend that fell minutes behind and keeps being asked is rare but real, and the money rule must hold against it
   * (a transaction that landed must never look dead). 0 = off.
   */
  stale_tx_lookups: number;
}

/** No fault at all (a fresh devnet). */
export function noFaults(): Faults {
  return {
    node_down: false,
    reject_broadcast: null,
    drop_next_transactions: 0,
    stall_solidification: false,
    slow_ms: 0,
    script: [],
    chaos: null,
    rate_limit: null,
    solidify_jitter: 0,
    energy_weight_drift_bps: 0,
    stale_reads: 0,
    stale_tx_lookups: 0,
  };
}

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
  if (patch.stale_reads !== undefined) {
    out.stale_reads = nonNegInt(patch.stale_reads, 'stale_reads');
    if (out.stale_reads > 32) throw new Error('stale_reads must be at most 32 (older states are not kept)');
  }
  if (patch.stale_tx_lookups !== undefined) {
    out.stale_tx_lookups = nonNegInt(patch.stale_tx_lookups, 'stale_tx_lookups');
    if (out.stale_tx_lookups > 200) throw new Error('stale_tx_lookups must be at most 200');
  }
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
