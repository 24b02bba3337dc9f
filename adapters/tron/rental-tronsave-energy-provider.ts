/**
 * Energy rented from TronSave through its documented v2 API-key endpoints (docs/rental-providers.md): the price
 * from POST /v2/order-book/estimate-buy-resource, the order with POST /v2/buy-resource, its state from
 * GET /v2/order/:id and GET /v2/orders, the internal balance from GET /v2/user-info; every call carries the
 * `apikey` header. Orders are paid from the TronSave internal account, so nothing is sent on chain by us.
 *
 * TronSave takes no client reference, so a repeated acquire finds its first order by its terms: the receiver, the
 * amount and a duration that carries the reference (the configured duration plus up to `referenceTagSec` seconds
 * derived from the reference), looked up in this process first, then in the account's newest orders. The order
 * also asks TronSave to refuse a duplicate while the first is incomplete (preventDuplicateIncompleteOrders), to
 * fill at once or not at all (onlyCreateWhenFulfilled), and never above the quoted unit price (maxPriceAccepted).
 */
import { createHash } from 'node:crypto';
import type { Signer } from '../../core/ports/chain-gateway.port.js';
import type { EnergyOrder, EnergyQuote, EnergyRequest } from '../../core/ports/energy-provider.port.js';
import {
  checkRequest, count, credentialsRefused, declined, malformed, RecentOrders, referenceReused, RentalHttp, unknownOrder,
  type RentalEnergySource, type RentalHttpOptions, type RentalReply,
} from './rental-http.js';

/** Options of {@link TronSaveEnergyProvider}. */
export interface TronSaveEnergyProviderOptions extends RentalHttpOptions {
  /** The key of the TronSave internal account that pays (header `apikey`); never logged. */
  readonly apiKey: string;
  /** Rental duration in seconds before the reference tag (default 3,600: a sweep needs the energy for minutes). */
  readonly durationSec?: number;
  /** Up to this many seconds are added to the duration, derived from the reference (default 600; 0 = none). */
  readonly referenceTagSec?: number;
  /** Accept part of the energy now and the rest later (default false: all at once or no order). */
  readonly allowPartialFill?: boolean;
  /** Smaller requests are ordered at this size (default 32,000: TronSave documents no minimum; see the doc). */
  readonly minimumEnergy?: number;
  /** Quotes above this many SUN are treated as unavailable (default: no cap). */
  readonly maxPriceSun?: bigint;
  /** Pages of 20 newest orders searched for a reference's earlier order (default 3). */
  readonly historyPages?: number;
}

const PROVIDER = 'tronsave';
const PAGE_SIZE = 20;

/** The order terms a request maps to. */
interface Terms {
  readonly receiver: string;
  /** Energy units ordered (resourceAmount), not money. */
  readonly energy: number;
  readonly durationSec: number;
}

/** TronSave's v2 API behind the EnergyProvider port. */
export class TronSaveEnergyProvider implements RentalEnergySource {
  readonly name = 'rental' as const;
  readonly provider = PROVIDER;
  private readonly http: RentalHttp;
  private readonly recent = new RecentOrders();

  constructor(private readonly options: TronSaveEnergyProviderOptions) {
    this.http = new RentalHttp(PROVIDER, options);
  }

  /** The estimate for the request's terms; null when the market cannot fill it now or it is over the cap. */
  async quote(request: EnergyRequest, _main?: Signer): Promise<EnergyQuote | null> {
    checkRequest(request, false);
    const estimate = await this.estimate(this.terms(request));
    return estimate === null ? null : estimate.quote;
  }

  async offer(request: EnergyRequest): Promise<EnergyQuote | null> {
    const quote = await this.quote(request);
    if (quote === null) return null;
    const info = await this.call('GET', '/v2/user-info');
    const balance = count(data(info)['balance']);
    if (balance === null) throw malformed(PROVIDER, 'user-info without a balance');
    return BigInt(balance) >= quote.priceSun ? quote : null;
  }

