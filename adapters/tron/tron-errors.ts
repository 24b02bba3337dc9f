/**
 * Turns whatever tronweb, axios or a java-tron node throws into the port's error family, so that no driver error
 * crosses the ChainGateway port. One place decides what "unreachable", "over quota", "failing" and "refused" mean:
 * every failure about the node is a ChainError, and `transient` says whether the very same call may succeed later.
 */
import { ChainError, DomainError, InfrastructureError, type ErrorCode } from '../../core/domain/errors.js';

/** What the failed call was doing: balance-type reads answer CHAIN-BALANCE-QUERY-FAILED (spec §4, refresh). */
export type CallKind = 'balance-read' | 'node-read' | 'build' | 'broadcast';

/** java-tron `api.Return.response_code` values that are worth retrying with the very same transaction. */
const TRANSIENT_BROADCAST_CODES = new Set(['SERVER_BUSY', 'NO_CONNECTION', 'NOT_ENOUGH_EFFECTIVE_CONNECTION', 'BLOCK_UNSOLIDIFIED']);

/**
 * `{"Error": …}` texts of a provider over its quota, as users captured them from TronGrid: "Exceed the user daily
 * usage (100000), the maximum query frequency is 1 time per second" (tronpy#148, with HTTP 403), "The key exceeds
 * the frequency limit(15), and the query server is suspended for 30s" (with 429), "request rate exceeded the
 * allowed_rps(10), and the query server is suspended for 5 s" (iexbase/tron-api#171, with HTTP 200). The node is
 * fine; we are early.
 */
const RATE_LIMIT_TEXT = /rate limit|request rate|rate exceeded|daily usage|frequency limit|query frequency|too many requests|request too quickly|suspended for/i;

/** Upper bound of a honoured Retry-After: a daily quota resets within a day; anything longer is a broken header. */
const MAX_RETRY_AFTER_MS = 86_400_000;

/** Network-level failure codes of node:net, undici and axios (no HTTP answer at all). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ECONNABORTED', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  'ENETUNREACH', 'EHOSTUNREACH', 'ERR_NETWORK', 'ERR_SOCKET_CONNECTION_TIMEOUT', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

/** A java-tron reply that carried `{"Error": "..."}` or a `result.code`; the node answered and said no. */
export class NodeRefusal extends Error {
  constructor(
    message: string,
    readonly nodeCode?: string,
  ) {
    super(message);
    this.name = 'NodeRefusal';
  }
}

/**
 * A fallback node's refusal while the first node was paused and not asked (decision 85): not final, so it reads as
 * the first node's unavailability would, transient until that node's pause ends.
 */
export class FallbackRefusal extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
    this.name = 'FallbackRefusal';
  }
}

/**
 * A failed HTTP request of the node client's own HTTP (node-http.ts): what axios' error carries (its code, and the
 * status, headers and body when the node answered), so it reads exactly as an axios error does below.
 */
export class HttpFailure extends Error {
  readonly isHttpFailure = true;

  constructor(
    message: string,
    readonly code: string,
    readonly response?: { readonly status: number; readonly headers: Record<string, unknown>; readonly data: unknown },
  ) {
    super(message);
    this.name = 'HttpFailure';
  }
}

/** An axios error or an {@link HttpFailure}: a request that failed at HTTP level or below. */
function isHttpError(e: AxiosLike): boolean {
  return e.isAxiosError === true || e instanceof HttpFailure;
}

interface AxiosLike {
  readonly isAxiosError?: boolean;
  readonly code?: string;
  readonly message?: string;
  readonly response?: {
    readonly status?: number;
    readonly headers?: Record<string, unknown> & { get?: (name: string) => unknown };
    readonly data?: unknown;
  };
}

/** HTTP statuses that mean "not now" rather than "never": auth or quota refusals (TronGrid answers 403 over its quota), throttling, server trouble. */
export function isTransientStatus(status: number): boolean {
  return status === 401 || status === 403 || status === 408 || status === 425 || status === 429 || status >= 500;
}

