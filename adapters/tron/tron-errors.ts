/**
 * Turns whatever tronweb, axios or a java-tron node throws into the port's error family, so that no driver error
 * crosses the ChainGateway port. One place decides what "unreachable", "failing" and "refused" mean.
 */
import { DomainError, InfrastructureError, type ErrorCode } from '../../core/domain/errors.js';

/** What the failed call was doing: balance-type reads answer CHAIN-BALANCE-QUERY-FAILED (spec §4, refresh). */
export type CallKind = 'balance-read' | 'node-read' | 'build' | 'broadcast';

/** java-tron `api.Return.response_code` values that are worth retrying with the very same transaction. */
const TRANSIENT_BROADCAST_CODES = new Set(['SERVER_BUSY', 'NO_CONNECTION', 'NOT_ENOUGH_EFFECTIVE_CONNECTION', 'BLOCK_UNSOLIDIFIED']);

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

interface AxiosLike {
  readonly isAxiosError?: boolean;
  readonly code?: string;
  readonly message?: string;
  readonly response?: { readonly status?: number };
}

/** Whether the error says the node could not be reached or answered with a server failure (worth a retry). */
export function isTransportFailure(e: unknown): boolean {
  const ax = e as AxiosLike | null;
  if (!ax || typeof ax !== 'object') return false;
  if (ax.isAxiosError) {
    const status = ax.response?.status;
    return status === undefined || status >= 500 || status === 429;
  }
  // fetch() and node:net failures carry these codes without axios' flag.
  return ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'].includes(ax.code ?? '');
}

function describe(e: unknown): string {
  const ax = e as AxiosLike | null;
  if (ax && typeof ax === 'object' && ax.isAxiosError) {
    const status = ax.response?.status;
    return status === undefined ? `node unreachable (${ax.code ?? ax.message ?? 'network error'})` : `node answered HTTP ${status}`;
  }
  return e instanceof Error ? e.message : String(e);
}

/**
 * Maps a caught error to an InfrastructureError. Errors that already belong to the port's family pass through.
 * `what` names the operation for the message (never a key, never a whole request).
 */
export function toPortError(e: unknown, kind: CallKind, what: string): InfrastructureError | DomainError {
  if (e instanceof InfrastructureError || e instanceof DomainError) return e;
  const transport = isTransportFailure(e);
  let code: ErrorCode;
  if (kind === 'balance-read') code = 'CHAIN-BALANCE-QUERY-FAILED';
  else if (kind === 'broadcast' && !transport) code = 'CHAIN-BROADCAST-FAILED';
  else if (kind === 'build' && !transport) code = 'CHAIN-TRANSACTION-FAILED';
  else code = 'CHAIN-NODE-UNAVAILABLE';
  const nodeCode = e instanceof NodeRefusal ? e.nodeCode : undefined;
  const transient = transport || (nodeCode !== undefined && TRANSIENT_BROADCAST_CODES.has(nodeCode));
  const detail = nodeCode ? `${nodeCode}: ${describe(e)}` : describe(e);
  return new InfrastructureError(code, `${what}: ${detail}`, { transient, cause: e });
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
