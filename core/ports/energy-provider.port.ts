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

/**
 * A source of energy for a sub-address: self-delegation from the main address, or a third-party rental.
 * acquire() is write-ahead friendly: for self-delegation it returns an unsent transaction the worker persists and
 * broadcasts; for a rental it places an order keyed by `reference` (repeating it returns the same order).
 */
export interface EnergyProvider {
  readonly name: 'self' | 'rental';
  /** Whether this provider can cover the request right now (stake available, quote obtainable). */
  canProvide(request: EnergyRequest, main: Signer): Promise<boolean>;
  acquire(request: EnergyRequest, main: Signer): Promise<EnergyOrder>;
  /** State of a rental order; self-delegation orders are tracked by their transaction instead. */
  orderStatus(orderId: string): Promise<'pending' | 'delivered' | 'failed'>;
}
