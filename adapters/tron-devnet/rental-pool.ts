/**
 * The devnet's rental pool: one staked account (seed-derived, 5,000,000 TRX staked for energy at genesis) whose
 * delegations every simulated rental provider delivers (rental-tronsave.ts, rental-itrx.ts). A delivery is a real
 * DelegateResourceContract signed by the pool and included in a mined block, a reclaim a real
 * UnDelegateResourceContract. Delegations are unlocked: with one pool behind every order, locked delegations to one
 * receiver would refuse each other ("lock period cannot be less than the remaining time"), and the providers take
 * the stake back on time themselves.
 */
import type { Chain, SystemTx } from './chain.js';
import { sha256Hex, toBase58, toHex41, tryHex41 } from './codec.js';
import { SUN_PER_TRX } from './constants.js';
import { energyLeft, totalEnergyWeight } from './resources.js';

/** One delegation of an order (an order may be delivered in several). */
export interface PoolDelegation {
  /** Energy this delegation was sized for. */
  readonly energy: number;
  /** SUN of pool stake delegated. */
  readonly sun: number;
  readonly txid: string;
  /** Virtual time of the block that included it. */
  readonly at: number;
  reclaimTxid?: string;
  reclaimedAt?: number;
}

/** The pool's view of the chain, shared by the simulated providers. */
export class RentalPool {
  /** Makes every pool transaction distinct: two equal delegations in one block would otherwise share a txID. */
  private seq = 0;

  constructor(private readonly chain: Chain) {}

  /** The pool account, base58. */
  get address(): string {
    return toBase58(this.chain.rentalPool);
  }

  /** Virtual time (the head block's timestamp). */
  get now(): number {
    return this.chain.now;
  }

  /** Runs `source` while each block is mined; its transactions go into that block. */
  onBlock(source: (time: number) => SystemTx[]): void {
    this.chain.systemSources.push(source);
  }

  /** SUN of stake so that the receiver gains at least `energy` at the current ratio (whole TRX, plus one). */
  stakeFor(energy: number): number {
    const p = this.chain.params;
    const weight = totalEnergyWeight(this.chain.state(), p);
    return (Math.ceil((energy * weight) / p.totalEnergyLimit) + 1) * SUN_PER_TRX;
  }

  /** A pool-signed delegation of `sun` of energy stake to `receiver` (base58 or hex), unlocked. */
  delegate(receiver: string, sun: number): SystemTx['tx'] {
    const value = { owner_address: this.chain.rentalPool, receiver_address: toHex41(receiver), balance: sun, resource: 'ENERGY', lock: false };
    return this.sign('DelegateResourceContract', value);
  }

  /** A pool-signed undelegation of `sun` of energy stake from `receiver`. */
  undelegate(receiver: string, sun: number): SystemTx['tx'] {
    const value = { owner_address: this.chain.rentalPool, receiver_address: toHex41(receiver), balance: sun, resource: 'ENERGY' };
    return this.sign('UnDelegateResourceContract', value);
  }

  private sign(type: string, value: Record<string, unknown>): SystemTx['tx'] {
    const raw = this.chain.buildRaw(type, value, { timestamp: this.chain.now + (this.seq++ % 3_000) });
    return this.chain.signRaw(raw, this.chain.rentalPoolKey);
  }

  /**
   * Energy the account has left in the solidified state, or null when it does not exist there. Solidified, so that a
   * transfer still in the pool (or only just mined) never looks like energy already used.
   */
  solidEnergyLeft(address: string): number | null {
    const state = this.chain.state(true);
    const account = state.accounts.get(toHex41(address));
    return account === undefined ? null : energyLeft(account, state, this.chain.params, this.chain.now);
  }

  /** Whether a transaction is in a solidified block. */
  solidified(txid: string): boolean {
    return this.chain.tx(txid, true) !== undefined;
  }

  /** A hex id of `length` characters from the devnet seed and a label: deterministic, never random. */
  id(label: string, length: number): string {
    return sha256Hex(`${this.chain.seed}:${label}`).slice(0, length);
  }

  /** USDT the account holds (base units). */
  usdtOf(address: string): bigint {
    return this.chain.state().usdt.get(toHex41(address)) ?? 0n;
  }
}

/** A base58 TRON address as the providers' APIs take it (`T…`), else null. */
export function base58Address(value: unknown): string | null {
  if (typeof value !== 'string' || !/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(value)) return null;
  return tryHex41(value) === null ? null : value;
}