/** Whether the error says the node could not be reached, or answered with a refusal worth retrying (HTTP level). */
export function isTransportFailure(e: unknown): boolean {
  const ax = e as AxiosLike | null;
  if (!ax || typeof ax !== 'object') return false;
  if (isHttpError(ax)) {
    const status = ax.response?.status;
    return status === undefined || isTransientStatus(status);
  }
  // fetch() and node:net failures carry these codes without axios' flag.
  return NETWORK_CODES.has(ax.code ?? '');
}

/** True for a `{"Error": …}` text that says the caller is over a rate or quota limit. */
export function isRateLimitText(text: string): boolean {
  return RATE_LIMIT_TEXT.test(text);
}

/**
 * Milliseconds a Retry-After value asks for: delta-seconds, or an HTTP-date measured against the response's own
 * Date header (the server's clock; `nowMs` only when it sent none). Null when absent or unreadable.
 */
export function parseRetryAfter(value: unknown, dateHeader?: unknown, nowMs: number = Date.now()): number | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const text = String(value).trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.min(Math.round(Number(text) * 1_000), MAX_RETRY_AFTER_MS);
  // An HTTP-date starts with the day name (IMF-fixdate, RFC 850 and asctime forms alike).
  const at = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) return null;
  const serverNow = typeof dateHeader === 'string' ? Date.parse(dateHeader) : Number.NaN;
  return Math.min(Math.max(0, at - (Number.isNaN(serverNow) ? nowMs : serverNow)), MAX_RETRY_AFTER_MS);
}

/** The wait a rate-limit text names ("suspended for 5 s"), or null. */
function retryAfterInText(text: string): number | null {
  const m = /suspended for (\d+)\s*s\b/i.exec(text);
  return m ? Math.min(Number(m[1]) * 1_000, MAX_RETRY_AFTER_MS) : null;
}

function header(ax: AxiosLike, name: string): unknown {
  const headers = ax.response?.headers;
  if (!headers) return undefined;
  return typeof headers.get === 'function' ? headers.get(name) : headers[name.toLowerCase()];
}

/** A short, key-free excerpt of what an HTTP error body said (TronGrid explains its 403s in the body). */
function bodyText(data: unknown): string {
  if (data && typeof data === 'object') {
    const said = (data as Record<string, unknown>)['Error'] ?? (data as Record<string, unknown>)['message'];
    if (typeof said === 'string') return said.slice(0, 200);
  }
  return '';
}

function describe(e: unknown): string {
  const ax = e as AxiosLike | null;
  if (ax && typeof ax === 'object' && isHttpError(ax)) {
    const status = ax.response?.status;
    if (status === undefined) return `node unreachable or reply lost (${ax.code ?? ax.message ?? 'network error'})`;
    const said = bodyText(ax.response?.data);
    return said ? `node answered HTTP ${status} (${said})` : `node answered HTTP ${status}`;
  }
  return e instanceof Error ? e.message : String(e);
}

/** What the node said, when it said something: its refusal code, `HTTP_<status>`, or RATE_LIMITED for a quota text. */
interface Verdict {
  readonly transient: boolean;
  readonly nodeCode: string | null;
  readonly retryAfterMs: number | null;
  /** True when the failure came from below HTTP or from HTTP itself, not from a java-tron answer. */
  readonly transport: boolean;
}

