/**
 * Node endpoints of the devnet. Every node serves the same chain; each has its own fault switches (down, slow,
 * scripted failures, chaos, quota) and its own call counter, as separate java-tron nodes or separate providers
 * behind one chain would. Chain-wide faults (broadcast refusals, dropped transactions, solidification stalls and
 * jitter, energy-weight drift) stay with the chain and are set on the devnet (node 0).
 */
import type { Chain } from './chain.js';
import { applyFaults, copyFaults, type Faults } from './faults.js';
import type { NodeFaultGate } from './node-faults.js';

/** The fault switches that belong to one node endpoint. */
export const NODE_FAULT_KEYS = ['node_down', 'slow_ms', 'script', 'chaos', 'rate_limit'] as const;

/** One endpoint's faults (snake_case, as in `POST /sim/faults`). */
export type NodeFaults = Pick<Faults, (typeof NODE_FAULT_KEYS)[number]>;

/** A node endpoint of a running devnet; node 0 is the devnet's own URL. */
export class DevnetNode {
  /** @internal made by startDevnet */
  constructor(
    /** 0 for the devnet's primary endpoint, then 1, 2, … for `extraNodes`. */
    readonly index: number,
    /** Base URL of this node (/wallet and /walletsolidity both). */
    readonly url: string,
    private readonly chain: Chain,
    /** The switches this node's server reads: the chain's own Faults for node 0, a separate set for the others. */
    private readonly switches: Faults,
    private readonly gate: NodeFaultGate,
  ) {}

  /**
   * Sets this node's faults; unspecified ones keep their value (see Devnet.setFaults). Node 0 also takes the
   * chain-wide keys; another node refuses them (they are the chain's, set them on the devnet). Returns this node's faults.
   */
  setFaults(patch: Partial<NodeFaults> | Record<string, unknown>): NodeFaults | Faults {
    if (this.index > 0) {
      const foreign = Object.keys(patch).filter((k) => !(NODE_FAULT_KEYS as readonly string[]).includes(k));
      if (foreign.length > 0) throw new Error(`${foreign.join(', ')}: chain-wide faults are set on the devnet, not on node ${this.index}`);
    }
    const set = applyFaults(this.switches, patch);
    if (set.has('chaos')) this.gate.resetChaos();
    if (set.has('rate_limit')) this.gate.resetQuota();
    if (this.index === 0) this.chain.updateSolid();
    return this.faults();
  }

  /** A copy of this node's faults (node 0: every fault, chain-wide ones included). */
  faults(): NodeFaults | Faults {
    const all = copyFaults(this.switches);
    if (this.index === 0) return all;
    return Object.fromEntries(NODE_FAULT_KEYS.map((k) => [k, all[k]])) as NodeFaults;
  }

  /** Node calls this endpoint served (refused and failed calls excluded), e.g. to count a reader's calls per block. */
  get calls(): number {
    return this.gate.served;
  }

  /** The served calls by name ('wallet/getnowblock', 'walletsolidity/gettransactioninfobyid', …). */
  get callsByName(): Record<string, number> {
    return this.gate.servedByCall;
  }
}
