/**
 * Energy rented from itrx through its documented order API (docs/rental-providers.md): the price from
 * GET /api/v1/frontend/order/price, the order with POST /api/v1/frontend/order, its state from
 * GET /api/v1/frontend/order/query, the balance from GET /api/v1/frontend/index-data. GETs carry the `API-KEY`
 * header; a POST is signed (see {@link itrxSignature}) and sends exactly the JSON it signed. Orders are paid from
 * the itrx account balance, so nothing is sent on chain by us.
 *
 * The request's reference goes out as `out_trade_no`, and acquire first asks for an order with that out_trade_no:
 * a repeated acquire, in this process or another, finds the first order instead of buying twice.
 */
import { createHash, createHmac } from 'node:crypto';
import type { Clock } from '../../core/ports/clock.port.js';
import type { Signer } from '../../core/ports/chain-gateway.port.js';
import type { EnergyOrder, EnergyQuote, EnergyRequest } from '../../core/ports/energy-provider.port.js';
import {
  checkRequest, count, credentialsRefused, declined, malformed, RecentOrders, referenceReused, RentalHttp, unknownOrder,
  type RentalEnergySource, type RentalHttpOptions, type RentalReply,
} from './rental-http.js';

/** itrx's rental periods. */
export type ItrxPeriod = '1H' | '1D' | '3D' | '30D';
const PERIOD_SEC: Record<ItrxPeriod, number> = { '1H': 3_600, '1D': 86_400, '3D': 259_200, '30D': 2_592_000 };

/** Options of {@link ItrxEnergyProvider}. */
export interface ItrxEnergyProviderOptions extends RentalHttpOptions {
  /** API-KEY; never logged. */
  readonly apiKey: string;
  /** API_SECRET, the HMAC key of every POST; never logged or sent. */
  readonly apiSecret: string;
  /** Rental period (default 1H: itrx takes a 1H rental back once it is used up). */
  readonly period?: ItrxPeriod;
  /** Smaller requests are ordered at this size (default 10,000, itrx's documented minimum). */
  readonly minimumEnergy?: number;
  /** Quotes above this many SUN are treated as unavailable (default: no cap). */
  readonly maxPriceSun?: bigint;
  /** The source of TIMESTAMP: the composition's clock (the system clock in production, the devnet's in tests). */
  readonly clock: Clock;
}

const PROVIDER = 'itrx';

/**
 * SIGNATURE of a POST: hex HMAC-SHA256 under the API secret of `${timestamp}&${json}`, where json is the body with
 * its keys sorted and no spaces (non-ASCII as \uXXXX, as Python's json.dumps writes it). Known answer, from itrx's
 * signing page: secret `0285A2741D0E76E2E187260EB23E51851D48403A756333E7D0CF845406ABF3E8`, timestamp `1686796826`,
 * body `{callback_url: 'http://{mydomain}/callback', energy_amount: 32000, out_trade_no: '123456', period: '1D',
 * receive_address: 'TExWKszFWYTKZH8LYiovAPKzS3L9MLZ4kw'}` → `07c125cabfe006614a02131f927cca9e7a654f7644a817b155fad591e1c50f7b`.
 */
export function itrxSignature(secret: string, timestamp: string, body: Readonly<Record<string, unknown>>): string {
  return createHmac('sha256', secret).update(`${timestamp}&${canonicalJson(body)}`).digest('hex');
}

/** The body as itrx signs it: keys sorted at every level, compact, ASCII only. */
export function canonicalJson(body: Readonly<Record<string, unknown>>): string {
  const sort = (v: unknown): unknown => (v !== null && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])])) : v);
  return JSON.stringify(sort(body)).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** itrx's order API behind the EnergyProvider port. */
export class ItrxEnergyProvider implements RentalEnergySource {
  readonly name = 'rental' as const;
  readonly provider = PROVIDER;
  private readonly http: RentalHttp;
  private readonly recent = new RecentOrders();
  private readonly period: ItrxPeriod;

  constructor(private readonly options: ItrxEnergyProviderOptions) {
    this.http = new RentalHttp(PROVIDER, options);
    this.period = options.period ?? '1H';
  }

  /** total_price plus addition (the docs do not say whether the total already holds it: the higher figure). */
  async quote(request: EnergyRequest, _main?: Signer): Promise<EnergyQuote | null> {
    checkRequest(request, false);
    const energy = this.amount(request);
    const reply = await this.get(`/api/v1/frontend/order/price?period=${this.period}&energy_amount=${energy}`);
    if (reply.body['errno'] !== undefined && reply.body['errno'] !== 0) return null;
    const [total, addition] = [count(reply.body['total_price']), count(reply.body['addition'] ?? 0)];
    if (total === null || addition === null) throw malformed(PROVIDER, 'price without total_price');
    const priceSun = BigInt(total) + BigInt(addition);
    if (this.options.maxPriceSun !== undefined && priceSun > this.options.maxPriceSun) return null;
    return { priceSun, energy, provider: PROVIDER, durationSec: PERIOD_SEC[this.period] };
  }

  async offer(request: EnergyRequest): Promise<EnergyQuote | null> {
    const quote = await this.quote(request);
    if (quote === null) return null;
    // index-data answers an empty object to a wrong API-KEY (documented), so a missing balance is a refused key.
    const balance = count((await this.get('/api/v1/frontend/index-data')).body['balance']);
    if (balance === null) throw credentialsRefused(PROVIDER, 'index-data returned no balance');
    return BigInt(balance) >= quote.priceSun ? quote : null;
  }

