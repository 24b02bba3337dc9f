/**
 * itrx's order API, simulated from its documentation (docs/rental-providers.md names each page):
 * GET /api/v1/frontend/order/price, POST /api/v1/frontend/order, GET /api/v1/frontend/order/query and
 * GET /api/v1/frontend/index-data. GET requests carry the `API-KEY` header; a POST also carries `TIMESTAMP` (10-digit
 * seconds) and `SIGNATURE` = hex HMAC-SHA256 under the API secret of `${TIMESTAMP}&${body as JSON with sorted keys and
 * no spaces}`. Replies carry `errno` (0 = success). Periods 1H/1D/3D/30D; at least 10,000 energy; orders under
 * 50,000 pay a small-order addition; large orders are delegated in several parts (status 31 until complete, 40
 * when done); an order the chain refuses, or one not complete within `refundAfterMs`, ends 41 with the undelivered
 * part refunded. A 1H rental is taken back as soon as its energy is used up, else when its period ends.
 * What itrx does not document is chosen here and listed in docs/rental-providers.md.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SystemTx } from './chain.js';
import { base58Address, type PoolDelegation, type RentalPool } from './rental-pool.js';
import type { ControlRoute } from './server.js';

/** The key pair the devnet accepts out of the box (development only; `addCredentials` registers more). */
export const DEVNET_ITRX_API_KEY = 'D0E5A1B2C3D4E5F6A7B8C9D0E1F2A3B4';
export const DEVNET_ITRX_API_SECRET = 'DE7E7DE7E7DE7E7DE7E7DE7E7DE7E7DE7E7DE7E7DE7E7DE7E7DE7E7DE7E7DE7E';

export type ItrxPeriod = '1H' | '1D' | '3D' | '30D';
const PERIODS: Record<ItrxPeriod, { code: number; ms: number; days: number }> = {
  '1H': { code: 0, ms: 3_600_000, days: 1 },
  '1D': { code: 1, ms: 86_400_000, days: 1 },
  '3D': { code: 3, ms: 3 * 86_400_000, days: 3 },
  '30D': { code: 30, ms: 30 * 86_400_000, days: 30 },
};

type Json = Record<string, unknown>;
type Reply = [number, unknown];

/** The simulated platform. */
export interface ItrxSettings {
  /** Unit price in SUN per energy for each period (per day for the day periods). */
  prices: Record<ItrxPeriod, number>;
  minimumEnergy: number;
  maximumEnergy: number;
  /** Orders under this many energy pay `smallAdditionSun`. */
  smallAmount: number;
  smallAdditionSun: number;
  /** platform_avail_energy: what the platform can still delegate (deliveries use it up). */
  available: number;
  /** platform_max_energy: the largest single delegation; larger orders are delivered in parts. */
  maxSingleDelegation: number;
  /** Virtual milliseconds from the order to its first delegation (slow fulfilment). */
  deliveryDelayMs: number;
  /** An order not delivered in full this long after it was placed ends 41 and is refunded (a simulation choice). */
  refundAfterMs: number;
  /** Seconds a TIMESTAMP may differ from virtual time; null = not checked (itrx documents no window). */
  timestampWindowSec: number | null;
  /** HTTP statuses (429, 5xx) forced on the next requests, oldest first. */
  failNext: number[];
}

/** An order as the simulation keeps it. */
export interface ItrxOrder {
  readonly serial: string;
  readonly apiKey: string;
  readonly receiver: string;
  readonly energy: number;
  readonly period: ItrxPeriod;
  /** What the order cost, in SUN (money is bigint here as everywhere; the JSON replies carry numbers, as itrx's do). */
  readonly amount: bigint;
  readonly addition: bigint;
  readonly outTradeNo: string | null;
  readonly createdAt: number;
  status: 30 | 31 | 32 | 40 | 41;
  details: PoolDelegation[];
  refund: bigint;
}

/** The canonical signed string: `${timestamp}&${JSON of the body, keys sorted, no spaces, non-ASCII escaped}`. */
export function itrxSigningString(timestamp: string, body: Json): string {
  const sorted = (v: unknown): unknown => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v as Json).sort().map((k) => [k, sorted((v as Json)[k])])) : v);
  const json = JSON.stringify(sorted(body)).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `${timestamp}&${json}`;
}

const errno = (code: number, message: string): Reply => [200, { errno: code, message }];

