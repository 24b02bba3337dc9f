/**
 * Energy rented from a third party over the generic "quote / order / poll" HTTP API the devnet's rental desk
 * speaks: POST {base}/rental/quote, POST {base}/rental/order (idempotent on `reference`), GET {base}/rental/order?id=.
 * Transport failures and provider 5xx are transient InfrastructureErrors; a provider that answers "no" makes
 * canProvide false and acquire a BIZ-ENERGY-UNAVAILABLE.
 */
import { DomainError, InfrastructureError } from '../../core/domain/errors.js';
import type { Signer } from '../../core/ports/chain-gateway.port.js';
import type { EnergyOrder, EnergyProvider, EnergyRequest } from '../../core/ports/energy-provider.port.js';

/** Options of {@link RentalEnergyProvider}. */
export interface RentalEnergyProviderOptions {
  /** Base URL of the provider (the devnet's url, or the real provider's API root). */
  readonly baseUrl: string;
  /** Extra headers, e.g. the provider's API key. Never logged. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Rental duration (default 1 h: a sweep needs the energy for a few blocks only). */
  readonly durationHours?: number;
  /** Per-request timeout (default 10 s); a timeout is a transient failure. */
  readonly timeoutMs?: number;
  /** canProvide is false when the quoted price exceeds this (default: no ceiling). */
  readonly maxPriceSun?: bigint;
  /** fetch implementation (default: the global one); lets a test count or fail requests. */
  readonly fetch?: typeof fetch;
}

interface Reply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

const STATUSES = new Set(['pending', 'delivered', 'failed']);

/** The third-party rental path of the energy decision. */
export class RentalEnergyProvider implements EnergyProvider {
  readonly name = 'rental' as const;
  private readonly base: string;
  private readonly hours: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: RentalEnergyProviderOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.hours = options.durationHours ?? 1;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** A quote was obtained (and is within maxPriceSun). Throws only when the provider cannot be asked at all. */
  async canProvide(request: EnergyRequest, _main: Signer): Promise<boolean> {
    const reply = await this.send('POST', '/rental/quote', { receiver: request.receiver, energy: request.energy, duration_hours: this.hours });
    if (reply.status >= 400) return false;
    const price = reply.body['price_sun'];
    if (typeof price !== 'number' && typeof price !== 'string') return false;
    return this.options.maxPriceSun === undefined || BigInt(price) <= this.options.maxPriceSun;
  }

  /** Places (or, for a repeated `reference`, finds) the order; the main address is not involved. */
  async acquire(request: EnergyRequest, _main: Signer): Promise<EnergyOrder> {
    if (!request.reference) throw new DomainError('VALIDATION-ERROR', { field: 'reference', message: 'reference: required' });
    const reply = await this.send('POST', '/rental/order', {
      receiver: request.receiver,
      energy: request.energy,
      duration_hours: this.hours,
      reference: request.reference,
    });
    if (reply.status >= 400) {
      throw new DomainError('BIZ-ENERGY-UNAVAILABLE', { message: `energy rental refused: ${describe(reply)}` });
    }
    const id = reply.body['id'];
    if (typeof id !== 'string' || id === '') throw malformed('order reply without an id');
    return { kind: 'order', orderId: id };
  }

  async orderStatus(orderId: string): Promise<'pending' | 'delivered' | 'failed'> {
    const reply = await this.send('GET', `/rental/order?id=${encodeURIComponent(orderId)}`);
    if (reply.status >= 400) {
      throw new InfrastructureError('SERVICE-UNAVAILABLE', `energy rental order ${orderId}: ${describe(reply)}`, { transient: false });
    }
    const status = reply.body['status'];
    if (typeof status !== 'string' || !STATUSES.has(status)) throw malformed(`order ${orderId} has no known status`);
    return status as 'pending' | 'delivered' | 'failed';
  }

  /** One request; 5xx, 429, timeouts and network errors are transient; other statuses are returned. */
  private async send(method: 'GET' | 'POST', path: string, body?: Record<string, unknown>): Promise<Reply> {
    const doFetch = this.options.fetch ?? fetch;
    let res: Response;
    try {
      res = await doFetch(this.base + path, {
        method,
        headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}), ...this.options.headers },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      const why = (e as Error).name === 'TimeoutError' ? `timed out after ${this.timeoutMs} ms` : 'unreachable';
      throw new InfrastructureError('SERVICE-UNAVAILABLE', `energy rental ${method} ${path.split('?')[0]}: ${why}`, { cause: e });
    }
    const text = await res.text().catch(() => '');
    if (res.status >= 500 || res.status === 429) {
      throw new InfrastructureError('SERVICE-UNAVAILABLE', `energy rental ${method} ${path.split('?')[0]}: HTTP ${res.status}`);
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      throw malformed(`HTTP ${res.status} with a non-JSON body`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw malformed(`HTTP ${res.status} with a non-object body`);
    return { status: res.status, body: parsed as Record<string, unknown> };
  }
}

function describe(reply: Reply): string {
  const error = reply.body['error'] ?? reply.body['message'];
  return `HTTP ${reply.status}${typeof error === 'string' ? ` ${error.slice(0, 200)}` : ''}`;
}

function malformed(what: string): InfrastructureError {
  return new InfrastructureError('SERVICE-UNAVAILABLE', `energy rental: ${what}`, { transient: false });
}