  async canProvide(request: EnergyRequest, _main: Signer): Promise<boolean> {
    return (await this.offer(request)) !== null;
  }

  async findOrder(request: EnergyRequest): Promise<string | null> {
    checkRequest(request, true);
    const known = this.recent.get(request, () => referenceReused(PROVIDER));
    if (known !== undefined) return known;
    const terms = this.terms(request);
    for (let page = 0; page < (this.options.historyPages ?? 3); page++) {
      const reply = data(await this.call('GET', `/v2/orders?page=${page}&pageSize=${PAGE_SIZE}`));
      const orders = Array.isArray(reply['data']) ? (reply['data'] as Array<Record<string, unknown>>) : [];
      const match = orders.find((o) => o['receiver'] === terms.receiver && o['resourceAmount'] === terms.energy && o['durationSec'] === terms.durationSec);
      if (match !== undefined && typeof match['id'] === 'string') {
        const orderId = `${PROVIDER}:${match['id']}`;
        this.recent.remember(request, orderId);
        return orderId;
      }
      if (orders.length < PAGE_SIZE) break;
    }
    return null;
  }

  /** Finds the reference's order, else prices the request afresh and buys at that unit price (or is refused). */
  async acquire(request: EnergyRequest, _main: Signer): Promise<EnergyOrder> {
    const existing = await this.findOrder(request);
    if (existing !== null) return { kind: 'order', orderId: existing };
    const terms = this.terms(request);
    const estimate = await this.estimate(terms);
    if (estimate === null) throw declined(PROVIDER, `no fill for ${terms.energy} energy within the price cap now`);
    const reply = await this.http.send('POST', '/v2/buy-resource', { apikey: this.options.apiKey }, JSON.stringify({
      resourceType: 'ENERGY', unitPrice: estimate.unitPrice, resourceAmount: terms.energy, receiver: terms.receiver, durationSec: terms.durationSec,
      options: {
        allowPartialFill: this.options.allowPartialFill ?? false, onlyCreateWhenFulfilled: true,
        maxPriceAccepted: estimate.unitPrice, preventDuplicateIncompleteOrders: true,
      },
    }));
    this.checkAuth(reply);
    if (reply.status >= 400) {
      const code = errorCode(reply);
      // An incomplete order with the same terms exists: ours, placed by a call whose reply was lost.
      if (code === 'MUST_BE_WAIT_PREVIOUS_ORDER_FILLED') {
        const found = await this.findOrder(request);
        if (found !== null) return { kind: 'order', orderId: found };
      }
      throw declined(PROVIDER, code);
    }
    const id = data(reply)['orderId'];
    if (typeof id !== 'string' || id === '') throw malformed(PROVIDER, 'buy-resource reply without an orderId');
    const orderId = `${PROVIDER}:${id}`;
    this.recent.remember(request, orderId);
    return { kind: 'order', orderId };
  }

  /**
   * Delivered once fulfilledPercent is 100 with nothing remaining; failed when the account's order list shows the
   * order Completed short of that (closed, the rest refunded); pending otherwise.
   */
  async orderStatus(orderId: string): Promise<'pending' | 'delivered' | 'failed'> {
    if (!orderId.startsWith(`${PROVIDER}:`)) throw unknownOrder(PROVIDER, orderId);
    const id = orderId.slice(PROVIDER.length + 1);
    const reply = await this.http.send('GET', `/v2/order/${encodeURIComponent(id)}`, { apikey: this.options.apiKey });
    this.checkAuth(reply);
    if (reply.status >= 400) throw unknownOrder(PROVIDER, orderId, errorCode(reply));
    const order = data(reply);
    const percent = count(order['fulfilledPercent']);
    const remain = count(order['remainAmount']);
    if (percent === null || remain === null) throw malformed(PROVIDER, `order ${id} without fulfilledPercent/remainAmount`);
    if (percent >= 100 && remain === 0) return 'delivered';
    for (let page = 0; page < (this.options.historyPages ?? 3); page++) {
      const list = data(await this.call('GET', `/v2/orders?page=${page}&pageSize=${PAGE_SIZE}`))['data'];
      const found = Array.isArray(list) ? (list as Array<Record<string, unknown>>).find((o) => o['id'] === id) : undefined;
      if (found !== undefined) return found['status'] === 'Completed' ? 'failed' : 'pending';
      if (!Array.isArray(list) || list.length < PAGE_SIZE) break;
    }
    return 'pending';
  }

