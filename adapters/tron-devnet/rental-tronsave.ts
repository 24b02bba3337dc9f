/**
 * TronSave's v2 API-key endpoints, simulated from their documentation (docs/rental-providers.md names each page):
 * POST /v2/buy-resource, POST /v2/order-book/estimate-buy-resource, GET /v2/order/:id, GET /v2/orders and
 * GET /v2/user-info, authenticated by the `apikey` header (401 `TSAS:106 API_KEY_REQUIRED` / `TSAS:107
 * INVALID_API_KEY`), answering the `{error, message, data}` envelope, the documented 400 codes and the
 * FST_ERR_VALIDATION shape. Orders are paid from the key's internal balance; they fill from a finite market supply
 * (partial fills with options.allowPartialFill, CANNOT_FULFILLED with onlyCreateWhenFulfilled), are delegated by the
 * devnet's rental pool `deliveryDelayMs` of virtual time after matching, and taken back after durationSec. A
 * delegation the chain refuses (inactive receiver) closes the order and refunds what was not delivered.
 * What TronSave does not document is chosen here and listed in docs/rental-providers.md.
 */
import type { SystemTx } from './chain.js';
import { base58Address, type PoolDelegation, type RentalPool } from './rental-pool.js';
import type { ControlRoute } from './server.js';

/** The API key the devnet accepts out of the box (development only; `addApiKey` registers more). */
export const DEVNET_TRONSAVE_API_KEY = 'devnet-tronsave-api-key';

type Json = Record<string, unknown>;
type Reply = [number, unknown];

/** The simulated market. */
export interface TronSaveSettings {
  /** The MEDIUM unit price in SUN per energy (per day for rentals of a day or more). */
  unitPriceSun: number;
  /** The SLOW price: the least unit price an order may bid (MIN_PRICE_INVALID below it). */
  minUnitPriceSun: number;
  /** Energy the market can match now; every match uses it up (partial fills when short). */
  supply: number;
  /** Virtual milliseconds between a match and its delegation (slow fulfilment). */
  deliveryDelayMs: number;
  /** Smallest resourceAmount accepted (TronSave documents none: a simulation choice). */
  minimumAmount: number;
  /** HTTP statuses (429, 5xx) forced on the next requests, oldest first. */
  failNext: number[];
}

/** An order as the simulation keeps it. */
export interface TronSaveOrder {
  readonly id: string;
  readonly apiKey: string;
  readonly receiver: string;
  readonly resourceAmount: number;
  /** The unit price the order bid (SUN). */
  readonly price: number;
  readonly durationSec: number;
  readonly allowPartialFill: boolean;
  readonly createdAt: number;
  /** What the order paid, in SUN, less any refund (bigint here; the JSON replies carry numbers, as TronSave's do). */
  payoutAmount: bigint;
  /** Energy not yet matched. */
  unmatched: number;
  /** Matched energy waiting for its delegation. */
  queued: Array<{ energy: number; dueAt: number }>;
  delegates: PoolDelegation[];
  status: 'Active' | 'Completed';
  error?: string;
}

interface Account {
  /** Internal balance in SUN. */
  balance: bigint;
  readonly id: string;
}

const DAY_SEC = 86_400;
const TIERS = new Set(['FAST', 'MEDIUM', 'SLOW']);

/**
 * SUN an order pays: unit price × amount, times the days for rentals of a day or more (see the docs' examples),
 * rounded up. A bid may be a fraction of a SUN, so the product is formed as a double (exact for any integer price
 * below 2^53 SUN) and the rounded SUN become a bigint.
 */
export function tronSavePayout(unitPrice: number, amount: number, durationSec: number): bigint {
  return BigInt(Math.ceil(unitPrice * amount * Math.max(1, durationSec / DAY_SEC)));
}

const ok = (data: unknown, status = 200): Reply => [status, { error: false, message: 'Success', data }];
const refuse = (status: number, code: string): Reply => {
  const number = code === 'API_KEY_REQUIRED' ? 106 : code === 'INVALID_API_KEY' ? 107 : status;
  return [status, { error: true, message: `TSAS:${number} ${code}`, data: null }];
};
const invalid = (message: string): Reply => [400, { statusCode: 400, code: 'FST_ERR_VALIDATION', error: 'Bad Request', message }];

