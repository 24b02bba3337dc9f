import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Buffer } from 'node:buffer';
import { DomainError } from '../../core/domain/errors.js';
import { checkWebhookHost, checkWebhookHostBeforeLookup, checkWebhookUrlSyntax } from '../../core/domain/webhook-url.js';
import type { DnsResolver } from '../../core/ports/dns-resolver.port.js';
import type { TransportResult, WebhookRequest, WebhookTransport } from '../../core/ports/webhook-transport.port.js';

/** Options of HttpWebhookTransport; only `resolver` is required. */
export interface HttpWebhookTransportOptions {
  /** Resolves the receiver's host exactly once per request (the checked answer is the one connected to). */
  readonly resolver: DnsResolver;
  /** WEBHOOK_ALLOW_LOCAL: also permits plain http to loopback (development and tests only; never in production). */
  readonly allowLocal?: boolean;
  /** Total budget per request, DNS included (spec §6/§8: 15 s). */
  readonly timeoutMs?: number;
  /** Response bytes read before the socket is dropped (only the status matters). */
  readonly maxResponseBytes?: number;
  /** Extra trusted CA certificates (PEM) for https receivers, e.g. a private test CA. */
  readonly ca?: string | readonly string[];
  /**
   * Tests only, honoured only together with allowLocal: the TCP port actually connected to, since a local TLS
   * receiver cannot listen on 443 unprivileged. Every check still applies to the URL as given (default port).
   */
  readonly testConnectPort?: number;
  /** How long an idle https connection is kept for reuse by a later attempt pinned to the same address (4 s). */
  readonly idleSocketMs?: number;
}

/** Identifies the sender in receivers' logs. */
const USER_AGENT = 'custody-hub-webhooks/1';

/** Response bytes kept for the delivery log (issue #15: the first 1 KiB). */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** What a receiver answered: its status and the start of its body. */
interface Received {
  readonly status: number;
  readonly response: string;
  /** The whole body arrived within the cap: only then may the connection serve another attempt. */
  readonly complete: boolean;
}

/** Raised inside `post` to end the request early with a given error text. */
class Refused extends Error {}

/** A pooled connection the receiver had already closed failed before any response: safe to send on a fresh one. */
class StaleConnection extends Error {}

/** Attempts on stale pooled connections before the error is reported (each stale socket is destroyed on failure). */
const STALE_RETRIES = 3;

/**
 * The SSRF-safe webhook transport (DESIGN.md "SSRF"). Per request: the URL syntax is checked (https on the default
 * port; http to loopback only with allowLocal), the host is resolved ONCE, every resolved address is checked against
 * the blocked ranges, and the socket is pinned to the checked address (https connects to the checked IP literal with
 * the URL host as SNI; http through a custom `lookup`). Redirects are never followed (a 3xx is a failure), the whole
 * request including DNS has one deadline, and the response body is read only up to a cap. Never throws.
 *
 * https connections are kept alive and TLS sessions cached per (pinned address, port, host name): an attempt reuses
 * one only after its own resolve and check have passed and pinned the same address. An attempt that times out, is
 * cut at the cap or fails destroys its socket; a pooled socket the receiver had already closed is replaced by a fresh
 * connection to the same checked address within the attempt (the receiver may then see the request twice, as with any
 * retry; deliveries are at-least-once and carry their event id).
 */
export class HttpWebhookTransport implements WebhookTransport {
  private readonly allowLocal: boolean;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  /** Built once: a fresh context per connection (with its trust store) was the largest cost in the profile. */
  private readonly secureContext: SecureContext;
  /**
   * Keep-alive and TLS session cache for https. Node keys both by the connect options, and the transport connects
   * to the checked IP literal with the URL host as SNI, so a connection or session is only ever reused for the same
   * pinned address, port and host name, and only after this attempt's own resolve and check have passed.
   */
  private readonly agent: HttpsAgent;

  constructor(private readonly options: HttpWebhookTransportOptions) {
    this.allowLocal = options.allowLocal ?? false;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
    const ca = options.ca;
    this.secureContext = createSecureContext(ca === undefined ? {} : { ca: typeof ca === 'string' ? ca : [...ca] });
    this.agent = new HttpsAgent({ keepAlive: true, timeout: options.idleSocketMs ?? 4_000, scheduling: 'lifo' });
  }

  /** Closes the idle pooled connections (they are unref'd, so a process may also just exit). */
  close(): void {
    this.agent.destroy();
  }

