/**
 * A third-party energy rental desk, so a rental-provider adapter can be exercised end to end: quotes, idempotent
 * orders, and delivery as a real DelegateResourceContract (locked for the rental duration) from a devnet-owned
 * pool account, included in the next mined block. When the lock expires the pool reclaims the stake with a real
 * UnDelegateResourceContract. Payment is not taken on chain (like an API-key-billed provider).
 */
import { BLOCK_INTERVAL_MS, RENTAL_PRICE, SUN_PER_TRX } from './constants.js';
import type { Chain, SystemTx } from './chain.js';
import { sha256Hex, toBase58, toHex41 } from './codec.js';
import { totalEnergyWeight } from './resources.js';

/** An order's lifecycle as the provider reports it. */
export type RentalStatus = 'pending' | 'delivered' | 'failed';

/** A rental order. */
export interface RentalOrder {
  id: string;
  reference: string;
  receiver: string;
  energy: number;
  duration_hours: number;
  price_sun: number;
  /** Sun of pool stake delegated to cover `energy`. */
  delegated_sun: number;
  status: RentalStatus;
  created_at: number;
  delivery_txid?: string;
  delivered_at?: number;
  expires_at?: number;
  reclaimed?: boolean;
  reclaim_txid?: string;
  error?: string;
}

/** Validated quote input. */
export interface QuoteInput {
  receiver: string;
  energy: number;
  duration_hours: number;
}

/** The rental desk. */
export class RentalDesk {
  private readonly orders = new Map<string, RentalOrder>();
  private readonly byReference = new Map<string, string>();

  constructor(private readonly chain: Chain) {
    chain.systemSources.push((time) => this.systemTxs(time));
  }

  /** Normalizes and checks quote/order input. */
  parse(q: Record<string, unknown>): QuoteInput {
    const receiver = toHex41(q['receiver']);
    const energy = Number(q['energy']);
    const hours = Number(q['duration_hours'] ?? 1);
    if (!Number.isSafeInteger(energy) || energy <= 0) throw new Error('energy must be a positive integer');
    if (!Number.isSafeInteger(hours) || hours < 1 || hours > 720) throw new Error('duration_hours must be an integer in [1, 720]');
    return { receiver, energy, duration_hours: hours };
  }

  /** Price for an input (see RENTAL_PRICE) and the stake it needs at the current network ratio. */
  quote(input: QuoteInput): { receiver: string; energy: number; duration_hours: number; price_sun: number; delegated_sun: number; pool_address: string } {
    const price = input.energy * (RENTAL_PRICE.baseSunPerEnergy + RENTAL_PRICE.sunPerEnergyHour * input.duration_hours);
    return {
      receiver: toBase58(input.receiver),
      energy: input.energy,
      duration_hours: input.duration_hours,
      price_sun: price,
      delegated_sun: this.stakeFor(input.energy),
      pool_address: toBase58(this.chain.rentalPool),
    };
  }

  /** Whole TRX of stake so that the receiver gains at least `energy` (energy = TRX × limit / weight, floored). */
  private stakeFor(energy: number): number {
    const p = this.chain.params;
    const weight = totalEnergyWeight(this.chain.state(), p);
    return (Math.ceil((energy * weight) / p.totalEnergyLimit) + 1) * SUN_PER_TRX;
  }

  /** Places an order; the same reference returns the same order (409 if its terms differ). */
  order(input: QuoteInput, reference: string): { order: RentalOrder; created: boolean } {
    if (!reference) throw new Error('reference is required');
    const existing = this.byReference.get(reference);
    if (existing) {
      const o = this.orders.get(existing)!;
      if (o.receiver !== toBase58(input.receiver) || o.energy !== input.energy || o.duration_hours !== input.duration_hours) {
        throw new ConflictError(`reference ${reference} was already used for a different order`);
      }
      return { order: o, created: false };
    }
    const q = this.quote(input);
    const id = 'rent_' + sha256Hex(`${this.chain.seed}:rental:${reference}`).slice(0, 24);
    const o: RentalOrder = {
      id,
      reference,
      receiver: q.receiver,
      energy: q.energy,
      duration_hours: q.duration_hours,
      price_sun: q.price_sun,
      delegated_sun: q.delegated_sun,
      status: 'pending',
      created_at: this.chain.now,
    };
    this.orders.set(id, o);
    this.byReference.set(reference, id);
    return { order: o, created: true };
  }

  /** An order by id. */
  get(id: string): RentalOrder | undefined {
    return this.orders.get(id);
  }

  /** Deliveries of pending orders and reclaims of expired ones, as pool-signed transactions for the next block. */
  private systemTxs(time: number): SystemTx[] {
    const out: SystemTx[] = [];
    for (const o of this.orders.values()) {
      if (o.status === 'pending') {
        const lockBlocks = Math.ceil((o.duration_hours * 3_600_000) / BLOCK_INTERVAL_MS);
        const value = {
          owner_address: this.chain.rentalPool,
          receiver_address: toHex41(o.receiver),
          balance: o.delegated_sun,
          resource: 'ENERGY',
          lock: true,
          lock_period: lockBlocks,
        };
        const tx = this.chain.signRaw(this.chain.buildRaw('DelegateResourceContract', value), this.chain.rentalPoolKey);
        out.push({
          tx,
          onResult: (ok, error) => {
            if (ok) Object.assign(o, { status: 'delivered', delivery_txid: tx.txID, delivered_at: time, expires_at: time + lockBlocks * BLOCK_INTERVAL_MS });
            else Object.assign(o, { status: 'failed', error });
          },
        });
      } else if (o.status === 'delivered' && !o.reclaimed && o.expires_at !== undefined && o.expires_at <= this.chain.now) {
        const value = { owner_address: this.chain.rentalPool, receiver_address: toHex41(o.receiver), balance: o.delegated_sun, resource: 'ENERGY' };
        const tx = this.chain.signRaw(this.chain.buildRaw('UnDelegateResourceContract', value), this.chain.rentalPoolKey);
        out.push({ tx, onResult: (ok) => ok && Object.assign(o, { reclaimed: true, reclaim_txid: tx.txID }) });
      }
    }
    return out;
  }
}

/** Idempotency conflict (HTTP 409). */
export class ConflictError extends Error {}