/** The TronSave simulation on one devnet. */
export class TronSaveSim {
  private readonly market: TronSaveSettings = {
    unitPriceSun: 40, minUnitPriceSun: 30, supply: 100_000_000, deliveryDelayMs: 0, minimumAmount: 32_000, failNext: [],
  };
  private readonly accounts = new Map<string, Account>();
  private readonly orders = new Map<string, TronSaveOrder>();
  /** Orders that may still act in a block (active, or with a delegation not yet reclaimed), in creation order. */
  private readonly live = new Set<TronSaveOrder>();

  constructor(private readonly pool: RentalPool) {
    this.addApiKey(DEVNET_TRONSAVE_API_KEY, 1_000_000_000_000n);
    pool.onBlock((time) => this.onBlock(time));
  }

  /** Registers an API key with an internal balance in SUN. */
  addApiKey(apiKey: string, balanceSun: bigint): void {
    this.accounts.set(apiKey, { balance: balanceSun, id: this.pool.id(`tronsave-account:${apiKey}`, 24) });
  }

  /** The internal balance of a key in SUN (undefined for an unknown key). */
  balanceOf(apiKey: string): bigint | undefined {
    return this.accounts.get(apiKey)?.balance;
  }

  /** Changes the market; unspecified fields keep their value. Returns a copy of the settings. */
  configure(changes: Partial<TronSaveSettings>): TronSaveSettings {
    for (const [key, value] of Object.entries(changes)) {
      if (key === 'failNext') {
        if (!Array.isArray(value) || !value.every((s) => s === 429 || (Number.isInteger(s) && s >= 500 && s <= 599))) throw new Error('failNext must list 429 or 5xx statuses');
      } else if (!(key in this.market) || !Number.isSafeInteger(value) || (value as number) < 0) {
        throw new Error(`${key} must be a non-negative integer setting of the TronSave simulation`);
      }
    }
    Object.assign(this.market, changes);
    return this.settings();
  }

  settings(): TronSaveSettings {
    return { ...this.market, failNext: [...this.market.failNext] };
  }

  /** An order by id (tests). */
  order(id: string): TronSaveOrder | undefined {
    return this.orders.get(id);
  }

  /** The HTTP routes, keyed by path (`*` is one path segment). */
  routes(): Record<string, ControlRoute> {
    const route = (method: 'GET' | 'POST', handle: (q: Json, account: Account, apiKey: string, path: string) => Reply): ControlRoute =>
      (q, m, request) => {
        const forced = this.market.failNext.shift();
        if (forced === 429) return [429, { error: true, message: 'Rate limit reached' }];
        if (forced !== undefined) return [forced, { statusCode: forced, error: 'Internal Server Error', message: 'simulated outage' }];
        if (m !== method) return [404, { message: `Route ${m}:${request.url.pathname} not found`, error: 'Not Found', statusCode: 404 }];
        const header = request.headers['apikey'];
        const apiKey = Array.isArray(header) ? header[0] : header;
        if (apiKey === undefined || apiKey === '') return refuse(401, 'API_KEY_REQUIRED');
        const account = this.accounts.get(apiKey);
        if (account === undefined) return refuse(401, 'INVALID_API_KEY');
        return handle(q, account, apiKey, request.url.pathname);
      };
    return {
      '/v2/buy-resource': route('POST', (q, account, apiKey) => this.buy(q, account, apiKey)),
      '/v2/order-book/estimate-buy-resource': route('POST', (q) => this.estimate(q)),
      '/v2/order/*': route('GET', (_q, _a, apiKey, path) => this.details(apiKey, decodeURIComponent(path.split('/').pop() ?? ''))),
      '/v2/orders': route('GET', (q, _a, apiKey) => this.history(q, apiKey)),
      '/v2/user-info': route('GET', (_q, account) => ok({
        id: account.id, balance: String(account.balance), representAddress: this.pool.address, depositAddress: this.pool.address,
      })),
    };
  }

  /** The unit price a bid resolves to, and whether the market matches it now. */
  private resolvePrice(bid: unknown, amount: number): { price: number; matchable: boolean } | Reply {
    const m = this.market;
    if (bid === undefined || bid === 'MEDIUM') return { price: m.unitPriceSun, matchable: true };
    if (bid === 'FAST') return { price: m.unitPriceSun + (m.supply >= amount ? 0 : 10), matchable: true };
    if (bid === 'SLOW') return { price: m.minUnitPriceSun, matchable: m.minUnitPriceSun >= m.unitPriceSun };
    if (typeof bid === 'string' && TIERS.has(bid)) return { price: m.unitPriceSun, matchable: true };
    if (typeof bid !== 'number' || !Number.isFinite(bid) || bid <= 0) return invalid('body/unitPrice must be number or one of FAST, MEDIUM, SLOW');
    if (bid < m.minUnitPriceSun) return refuse(400, 'MIN_PRICE_INVALID');
    return { price: bid, matchable: bid >= m.unitPriceSun };
  }

