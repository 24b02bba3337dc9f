import { FastResponse } from 'srvx';
import {
  ConcurrencyConflict, DomainError, ERROR_CATALOGUE, InfrastructureError, type ErrorCode,
} from '../../core/domain/errors.js';
import { httpStatusOf, retryAfterSeconds, type ErrorStatuses } from './error-status.js';
import { RateLimitRefusal } from './rate-limit.js';

/** Spec §1 envelope: `{code, message, data}`; `data` is `{}` on failure. */
export interface Envelope {
  readonly code: string;
  readonly message: string;
  readonly data: unknown;
}

/** A fully decided HTTP answer before it becomes a Response: status, JSON body text and extra headers. */
export interface ApiReply {
  readonly status: number;
  /** The serialised envelope; stored as-is by the idempotency layer so a replay is byte for byte. */
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** 2xx envelope around a use case result. `null` stays null (GET /cashier/task with no task, spec §4); only a void result becomes `{}`. */
export function okReply(data: unknown, status = 200): ApiReply {
  return { status, body: JSON.stringify({ code: 'OK', message: 'success', data: data === undefined ? {} : data }), headers: {} };
}

/** Failure envelope for a catalogue code; the message defaults to the catalogue text, the status to the host table's. */
export function failureReply(code: ErrorCode, options: { message?: string; status?: number; headers?: Record<string, string> } = {}): ApiReply {
  const body = JSON.stringify({ code, message: options.message ?? ERROR_CATALOGUE[code].message, data: {} });
  return { status: options.status ?? httpStatusOf(code), body, headers: options.headers ?? {} };
}

/** The headers of a domain failure: a rate-limit refusal's window, and Retry-After when waiting helps. */
function headersOf(error: DomainError): Record<string, string> {
  const headers: Record<string, string> = error instanceof RateLimitRefusal ? { ...error.windowHeaders } : {};
  if (error.retryAfterMs !== null) headers['retry-after'] = retryAfterSeconds(error.retryAfterMs);
  return headers;
}

/** What the host learnt from a thrown value: the reply, and whether it is unexpected (to be logged with details). */
export interface MappedError {
  readonly reply: ApiReply;
  readonly unexpected: boolean;
}

/**
 * Maps anything a use case or the pipeline throws to an envelope. Domain errors keep their code and message; their
 * status is the host table's, or the one the route declares for that code (`statuses`). Infrastructure errors keep
 * their code but get the catalogue message (their own message may name hosts or drivers); a lost optimistic race is
 * a retryable 503; everything else is a generic 500.
 */
export function mapError(error: unknown, statuses?: ErrorStatuses): MappedError {
  if (error instanceof DomainError) {
    const status = httpStatusOf(error.code, statuses);
    return { reply: failureReply(error.code, { message: error.message, status, headers: headersOf(error) }), unexpected: false };
  }
  if (error instanceof InfrastructureError) {
    const status = httpStatusOf(error.code, statuses);
    return { reply: failureReply(error.code, { status }), unexpected: status >= 500 };
  }
  if (error instanceof ConcurrencyConflict) {
    // Two writers raced on one aggregate and the use case gave up: retrying later succeeds, so it is no crash (503).
    return { reply: failureReply('SERVICE-UNAVAILABLE'), unexpected: false };
  }
  return { reply: failureReply('INTERNAL-ERROR'), unexpected: true };
}

/**
 * Every answer is per caller and may carry a secret shown once (tokens, session): no cache may keep it, and no
 * browser may sniff it into another type.
 */
const BASE_HEADERS = { 'content-type': JSON_TYPE, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

/**
 * Turns a reply into the response h3 sends, adding the per-request headers (request id, rate limit); later sources
 * win (base, then per-request, then the reply's own). srvx's FastResponse with a plain header object, not h3's
 * HTTPResponse: that one builds a WHATWG Headers (validated, then sorted on iteration) for every answer, a tenth of the
 * pipeline's CPU (bench/api.ts); node validates the names and values when it writes them either way. Names are
 * lower-cased here so two spellings of one header cannot both reach the wire.
 */
export function toHttpResponse(reply: ApiReply, extraHeaders: Readonly<Record<string, string>>): Response {
  // A literal, not a spread of BASE_HEADERS: adding keys to a spread copy measured ~15x slower on node 20.
  const headers: Record<string, string> = {
    'content-type': BASE_HEADERS['content-type'], 'cache-control': BASE_HEADERS['cache-control'],
    'x-content-type-options': BASE_HEADERS['x-content-type-options'],
  };
  for (const name in extraHeaders) headers[name.toLowerCase()] = extraHeaders[name]!;
  for (const name in reply.headers) headers[name.toLowerCase()] = reply.headers[name]!;
  return new FastResponse(reply.body, { status: reply.status, headers });
}
