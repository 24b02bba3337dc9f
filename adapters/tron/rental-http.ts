/**
 * What the rental adapters share: the HTTP call (timeouts, transient failures), the errors a provider's answer maps
 * to, and the interface the rental market composes. A provider's credentials never appear in a message.
 * Mapping: network failure, timeout, HTTP 429 and 5xx → transient InfrastructureError (retry later); refused
 * credentials and unreadable replies → non-transient InfrastructureError (an operator must act); a provider that
 * declines the order (minimum, balance, supply, price) → DomainError BIZ-ENERGY-UNAVAILABLE from acquire, null from
 * quote.
 */
import { DomainError, InfrastructureError } from '../../core/domain/errors.js';
import type { Signer } from '../../core/ports/chain-gateway.port.js';
import type { EnergyProvider, EnergyQuote, EnergyRequest } from '../../core/ports/energy-provider.port.js';

/** A rental adapter as the market composes it: priced, able to find the order a reference already placed. */
export interface RentalEnergySource extends EnergyProvider {
  readonly name: 'rental';
  /** `tronsave` or `itrx`; also the prefix of every order id it issues (`tronsave:…`). */
  readonly provider: string;
  quote(request: EnergyRequest, main?: Signer): Promise<EnergyQuote | null>;
  /** The quote, provided the account can also pay it now (the balance the provider reports); else null. */
  offer(request: EnergyRequest): Promise<EnergyQuote | null>;
  /** The id of the order already placed for this request's reference, else null. */
  findOrder(request: EnergyRequest): Promise<string | null>;
}

/** Options every rental adapter takes for its HTTP calls. */
export interface RentalHttpOptions {
  /** The provider's API root (the real one, or the devnet's URL, which serves a simulation of it). */
  readonly baseUrl: string;
  /** Per-request timeout (default 10 s); a timeout is transient. */
  readonly timeoutMs?: number;
  /** fetch implementation (default: the global one); lets a test count or fail requests. */
  readonly fetch?: typeof fetch;
}

/** A provider's answer: HTTP status and JSON object body. */
export interface RentalReply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** One provider's HTTP client. */
export class RentalHttp {
  private readonly base: string;
  private readonly timeoutMs: number;

  constructor(private readonly provider: string, private readonly options: RentalHttpOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** One request; network failures, timeouts, 429 and 5xx throw transient errors, every other status is returned. */
  async send(method: 'GET' | 'POST', path: string, headers: Readonly<Record<string, string>>, body?: string): Promise<RentalReply> {
    const what = `${this.provider} ${method} ${path.split('?')[0]}`;
    let res: Response;
    try {
      res = await (this.options.fetch ?? fetch)(this.base + path, {
        method,
        headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      const why = (e as Error).name === 'TimeoutError' ? `timed out after ${this.timeoutMs} ms` : 'unreachable';
      throw new InfrastructureError('SERVICE-UNAVAILABLE', `${what}: ${why}`, { cause: e });
    }
    const text = await res.text().catch(() => '');
    if (res.status === 429 || res.status >= 500) throw new InfrastructureError('SERVICE-UNAVAILABLE', `${what}: HTTP ${res.status}`);
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      throw malformed(this.provider, `${what}: HTTP ${res.status} with a non-JSON body`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw malformed(this.provider, `${what}: HTTP ${res.status} with a non-object body`);
    return { status: res.status, body: parsed as Record<string, unknown> };
  }
}

/** The provider refused the credentials: configuration to fix, not a blip to retry. */
export function credentialsRefused(provider: string, detail: string): InfrastructureError {
  return new InfrastructureError('SERVICE-UNAVAILABLE', `${provider}: the API credentials were refused (${detail.slice(0, 120)})`, { transient: false });
}

/** The provider answered something this adapter cannot read. */
export function malformed(provider: string, what: string): InfrastructureError {
  return new InfrastructureError('SERVICE-UNAVAILABLE', `${provider}: unexpected reply: ${what}`, { transient: false });
}

/** The provider declined the order; nothing was bought. */
export function declined(provider: string, detail: string): DomainError {
  return new DomainError('BIZ-ENERGY-UNAVAILABLE', { message: `energy rental from ${provider} refused: ${detail.slice(0, 200)}` });
}

/** A reference used before for other terms: acquire refuses it rather than guess which order is meant. */
export function referenceReused(provider: string): DomainError {
  return new DomainError('VALIDATION-ERROR', { field: 'reference', message: `reference: already used for a different ${provider} order` });
}

/** An order id this adapter never issued (wrong prefix, or the provider does not know it). */
export function unknownOrder(provider: string, orderId: string, detail = 'not an order of this provider'): InfrastructureError {
  return new InfrastructureError('SERVICE-UNAVAILABLE', `${provider}: order ${orderId.slice(0, 80)}: ${detail}`, { transient: false });
}

/** A non-negative safe integer field of a reply (amounts in SUN, energy), else null. */
export function count(value: unknown): number | null {
  const n = typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/** Requests are for a positive whole amount of energy and carry a reference. */
export function checkRequest(request: EnergyRequest, needsReference: boolean): void {
  if (!Number.isSafeInteger(request.energy) || request.energy <= 0) {
    throw new DomainError('VALIDATION-ERROR', { field: 'energy', message: 'energy: must be a positive integer' });
  }
  if (needsReference && !request.reference) throw new DomainError('VALIDATION-ERROR', { field: 'reference', message: 'reference: required' });
}

/** References remembered per process (oldest forgotten first); the provider-side lookup covers the rest. */
export class RecentOrders {
  private readonly byReference = new Map<string, { receiver: string; energy: number; orderId: string }>();

  constructor(private readonly max = 10_000) {}

  /** The order of a reference, or undefined; a reference remembered for other terms throws `onMismatch()`. */
  get(request: EnergyRequest, onMismatch: () => Error): string | undefined {
    const prior = this.byReference.get(request.reference);
    if (prior === undefined) return undefined;
    if (prior.receiver !== request.receiver || prior.energy !== request.energy) throw onMismatch();
    return prior.orderId;
  }

  remember(request: EnergyRequest, orderId: string): void {
    if (this.byReference.size >= this.max) this.byReference.delete(this.byReference.keys().next().value!);
    this.byReference.set(request.reference, { receiver: request.receiver, energy: request.energy, orderId });
  }
}