  async canProvide(request: EnergyRequest, _main: Signer): Promise<boolean> {
    return (await this.offer(request)) !== null;
  }

  /** The order whose out_trade_no is this reference's, if any; one for other terms means the reference was reused. */
  async findOrder(request: EnergyRequest): Promise<string | null> {
    checkRequest(request, true);
    const known = this.recent.get(request, () => referenceReused(PROVIDER));
    if (known !== undefined) return known;
    const reply = await this.get(`/api/v1/frontend/order/query?out_trade_no=${encodeURIComponent(outTradeNo(request.reference))}`);
    if (reply.body['errno'] === 404) return null;
    if (reply.body['errno'] !== 0) throw malformed(PROVIDER, `order query: errno ${String(reply.body['errno'])} ${describe(reply)}`);
    const [serial, energy, period] = [reply.body['order_no'], count(reply.body['energy_amount']), count(reply.body['period'])];
    if (typeof serial !== 'string' || energy === null) throw malformed(PROVIDER, 'order query without order_no/energy_amount');
    if (reply.body['receive_address'] !== request.receiver || energy !== this.amount(request) || (period !== null && period !== periodCode(this.period))) {
      throw referenceReused(PROVIDER);
    }
    const orderId = `${PROVIDER}:${serial}`;
    this.recent.remember(request, orderId);
    return orderId;
  }

  /** The reference's order if placed before; else a signed order, refused (BIZ-ENERGY-UNAVAILABLE) over the price cap. */
  async acquire(request: EnergyRequest, _main: Signer): Promise<EnergyOrder> {
    const existing = await this.findOrder(request);
    if (existing !== null) return { kind: 'order', orderId: existing };
    if (this.options.maxPriceSun !== undefined && (await this.quote(request)) === null) {
      throw declined(PROVIDER, `no price within ${this.options.maxPriceSun} SUN for ${this.amount(request)} energy`);
    }
    const body = { energy_amount: this.amount(request), period: this.period, receive_address: request.receiver, out_trade_no: outTradeNo(request.reference) };
    const timestamp = String(Math.floor(this.options.clock.now() / 1_000));
    const reply = await this.http.send('POST', '/api/v1/frontend/order', {
      'API-KEY': this.options.apiKey, TIMESTAMP: timestamp, SIGNATURE: itrxSignature(this.options.apiSecret, timestamp, body),
    }, canonicalJson(body));
    this.checkAuth(reply);
    if (reply.body['errno'] !== 0) throw declined(PROVIDER, `errno ${String(reply.body['errno'])} ${describe(reply)}`);
    const serial = reply.body['serial'];
    if (typeof serial !== 'string' || serial === '') throw malformed(PROVIDER, 'order reply without a serial');
    const orderId = `${PROVIDER}:${serial}`;
    this.recent.remember(request, orderId);
    return { kind: 'order', orderId };
  }

  /**
   * Delivered at status 40 (normal completion), or once pay_amount (the delegated energy) covers energy_amount (the
   * docs' own example reports a complete order as 30); failed at 0, 41 and 43 (closed, refunded); pending otherwise.
   */
  async orderStatus(orderId: string): Promise<'pending' | 'delivered' | 'failed'> {
    if (!orderId.startsWith(`${PROVIDER}:`)) throw unknownOrder(PROVIDER, orderId);
    const reply = await this.get(`/api/v1/frontend/order/query?serial=${encodeURIComponent(orderId.slice(PROVIDER.length + 1))}`);
    if (reply.body['errno'] !== 0) throw unknownOrder(PROVIDER, orderId, describe(reply));
    const [status, ordered] = [count(reply.body['status']), count(reply.body['energy_amount'])];
    const delegated = reply.body['pay_amount'];
    if (status === null || ordered === null) throw malformed(PROVIDER, `order ${orderId} without status/energy_amount`);
    if (status === 40 || (typeof delegated === 'number' && delegated >= ordered)) return 'delivered';
    return status === 0 || status === 41 || status === 43 ? 'failed' : 'pending';
  }

  private amount(request: EnergyRequest): number {
    return Math.max(request.energy, this.options.minimumEnergy ?? 10_000);
  }

  private async get(path: string): Promise<RentalReply> {
    const reply = await this.http.send('GET', path, { 'API-KEY': this.options.apiKey });
    this.checkAuth(reply);
    return reply;
  }

  private checkAuth(reply: RentalReply): void {
    const errno = reply.body['errno'];
    if (reply.status === 401 || reply.status === 403 || errno === 401 || errno === 403) throw credentialsRefused(PROVIDER, describe(reply));
    if (reply.status >= 400 && errno === undefined) throw malformed(PROVIDER, `HTTP ${reply.status}`);
  }
}

/** out_trade_no for a reference: the reference itself when short and plain, else a digest of it (stable). */
export function outTradeNo(reference: string): string {
  return /^[A-Za-z0-9_-]{1,32}$/.test(reference) ? reference : `r${createHash('sha256').update(reference).digest('hex').slice(0, 31)}`;
}

function periodCode(period: ItrxPeriod): number {
  return { '1H': 0, '1D': 1, '3D': 3, '30D': 30 }[period];
}

function describe(reply: RentalReply): string {
  const message = reply.body['message'];
  return typeof message === 'string' ? message.slice(0, 160) : `HTTP ${reply.status}`;
}