  /** Amount (at least the minimum), receiver, and the duration carrying the reference tag. */
  private terms(request: EnergyRequest): Terms {
    const tagSec = this.options.referenceTagSec ?? 600;
    const tag = tagSec === 0 ? 0 : createHash('sha256').update(request.reference).digest().readUInt32BE(0) % (tagSec + 1);
    return {
      receiver: request.receiver,
      energy: Math.max(request.energy, this.options.minimumEnergy ?? 32_000),
      durationSec: (this.options.durationSec ?? 3_600) + tag,
    };
  }

  /** The market's unit price and total for the terms; null when it cannot fill them now or the total is over the cap. */
  private async estimate(terms: Terms): Promise<{ unitPrice: number; quote: EnergyQuote } | null> {
    const partial = this.options.allowPartialFill ?? false;
    const reply = await this.http.send('POST', '/v2/order-book/estimate-buy-resource', { apikey: this.options.apiKey }, JSON.stringify({
      resourceType: 'ENERGY', receiver: terms.receiver, durationSec: terms.durationSec, resourceAmount: terms.energy, unitPrice: 'MEDIUM',
      options: { allowPartialFill: partial },
    }));
    this.checkAuth(reply);
    if (reply.status >= 400) return null;
    const d = data(reply);
    const [unitPrice, total, available] = [d['unitPrice'], count(d['estimateTrx']), count(d['availableResource'])];
    if (typeof unitPrice !== 'number' || !(unitPrice > 0) || total === null || available === null) throw malformed(PROVIDER, 'estimate without unitPrice/estimateTrx/availableResource');
    if (partial ? available === 0 : available < terms.energy) return null;
    const priceSun = BigInt(total);
    if (this.options.maxPriceSun !== undefined && priceSun > this.options.maxPriceSun) return null;
    return { unitPrice, quote: { priceSun, energy: terms.energy, provider: PROVIDER, durationSec: terms.durationSec } };
  }

  /** A GET that must succeed. */
  private async call(method: 'GET', path: string): Promise<RentalReply> {
    const reply = await this.http.send(method, path, { apikey: this.options.apiKey });
    this.checkAuth(reply);
    if (reply.status >= 400) throw malformed(PROVIDER, `${path.split('?')[0]}: HTTP ${reply.status} ${errorCode(reply)}`);
    return reply;
  }

  private checkAuth(reply: RentalReply): void {
    if (reply.status === 401 || reply.status === 403) throw credentialsRefused(PROVIDER, errorCode(reply));
  }
}

/** The `data` object of a success envelope. */
function data(reply: RentalReply): Record<string, unknown> {
  const d = reply.body['data'];
  if (reply.body['error'] === true || d === null || typeof d !== 'object') throw malformed(PROVIDER, `HTTP ${reply.status} without data`);
  return d as Record<string, unknown>;
}

/** The machine code of an error reply: the word after `TSAS:nnn`, a validation message, or the HTTP status. */
function errorCode(reply: RentalReply): string {
  const message = reply.body['message'];
  if (typeof message !== 'string') return `HTTP ${reply.status}`;
  return /^TSAS:\S+\s+([A-Z_]+)/.exec(message)?.[1] ?? message.slice(0, 120);
}
