/** Failures of the typed client: the API's envelope `{code, message, data}` as an Error with its status and code. */

/** What an openapi-fetch call resolves to (success or failure), as far as the helpers need it. */
export interface ApiResult {
  readonly data?: unknown;
  readonly error?: unknown;
  readonly response: Response;
}

/** `data` of the success envelope of a call's result. */
export type DataOf<R> = R extends { readonly data: { readonly data: infer D } } ? D : never;

/** The catalogue codes a call's result documents for its failures. */
export type ErrorCodeOf<R> = R extends { readonly error: { readonly code: infer C } } ? C : never;

/** An answer that is not a success: the envelope's code (`BIZ-…`, `RATE-LIMITED`…), message and HTTP status. */
export class CustodyApiError<C extends string = string> extends Error {
  override readonly name = 'CustodyApiError';
  constructor(
    /** The catalogue code (stable; match on it, never on the message). */
    readonly code: C,
    message: string,
    readonly status: number,
    /** The server's x-request-id, for a support request. */
    readonly requestId: string | null,
    /** Seconds the server asked to wait (429), else null. */
    readonly retryAfterSeconds: number | null,
  ) {
    super(message);
  }
}

/** True when `error` is a CustodyApiError (with `code`, when given). */
export function isCustodyApiError<C extends string = string>(error: unknown, code?: C): error is CustodyApiError<C> {
  return error instanceof CustodyApiError && (code === undefined || error.code === code);
}

/**
 * The `data` of a success envelope, or a CustodyApiError thrown from the failure envelope (a body that is not the
 * envelope still throws, with code `HTTP-<status>`).
 */
export async function unwrap<R extends ApiResult>(call: Promise<R> | R): Promise<DataOf<R>> {
  const result = await call;
  const { response } = result;
  if (response.ok && result.data !== undefined) return (result.data as { data: DataOf<R> }).data;
  const body = result.error as { code?: unknown; message?: unknown } | undefined;
  const code = typeof body?.code === 'string' ? body.code : `HTTP-${response.status}`;
  const message = typeof body?.message === 'string' ? body.message : response.statusText;
  const retryAfter = response.headers.get('retry-after');
  throw new CustodyApiError(code, message, response.status, response.headers.get('x-request-id'),
    retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : null);
}