  /** The shared checks of an order and an estimate: required fields, amount, receiver, duration, price. */
  private terms(q: Json): { receiver: string; amount: number; durationSec: number; price: number; matchable: boolean } | Reply {
    for (const field of ['receiver', 'resourceAmount']) if (q[field] === undefined) return invalid(`body must have required property '${field}'`);
    if (typeof q['resourceAmount'] !== 'number') return invalid('body/resourceAmount must be number');
    if (q['resourceType'] !== undefined && q['resourceType'] !== 'ENERGY' && q['resourceType'] !== 'BANDWIDTH') return refuse(400, 'INVALID_PARAMS');
    const amount = q['resourceAmount'];
    const receiver = base58Address(q['receiver']);
    const durationSec = q['durationSec'] ?? 3 * DAY_SEC;
    // The simulation rents energy only; BANDWIDTH is refused rather than pretended.
    if (q['resourceType'] === 'BANDWIDTH' || receiver === null || !Number.isSafeInteger(amount) || amount < this.market.minimumAmount) return refuse(400, 'INVALID_PARAMS');
    if (typeof durationSec !== 'number' || !Number.isSafeInteger(durationSec) || durationSec < 300 || durationSec > 30 * DAY_SEC) return refuse(400, 'INVALID_PARAMS');
    const resolved = this.resolvePrice(q['unitPrice'], amount);
    return Array.isArray(resolved) ? resolved : { receiver, amount, durationSec, ...resolved };
  }

  private estimate(q: Json): Reply {
    const t = this.terms(q);
    if (Array.isArray(t)) return t;
    return ok({
      unitPrice: t.price, durationSec: t.durationSec, estimateTrx: Number(tronSavePayout(t.price, t.amount, t.durationSec)),
      availableResource: t.matchable ? Math.min(t.amount, this.market.supply) : 0,
    });
  }

  private buy(q: Json, account: Account, apiKey: string): Reply {
    const t = this.terms(q);
    if (Array.isArray(t)) return t;
    const options = (q['options'] ?? {}) as Json;
    if (typeof options !== 'object' || options === null) return invalid('body/options must be object');
    const partial = options['allowPartialFill'] === true;
    const max = options['maxPriceAccepted'];
    if (typeof max === 'number' && t.price > max) return refuse(400, 'PRICE_EXCEED_MAX_PRICE_REQUIRED');
    if (options['preventDuplicateIncompleteOrders'] === true && [...this.orders.values()].some((o) => o.apiKey === apiKey
      && o.status === 'Active' && o.receiver === t.receiver && o.resourceAmount === t.amount && o.durationSec === t.durationSec)) {
      return refuse(400, 'MUST_BE_WAIT_PREVIOUS_ORDER_FILLED');
    }
    const available = t.matchable ? this.market.supply : 0;
    if (options['onlyCreateWhenFulfilled'] === true && (partial ? available === 0 : available < t.amount)) return refuse(400, 'CANNOT_FULFILLED');
    const payout = tronSavePayout(t.price, t.amount, t.durationSec);
    if (account.balance < payout) return refuse(400, 'INTERNAL_BALANCE_ACCOUNT_TOO_LOW');
    account.balance -= payout;
    const order: TronSaveOrder = {
      id: this.pool.id(`tronsave-order:${this.orders.size}`, 24), apiKey, receiver: t.receiver, resourceAmount: t.amount, price: t.price,
      durationSec: t.durationSec, allowPartialFill: partial, createdAt: this.pool.now, payoutAmount: payout, unmatched: t.amount,
      queued: [], delegates: [], status: 'Active',
    };
    this.orders.set(order.id, order);
    this.live.add(order);
    this.match(order, t.matchable);
    return ok({ orderId: order.id }, 201);
  }

  /** Matches what the market can give now: all, or (partial fills allowed) whatever supply is left. */
  private match(o: TronSaveOrder, matchable: boolean): void {
    if (o.unmatched === 0 || !matchable || this.market.supply === 0) return;
    const energy = o.allowPartialFill ? Math.min(o.unmatched, this.market.supply) : this.market.supply >= o.unmatched ? o.unmatched : 0;
    if (energy === 0) return;
    this.market.supply -= energy;
    o.unmatched -= energy;
    o.queued.push({ energy, dueAt: this.pool.now + this.market.deliveryDelayMs });
  }

