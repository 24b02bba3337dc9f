/**
 * Several rental providers as one: every request goes to the cheapest provider that can fill it now within the
 * per-sweep price cap, the others following in price order (ties in the configured order) when it declines. A
 * reference is asked of every provider before anything is bought, so a repeated acquire never buys from a second
 * provider what the first already sold; while any of them cannot be asked, acquire waits (the error is rethrown).
 */
import { DomainError, InfrastructureError } from '../../core/domain/errors.js';
import type { Signer } from '../../core/ports/chain-gateway.port.js';
import type { EnergyOrder, EnergyProvider, EnergyQuote, EnergyRequest } from '../../core/ports/energy-provider.port.js';
import { checkRequest, RecentOrders, referenceReused, unknownOrder, type RentalEnergySource } from './rental-http.js';

/** Options of {@link RentalMarketEnergyProvider}. */
export interface RentalMarketOptions {
  /** The most a sweep may pay for its energy, in SUN (ENERGY_RENTAL_MAX_PRICE_SUN); dearer quotes are ignored. */
  readonly maxPriceSun?: bigint;
}

/** A provider's offer, in market order. */
interface Ranked {
  readonly source: RentalEnergySource;
  readonly quote: EnergyQuote;
}

/** The rental market: providers in fallback order. */
export class RentalMarketEnergyProvider implements EnergyProvider {
  readonly name = 'rental' as const;
  private readonly recent = new RecentOrders();

  constructor(private readonly sources: readonly RentalEnergySource[], private readonly options: RentalMarketOptions = {}) {
    if (sources.length === 0) throw new RangeError('a rental market needs at least one provider');
    const names = sources.map((s) => s.provider);
    if (new Set(names).size !== names.length) throw new RangeError(`rental providers must be distinct, got ${names.join(', ')}`);
  }

  /** Offers (quoted and payable now) within the cap, cheapest first, ties in fallback order. */
  async rank(request: EnergyRequest): Promise<Ranked[]> {
    checkRequest(request, false);
    const answers = await Promise.all(this.sources.map((source) => source.offer(request).then(
      (quote) => ({ source, quote, error: null }),
      (error: unknown) => ({ source, quote: null, error }),
    )));
    const cap = this.options.maxPriceSun;
    const ranked = answers
      .filter((a): a is { source: RentalEnergySource; quote: EnergyQuote; error: null } => a.quote !== null && (cap === undefined || a.quote.priceSun <= cap))
      .sort((a, b) => (a.quote.priceSun < b.quote.priceSun ? -1 : a.quote.priceSun > b.quote.priceSun ? 1 : 0));
    if (ranked.length > 0) return ranked.map(({ source, quote }) => ({ source, quote }));
    // Nobody can sell: a provider that could not be asked decides (a transient blip before a permanent one).
    const errors = answers.map((a) => a.error).filter((e) => e !== null);
    const transient = errors.find((e) => e instanceof InfrastructureError && e.transient);
    if (transient !== undefined || errors.length > 0) throw transient ?? errors[0];
    return [];
  }

  /** The cheapest offer within the cap, or null. */
  async quote(request: EnergyRequest, _main?: Signer): Promise<EnergyQuote | null> {
    return (await this.rank(request))[0]?.quote ?? null;
  }

  async canProvide(request: EnergyRequest, _main: Signer): Promise<boolean> {
    return (await this.rank(request)).length > 0;
  }

  /**
   * The order any provider already holds for the reference; else the cheapest offer, then the next when one
   * declines (a DomainError: nothing was bought). Any other failure is rethrown: the order may exist.
   */
  async acquire(request: EnergyRequest, main: Signer): Promise<EnergyOrder> {
    checkRequest(request, true);
    const known = this.recent.get(request, () => referenceReused('rental market'));
    if (known !== undefined) return { kind: 'order', orderId: known };
    for (const source of this.sources) {
      const existing = await source.findOrder(request);
      if (existing !== null) return this.remember(request, existing);
    }
    const declines: string[] = [];
    for (const { source } of await this.rank(request)) {
      try {
        const order = await source.acquire(request, main);
        if (order.kind === 'order') return this.remember(request, order.orderId);
        return order;
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'BIZ-ENERGY-UNAVAILABLE') throw error;
        declines.push(error.message);
      }
    }
    throw new DomainError('BIZ-ENERGY-UNAVAILABLE', {
      message: declines.length > 0 ? declines.join('; ').slice(0, 400) : 'no rental provider can fill the request within the price cap',
    });
  }

  /** Asked of the provider whose prefix the id carries. */
  async orderStatus(orderId: string): Promise<'pending' | 'delivered' | 'failed'> {
    const source = this.sources.find((s) => orderId.startsWith(`${s.provider}:`));
    if (source === undefined) throw unknownOrder('rental market', orderId, 'no configured provider issued it');
    return source.orderStatus(orderId);
  }

  private remember(request: EnergyRequest, orderId: string): EnergyOrder {
    this.recent.remember(request, orderId);
    return { kind: 'order', orderId };
  }
}
