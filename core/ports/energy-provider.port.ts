import type { SignedTransaction } from '../domain/model/chain.js';
import type { Signer } from './chain-gateway.port.js';

export interface EnergyRequest {
  readonly receiver: string;
  readonly energy: number;
  /** Idempotency reference: the same reference never orders twice. */
  readonly reference: string;
}

export type EnergyOrder =
  | {
      readonly kind: 'transaction';
      readonly tx: SignedTransaction;
      /** SUN of stake the transaction delegates: what the undelegation step must give back (absent if unknown). */
      readonly delegatedSun?: bigint;
    }
  | { readonly kind: 'order'; readonly orderId: string };

/** What covering a request would cost, as a provider prices it now (a rental's price can move before the order). */
export interface EnergyQuote {
  /** SUN the provider charges for the request: 0 for self-delegation (stake is lent and taken back, nothing burns). */
  readonly priceSun: bigint;
  /** Energy the price is for: at least the request (a rental rounds up to its minimum order). */
  readonly energy: number;
  /** Who would deliver: `self`, or the rental provider's name (`tronsave`, `itrx`). */
  readonly provider: string;
  /** How long the energy stays delegated, in seconds; null when the caller takes it back itself (self-delegation). */
  readonly durationSec: number | null;
}

/**
 * A source of energy for a sub-address: self-delegation from the main address, or a third-party rental.
 * acquire() is write-ahead friendly: for self-delegation it returns an unsent transaction the worker persists and
 * broadcasts; for a rental it places an order keyed by `reference` (repeating it returns the same order).
 */
export interface EnergyProvider {
  readonly name: 'self' | 'rental';
  /** Whether this provider can cover the request right now (stake available, quote obtainable). */
  canProvide(request: EnergyRequest, main: Signer): Promise<boolean>;
  /**
   * The price of covering the request now, or null when this provider cannot cover it (no stake, under a rental's
   * capacity, over its price cap). A quote reserves nothing and orders nothing; acquire() prices again. Optional so
   * that test doubles need not price; every adapter implements it.
   */
  quote?(request: EnergyRequest, main: Signer): Promise<EnergyQuote | null>;
  /**
   * A self-delegation transaction (signed, unsent) or a rental order. The same `reference` never orders twice, even
   * from a new process; reused for a different request it is refused. BIZ-ENERGY-UNAVAILABLE when refused.
   */
  acquire(request: EnergyRequest, main: Signer): Promise<EnergyOrder>;
  /**
   * State of a rental order: `delivered` once all of its energy is delegated, `pending` while it fills (partly
   * delegated counts as pending), `failed` when the provider gave up (refunded, wholly or for the undelivered part).
   * Self-delegation orders are tracked by their transaction instead.
   */
  orderStatus(orderId: string): Promise<'pending' | 'delivered' | 'failed'>;
}