/** The itrx simulation on one devnet. */
export class ItrxSim {
  private readonly platform: ItrxSettings = {
    prices: { '1H': 45, '1D': 60, '3D': 52, '30D': 45 }, minimumEnergy: 10_000, maximumEnergy: 100_000_000, smallAmount: 50_000,
    smallAdditionSun: 600_000, available: 100_000_000, maxSingleDelegation: 5_000_000, deliveryDelayMs: 3_000,
    refundAfterMs: 600_000, timestampWindowSec: null, failNext: [],
  };
  private readonly keys = new Map<string, { secret: string; balance: bigint }>();
  private readonly orders = new Map<string, ItrxOrder>();
  /** Orders that may still act in a block (open, or with a delegation not yet reclaimed), in creation order. */
  private readonly live = new Set<ItrxOrder>();

  constructor(private readonly pool: RentalPool) {
    this.addCredentials(DEVNET_ITRX_API_KEY, DEVNET_ITRX_API_SECRET, 1_000_000_000_000n);
    pool.onBlock((time) => this.onBlock(time));
  }

  /** Registers an API key, its secret and a balance in SUN. */
  addCredentials(apiKey: string, secret: string, balanceSun: bigint): void {
    this.keys.set(apiKey, { secret, balance: balanceSun });
  }

  balanceOf(apiKey: string): bigint | undefined {
    return this.keys.get(apiKey)?.balance;
  }

  /** Changes the platform; unspecified fields keep their value. Returns a copy of the settings. */
  configure(changes: Partial<ItrxSettings>): ItrxSettings {
    for (const [key, value] of Object.entries(changes)) {
      const good = key === 'prices' ? value !== null && typeof value === 'object'
        && Object.entries(value).every(([p, v]) => p in PERIODS && Number.isSafeInteger(v) && (v as number) >= 0)
        : key === 'failNext' ? Array.isArray(value) && value.every((s) => s === 429 || (Number.isInteger(s) && s >= 500 && s <= 599))
          : key === 'timestampWindowSec' ? value === null || (Number.isSafeInteger(value) && (value as number) >= 0)
            : key in this.platform && Number.isSafeInteger(value) && (value as number) >= 0;
      if (!good) throw new Error(`${key} is not a valid setting of the itrx simulation`);
    }
    const prices = { ...this.platform.prices, ...(changes.prices ?? {}) };
    Object.assign(this.platform, changes, { prices });
    return this.settings();
  }

  settings(): ItrxSettings {
    return { ...this.platform, prices: { ...this.platform.prices }, failNext: [...this.platform.failNext] };
  }

  order(serial: string): ItrxOrder | undefined {
    return this.orders.get(serial);
  }

  /** The HTTP routes, keyed by path. */
  routes(): Record<string, ControlRoute> {
    const route = (method: 'GET' | 'POST', handle: (q: Json, apiKey: string) => Reply): ControlRoute => (q, m, request) => {
      const forced = this.platform.failNext.shift();
      if (forced !== undefined) return [forced, { errno: forced, message: forced === 429 ? 'too many requests' : 'simulated outage' }];
      if (m !== method) return [405, { errno: 405, message: `use ${method}` }];
      const header = (name: string): string | undefined => {
        const v = request.headers[name.toLowerCase()];
        return Array.isArray(v) ? v[0] : v;
      };
      const apiKey = header('API-KEY') ?? '';
      const creds = this.keys.get(apiKey);
      if (request.url.pathname.endsWith('/index-data') && creds === undefined) return [200, {}];
      if (creds === undefined) return errno(401, 'invalid API-KEY');
      if (method === 'POST') {
        const body = Object.fromEntries(Object.entries(q).filter(([k]) => !request.url.searchParams.has(k)));
        const refused = this.checkSignature(creds.secret, header('TIMESTAMP'), header('SIGNATURE'), body);
        if (refused) return refused;
        return handle(body, apiKey);
      }
      return handle(q, apiKey);
    };
    return {
      '/api/v1/frontend/order/price': route('GET', (q) => this.price(q)),
      '/api/v1/frontend/order': route('POST', (q, apiKey) => this.place(q, apiKey)),
      '/api/v1/frontend/order/query': route('GET', (q, apiKey) => this.query(q, apiKey)),
      '/api/v1/frontend/index-data': route('GET', (_q, apiKey) => [200, this.indexData(apiKey)]),
    };
  }