function verdict(e: unknown, nowMs: number): Verdict {
  if (e instanceof FallbackRefusal) return { transient: true, nodeCode: null, retryAfterMs: e.retryAfterMs, transport: true };
  const ax = e as AxiosLike | null;
  if (ax && typeof ax === 'object' && isHttpError(ax)) {
    const status = ax.response?.status;
    if (status === undefined) return { transient: true, nodeCode: null, retryAfterMs: null, transport: true };
    const retryAfterMs = parseRetryAfter(header(ax, 'Retry-After'), header(ax, 'Date'), nowMs) ?? retryAfterInText(bodyText(ax.response?.data));
    return { transient: isTransientStatus(status), nodeCode: `HTTP_${status}`, retryAfterMs, transport: isTransientStatus(status) };
  }
  if (e instanceof NodeRefusal) {
    if (e.nodeCode === undefined && isRateLimitText(e.message)) {
      return { transient: true, nodeCode: 'RATE_LIMITED', retryAfterMs: retryAfterInText(e.message), transport: true };
    }
    return { transient: e.nodeCode !== undefined && TRANSIENT_BROADCAST_CODES.has(e.nodeCode), nodeCode: e.nodeCode ?? null, retryAfterMs: null, transport: false };
  }
  const transport = isTransportFailure(e);
  return { transient: transport, nodeCode: null, retryAfterMs: null, transport };
}

/**
 * Maps a caught error to a ChainError (a DomainError, an argument the caller got wrong, passes through, as does a
 * ChainError). `what` names the operation for the message (never a key, never a whole request). `nowMs` only
 * matters for a Retry-After HTTP-date from a server that sent no Date header.
 */
export function toPortError(e: unknown, kind: CallKind, what: string, nowMs: number = Date.now()): ChainError | DomainError {
  if (e instanceof ChainError || e instanceof DomainError) return e;
  if (e instanceof InfrastructureError) {
    return new ChainError(e.code, e.message, { transient: e.transient, cause: e });
  }
  const v = verdict(e, nowMs);
  let code: ErrorCode;
  if (kind === 'balance-read') code = 'CHAIN-BALANCE-QUERY-FAILED';
  else if (kind === 'broadcast' && !v.transport) code = 'CHAIN-BROADCAST-FAILED';
  else if (kind === 'build' && !v.transport) code = 'CHAIN-TRANSACTION-FAILED';
  else code = 'CHAIN-NODE-UNAVAILABLE';
  const refusal = e instanceof NodeRefusal && e.nodeCode !== undefined ? `${e.nodeCode}: ` : '';
  const wait = v.retryAfterMs === null ? '' : ` (retry after ${v.retryAfterMs} ms)`;
  return new ChainError(code, `${what}: ${refusal}${describe(e)}${wait}`, {
    transient: v.transient, cause: e, nodeCode: v.nodeCode, retryAfterMs: v.retryAfterMs,
  });
}

/**
 * Whether a failure is the node's rather than an answer from java-tron (unreachable, no reply, an HTTP 5xx, 401,
 * 403, 408, 425 or 429, a quota text), with the wait it asked for: what makes another node worth asking. Null for a
 * java-tron answer (a refusal code, an `{"Error": …}` body), which another node would give too.
 */
export function nodeFailure(e: unknown, nowMs: number = Date.now()): { readonly retryAfterMs: number | null } | null {
  const v = verdict(e, nowMs);
  return v.transport ? { retryAfterMs: v.retryAfterMs } : null;
}

/** Runs `fn`, mapping anything it throws with {@link toPortError}. */
export async function guarded<T>(kind: CallKind, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toPortError(e, kind, what);
  }
}

/** java-tron prints some messages as hex of their UTF-8 bytes; decode those, leave readable text alone. */
export function decodeNodeMessage(message: unknown): string {
  if (typeof message !== 'string') return '';
  if (/^([0-9a-fA-F]{2})+$/.test(message)) {
    const text = Buffer.from(message, 'hex').toString('utf8');
    // Only accept the decoding when it is printable text (a plain hex string could be a legitimate message).
    if (/^[\x20-\x7e\u00a0-\uffff\s]*$/.test(text)) return text;
  }
  return message;
}

/** 422 VALIDATION-ERROR for an argument the caller got wrong (bad address, amount out of range). */
export function invalidArgument(field: string, problem: string): DomainError {
  return new DomainError('VALIDATION-ERROR', { field, message: `${field}: ${problem}` });
}