  async post(request: WebhookRequest): Promise<TransportResult> {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    let timer: NodeJS.Timeout | undefined;
    let pending: ClientRequest | undefined;
    let expired = false;
    let reusable = false;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        pending?.destroy();
        reject(new Refused(`timeout: no complete response within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
    });
    try {
      // Resolved and checked on every attempt: a pooled connection is only ever picked for the address checked here.
      const target = await Promise.race([this.target(request.url), deadline]);
      let received: Received | undefined;
      for (let stale = 0; received === undefined; stale += 1) {
        try {
          received = await Promise.race([this.send(target, request, (req) => { pending = req; }), deadline]);
        } catch (error) {
          if (!(error instanceof StaleConnection) || expired || stale >= STALE_RETRIES) throw error instanceof StaleConnection ? error.cause : error;
        }
      }
      reusable = received.complete;
      const { status, response } = received;
      const durationMs = elapsed();
      return status >= 200 && status < 300
        ? { ok: true, status, durationMs, response }
        : { ok: false, status, error: status >= 300 && status < 400 ? `redirect not followed (HTTP ${status})` : `HTTP ${status}`, durationMs, response };
    } catch (error) {
      return { ok: false, status: null, error: describe(error), durationMs: elapsed() };
    } finally {
      clearTimeout(timer);
      // An attempt that did not end with a complete response within the cap and the deadline ends with its socket
      // gone, whatever the receiver still sends or holds open. Only a complete https response leaves its socket to
      // the pool (plain http asked for Connection: close, so the receiver closes that one).
      if (!reusable) pending?.destroy();
    }
  }

  /** Checks the URL and its resolved addresses; returns the URL and the one address to connect to. */
  private async target(raw: string): Promise<{ url: URL; address: string }> {
    const opts = { allowLocal: this.allowLocal };
    const url = checkWebhookUrlSyntax(raw, opts);
    // localhost and IP literals are refused before any lookup; only a name is resolved, once.
    const ipLiteral = checkWebhookHostBeforeLookup(url, opts);
    if (ipLiteral !== null) return { url, address: ipLiteral };
    const host = bare(url.hostname);
    const resolved = await this.resolve(host);
    checkWebhookHost(url, resolved, opts);
    const address = resolved[0];
    if (address === undefined) throw new Refused(`refused: ${host} did not resolve`);
    return { url, address };
  }

  private async resolve(host: string): Promise<string[]> {
    try {
      return await this.options.resolver.resolve(host);
    } catch {
      throw new Refused(`dns: ${host} could not be resolved`);
    }
  }

  /**
   * Sends on the pinned address and resolves with the response status and the first 1 KiB of its body. https goes
   * through the pool: the socket connects to the checked IP literal itself (so the pool key is the address) with the
   * URL host as SNI and certificate name. Plain http (loopback development only) opens one connection per request.
   */
  private send(target: { url: URL; address: string }, request: WebhookRequest, started: (req: ClientRequest) => void): Promise<Received> {
    const { url, address } = target;
    const https = url.protocol === 'https:';
    const host = bare(url.hostname);
    const body = Buffer.from(request.body, 'utf8');
    const headers = { 'User-Agent': USER_AGENT, ...request.headers, Host: url.host, 'Content-Length': String(body.length) };
    const port = this.allowLocal && this.options.testConnectPort !== undefined
      ? this.options.testConnectPort
      : url.port === '' ? (https ? 443 : 80) : Number(url.port);
    const path = `${url.pathname}${url.search}`;
    const options: RequestOptions & { servername?: string; secureContext?: SecureContext } = https
      ? { method: 'POST', host: address, port, path, headers, agent: this.agent, secureContext: this.secureContext, lookup: pinnedLookup(address) }
      : { method: 'POST', hostname: host, port, path, headers: { ...headers, Connection: 'close' }, agent: false, lookup: pinnedLookup(address) };
    // SNI and the certificate check use the URL's name; an IP-literal URL is checked against its own address.
    if (https && isIP(host) === 0) options.servername = host;
    return new Promise<Received>((resolve, reject) => {
      let responded = false;
      const req = (https ? httpsRequest : httpRequest)(options, (res) => {
        responded = true;
        this.drain(res, (head, complete) => resolve({ status: res.statusCode ?? 0, response: head, complete }), reject);
      });
      started(req);
      // Small requests: Nagle would hold the body back waiting for the peer's delayed ACK.
      req.setNoDelay(true);
      req.on('error', (error) => reject(req.reusedSocket && !responded ? new StaleConnection('stale pooled connection', { cause: error }) : error));
      req.end(body);
    });
  }

  /**
   * Reads and discards the response body, and settles once it has ended or passed the cap (the status alone decides;
   * the cap keeps a huge or endless body from holding memory). The caller's deadline covers this read: a receiver
   * that trickles its body is cut at the deadline like one that never answers (issue #13).
   */
  private drain(res: IncomingMessage, done: (head: string, complete: boolean) => void, fail: (error: Error) => void): void {
    let seen = 0;
    const head: Buffer[] = [];
    let kept = 0;
    const finish = (): void => done(Buffer.concat(head).toString('utf8'), res.complete && seen <= this.maxResponseBytes);
    res.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (kept < RESPONSE_EXCERPT_BYTES) {
        const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept);
        head.push(Buffer.from(part));
        kept += part.length;
      }
      if (seen > this.maxResponseBytes) {
        finish();
        res.destroy();
      }
    });
    res.on('end', finish);
    res.on('error', fail);
    res.on('close', () => { if (!res.complete) fail(new Refused('connection failed: response cut short')); });
  }
}

/** A `lookup` that ignores the name and answers with the already-checked address (DNS pinning). */
function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all === true) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as LookupFunction;
}

function bare(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function describe(error: unknown): string {
  if (error instanceof Refused) return error.message;
  if (error instanceof DomainError) {
    return error.code === 'BIZ-WEBHOOK-URL-BLOCKED' ? 'refused: blocked address' : `refused: ${error.message}`;
  }
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? `connection failed: ${code}` : 'connection failed';
}