  private checkSignature(secret: string, timestamp: string | undefined, signature: string | undefined, body: Json): Reply | null {
    if (timestamp === undefined || !/^\d{10}$/.test(timestamp)) return errno(401, 'TIMESTAMP must be a 10-digit unix time in seconds');
    const window = this.platform.timestampWindowSec;
    if (window !== null && Math.abs(Number(timestamp) - Math.floor(this.pool.now / 1_000)) > window) return errno(401, 'TIMESTAMP expired');
    const expected = createHmac('sha256', secret).update(itrxSigningString(timestamp, body)).digest();
    const given = Buffer.from(signature ?? '', 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return errno(401, 'SIGNATURE mismatch');
    return null;
  }

  /** Price of `energy` for `period`: unit price × energy × days, plus the small-order addition under smallAmount. */
  private cost(period: ItrxPeriod, energy: number): { price: number; total: bigint; addition: bigint } {
    const price = this.platform.prices[period];
    const addition = energy < this.platform.smallAmount ? BigInt(this.platform.smallAdditionSun) : 0n;
    return { price, total: BigInt(price) * BigInt(energy) * BigInt(PERIODS[period].days) + addition, addition };
  }

  /** Period and energy as the price and order endpoints check them; an errno reply when wrong. */
  private terms(q: Json, energyField: unknown): { period: ItrxPeriod; energy: number } | Reply {
    const period = q['period'];
    if (typeof period !== 'string' || !(period in PERIODS)) return errno(400, 'period must be one of 1H, 1D, 3D, 30D');
    const energy = Number(energyField);
    if (!Number.isSafeInteger(energy) || energy < this.platform.minimumEnergy) return errno(400, `energy_amount must be at least ${this.platform.minimumEnergy}`);
    if (energy > this.platform.maximumEnergy) return errno(400, `energy_amount must be at most ${this.platform.maximumEnergy}`);
    return { period: period as ItrxPeriod, energy };
  }

  private price(q: Json): Reply {
    let energyField = q['energy_amount'];
    if (energyField === undefined && q['to_address'] !== undefined) {
      const to = base58Address(q['to_address']);
      if (to === null) return errno(400, 'to_address is not a TRON address');
      // "The system will automatically estimate the required energy for a USDT transaction": 65k to a holder, else 131k.
      energyField = this.pool.usdtOf(to) > 0n ? 65_000 : 131_000;
    }
    const t = this.terms(q, energyField);
    if (Array.isArray(t)) return t;
    const c = this.cost(t.period, t.energy);
    return [200, { period: t.period, energy_amount: t.energy, price: c.price, total_price: Number(c.total), addition: Number(c.addition) }];
  }

  private place(q: Json, apiKey: string): Reply {
    const t = this.terms(q, q['energy_amount']);
    if (Array.isArray(t)) return t;
    const receiver = base58Address(q['receive_address']);
    if (receiver === null) return errno(400, 'receive_address is not a TRON address');
    const outTradeNo = q['out_trade_no'];
    if (outTradeNo !== undefined && typeof outTradeNo !== 'string') return errno(400, 'out_trade_no must be a string');
    const account = this.keys.get(apiKey)!;
    const c = this.cost(t.period, t.energy);
    if (account.balance < c.total) return errno(400, 'balance not enough');
    account.balance -= c.total;
    const order: ItrxOrder = {
      serial: this.pool.id(`itrx-order:${this.orders.size}`, 32), apiKey, receiver, energy: t.energy, period: t.period, amount: c.total,
      addition: c.addition, outTradeNo: outTradeNo ?? null, createdAt: this.pool.now, status: 30, details: [], refund: 0n,
    };
    this.orders.set(order.serial, order);
    this.live.add(order);
    return [200, { errno: 0, serial: order.serial, amount: Number(order.amount), balance: Number(account.balance) }];
  }

  private query(q: Json, apiKey: string): Reply {
    const serial = q['serial'];
    const outTradeNo = q['out_trade_no'];
    if (serial === undefined && outTradeNo === undefined) return errno(400, 'serial or out_trade_no is required');
    const mine = [...this.orders.values()].filter((o) => o.apiKey === apiKey);
    const o = serial !== undefined ? mine.find((x) => x.serial === serial) : mine.find((x) => x.outTradeNo === outTradeNo);
    if (o === undefined) return errno(404, 'Order not found');
    const iso = (t: number | undefined): string | null => (t === undefined ? null : new Date(t).toISOString());
    return [200, {
      errno: 0, receive_address: o.receiver, order_no: o.serial, energy_amount: o.energy, pay_amount: this.delivered(o), amount: Number(o.amount),
      details: o.details.map((d) => ({
        delegate_hash: d.txid, delegate_time: iso(d.at), reclaim_hash: d.reclaimTxid ?? null, reclaim_time: iso(d.at + PERIODS[o.period].ms),
        reclaim_time_real: iso(d.reclaimedAt), status: d.reclaimTxid === undefined ? 20 : 30,
      })),
      create_time: iso(o.createdAt), api_name: 'devnet', period: PERIODS[o.period].code, status: o.status, refund_amount: Number(o.refund),
    }];
  }

  private indexData(apiKey: string): Json {
    const p = this.platform;
    return {
      platform_avail_energy: p.available, platform_max_energy: p.maxSingleDelegation, minimum_order_energy: p.minimumEnergy,
      maximum_order_energy: p.maximumEnergy, small_amount: p.smallAmount, small_addition: p.smallAdditionSun / 1_000_000,
      usdt_energy_need_old: 65_000, usdt_energy_need_new: 131_000,
      tiered_pricing: (Object.keys(PERIODS) as ItrxPeriod[]).map((k) => ({ period: PERIODS[k].code, price: p.prices[k] })),
      balance: Number(this.keys.get(apiKey)!.balance),
    };
  }

  private delivered(o: ItrxOrder): number {
    return o.details.reduce((n, d) => n + d.energy, 0);
  }

  /** Ends an order 41 and refunds the undelivered share (all of it when nothing was delivered). */
  private terminate(o: ItrxOrder): void {
    const delivered = this.delivered(o);
    // bigint division truncates, which floors a non-negative share.
    const refund = delivered === 0 ? o.amount : ((o.amount - o.addition) * BigInt(o.energy - delivered)) / BigInt(o.energy);
    this.keys.get(o.apiKey)!.balance += refund;
    Object.assign(o, { status: 41, refund });
  }

  /** Each block: one delegation per open order (a part when large or short of supply), timeouts and reclaims. */
  private onBlock(time: number): SystemTx[] {
    const out: SystemTx[] = [];
    for (const o of this.live) {
      const open = o.status === 30 || o.status === 31 || o.status === 32;
      // Closed with everything reclaimed: nothing can happen to it any more (block results settle within a block).
      if (!open && o.details.every((d) => d.reclaimTxid !== undefined)) {
        this.live.delete(o);
        continue;
      }
      if (open) {
        const remaining = o.energy - this.delivered(o);
        const part = Math.min(remaining, this.platform.maxSingleDelegation, this.platform.available);
        if (time - o.createdAt >= this.platform.refundAfterMs) this.terminate(o);
        else if (time >= o.createdAt + this.platform.deliveryDelayMs && part === 0) o.status = 32;
        else if (time >= o.createdAt + this.platform.deliveryDelayMs) out.push(this.deliver(o, part, time));
      }
      for (const d of o.details) {
        if (d.reclaimTxid !== undefined || time <= d.at) continue;
        // 1H: taken back once used up (a simulation threshold: under a tenth left, seen on solidified state), else at the end.
        const usedUp = o.period === '1H' && this.pool.solidified(d.txid) && (this.pool.solidEnergyLeft(o.receiver) ?? 0) < d.energy / 10;
        if (!usedUp && time < d.at + PERIODS[o.period].ms) continue;
        const tx = this.pool.undelegate(o.receiver, d.sun);
        out.push({ tx, onResult: (done) => { if (done) Object.assign(d, { reclaimTxid: tx.txID, reclaimedAt: time }); } });
      }
    }
    return out;
  }

  private deliver(o: ItrxOrder, energy: number, time: number): SystemTx {
    const sun = this.pool.stakeFor(energy);
    const tx = this.pool.delegate(o.receiver, sun);
    this.platform.available -= energy;
    return {
      tx,
      onResult: (done) => {
        if (!done) {
          this.platform.available += energy;
          this.terminate(o);
          return;
        }
        o.details.push({ energy, sun, txid: tx.txID, at: time });
        o.status = this.delivered(o) >= o.energy ? 40 : 31;
      },
    };
  }
}