  private delivered(o: TronSaveOrder): number {
    return o.delegates.reduce((n, d) => n + d.energy, 0);
  }

  /** The documented fields of an order (status only where the history endpoint documents it). */
  private view(o: TronSaveOrder, withStatus: boolean): Json {
    const delivered = this.delivered(o);
    return {
      id: o.id, requester: this.pool.address, receiver: o.receiver, resourceAmount: o.resourceAmount, resourceType: 'ENERGY',
      remainAmount: o.resourceAmount - delivered, price: o.price, durationSec: o.durationSec,
      ...(withStatus ? { status: o.status } : {}),
      orderType: 'NORMAL', allowPartialFill: o.allowPartialFill, payoutAmount: Number(o.payoutAmount),
      fulfilledPercent: Math.floor((100 * delivered) / o.resourceAmount),
      delegates: o.delegates.map((d) => ({ delegator: this.pool.address, amount: d.energy, txid: d.txid })),
    };
  }

  private details(apiKey: string, id: string): Reply {
    const o = this.orders.get(id);
    // Not documented (the docs mark it NEEDS CONFIRMATION): the simulation answers 404 in the usual envelope.
    if (o === undefined || o.apiKey !== apiKey) return refuse(404, 'ORDER_NOT_FOUND');
    return ok(this.view(o, false));
  }

  private history(q: Json, apiKey: string): Reply {
    const page = Number(q['page'] ?? 0);
    const pageSize = Number(q['pageSize'] ?? 10);
    if (!Number.isSafeInteger(page) || page < 0) return invalid('querystring/page must be integer');
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) return invalid('querystring/pageSize must be integer');
    const status = q['status'];
    if (status !== undefined && status !== 'Active' && status !== 'Completed') return invalid('querystring/status must be equal to one of the allowed values');
    const mine = [...this.orders.values()].filter((o) => o.apiKey === apiKey && (status === undefined || o.status === status)).reverse();
    return ok({ data: mine.slice(page * pageSize, (page + 1) * pageSize).map((o) => this.view(o, true)), total: mine.length });
  }

  /** Each block: more matches, due deliveries (one per order per block) and reclaims of expired rentals. */
  private onBlock(time: number): SystemTx[] {
    const out: SystemTx[] = [];
    for (const o of this.live) {
      // Completed with everything reclaimed: nothing can happen to it any more (block results settle within a block).
      if (o.status !== 'Active' && o.delegates.every((d) => d.reclaimTxid !== undefined)) {
        this.live.delete(o);
        continue;
      }
      if (o.status === 'Active') {
        this.match(o, o.price >= this.market.unitPriceSun);
        const due = o.queued.findIndex((p) => p.dueAt <= time);
        if (due >= 0) out.push(this.deliver(o, o.queued.splice(due, 1)[0]!.energy, time));
      }
      for (const d of o.delegates) {
        if (d.reclaimTxid !== undefined || d.at + o.durationSec * 1_000 > time) continue;
        const tx = this.pool.undelegate(o.receiver, d.sun);
        out.push({ tx, onResult: (done) => { if (done) Object.assign(d, { reclaimTxid: tx.txID, reclaimedAt: time }); } });
      }
    }
    return out;
  }

  private deliver(o: TronSaveOrder, energy: number, time: number): SystemTx {
    const sun = this.pool.stakeFor(energy);
    const tx = this.pool.delegate(o.receiver, sun);
    return {
      tx,
      onResult: (done, error) => {
        if (done) {
          o.delegates.push({ energy, sun, txid: tx.txID, at: time });
          if (o.unmatched === 0 && o.queued.length === 0) o.status = 'Completed';
          return;
        }
        // The chain refused (e.g. the receiver does not exist): close the order, refund what was not delivered.
        const undelivered = tronSavePayout(o.price, o.resourceAmount - this.delivered(o), o.durationSec);
        const refund = undelivered < o.payoutAmount ? undelivered : o.payoutAmount;
        this.accounts.get(o.apiKey)!.balance += refund;
        Object.assign(o, { payoutAmount: o.payoutAmount - refund, unmatched: 0, queued: [], status: 'Completed', error });
      },
    };
  }
}
