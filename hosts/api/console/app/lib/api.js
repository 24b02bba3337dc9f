// The console's only way to the server: the public API under /api, same origin, with the session cookie the page
// cannot read. Every call carries `X-Console: 1` (the API refuses cookie calls without it: a cross-site form cannot set
// it). Errors come back as ApiError with the API's own `message`, which screens show as it is.

/** The header a step-up code travels in (the API's X-TOTP-Code). */
export const STEP_UP_HEADER = 'X-TOTP-Code';
const STEP_UP_CODES = new Set(['AUTH-STEP-UP-REQUIRED', 'AUTH-STEP-UP-INVALID']);

/** A failed call: HTTP status, the API's catalogue `code` and its `message` (null code: the network failed). */
export class ApiError extends Error {
  constructor(status, code, message, data) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.data = data ?? {};
  }
}

function queryString(query) {
  if (query === undefined || query === null) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * A fresh Idempotency-Key for one action (keep it for the retries of that action): 128 random bits as hex.
 * crypto.getRandomValues, not randomUUID, which a page served over plain HTTP (not localhost) does not have.
 */
export function newIdempotencyKey() {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Makes the API client. `onUnauthenticated` is told of a 401 (the session ended: the shell shows the sign-in);
 * `askStepUp(error)` is set by the shell: it shows the step-up dialog and resolves to the code typed, or null.
 *
 * Calls: get(path, query, opts), post(path, body, opts), put, patch, del(path, body, opts), download(path, query,
 * filename). `path` is the API path without `/api` ("/ledger/balances"). opts: `{ stepUp: true }` asks for a code and
 * retries when the API wants a step-up; `idempotencyKey`; `background: true` for polls (does not keep the session
 * alive); `raw: true` answers the Response's text (an SVG); `headers`.
 */
export function createApi({ onUnauthenticated = () => {} } = {}) {
  const api = {
    askStepUp: async () => null,
    async request(method, path, { query, body, stepUp = false, idempotencyKey, background = false, raw = false, headers = {}, accept } = {}) {
      const url = `/api${path}${queryString(query)}`;
      let code = null;
      for (;;) {
        const sent = { 'X-Console': '1', Accept: accept ?? (raw ? '*/*' : 'application/json'), ...headers };
        if (body !== undefined) sent['Content-Type'] = 'application/json';
        if (background) sent['X-Console-Poll'] = '1';
        if (idempotencyKey !== undefined) sent['Idempotency-Key'] = idempotencyKey;
        if (code !== null) sent[STEP_UP_HEADER] = code;
        let response;
        try {
          response = await fetch(url, {
            // The page's own calls carry its Referer (the API's same-origin signal where no Sec-Fetch-Site is sent:
            // plain HTTP); the page's Referrer-Policy (no-referrer) still holds for everything else.
            method, headers: sent, credentials: 'same-origin', cache: 'no-store', referrerPolicy: 'same-origin',
            body: body === undefined ? undefined : JSON.stringify(body),
          });
        } catch (error) {
          throw new ApiError(0, null, error instanceof Error ? error.message : String(error));
        }
        if (response.ok && raw) return response;
        const text = await response.text();
        let envelope = null;
        try { envelope = JSON.parse(text); } catch { /* not JSON: reported below */ }
        if (response.ok && envelope !== null && envelope.code === 'OK') return envelope.data;
        const error = new ApiError(response.status, envelope?.code ?? null, envelope?.message ?? `${response.status} ${response.statusText}`, envelope?.data);
        if (response.status === 401) onUnauthenticated(error);
        if (stepUp && STEP_UP_CODES.has(error.code)) {
          code = await api.askStepUp(error);
          if (code !== null && code !== '') continue;
        }
        throw error;
      }
    },
    get: (path, query, opts = {}) => api.request('GET', path, { ...opts, query }),
    post: (path, body = {}, opts = {}) => api.request('POST', path, { ...opts, body }),
    put: (path, body = {}, opts = {}) => api.request('PUT', path, { ...opts, body }),
    patch: (path, body = {}, opts = {}) => api.request('PATCH', path, { ...opts, body }),
    del: (path, body, opts = {}) => api.request('DELETE', path, { ...opts, body }),
    /** Downloads a CSV answer of the API as a file (the ledger's `format=csv`); errors come back in the envelope. */
    async download(path, query, filename, accept = 'text/csv') {
      const response = await api.request('GET', path, { query, raw: true, accept });
      const blob = await response.blob();
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = filename;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    },
  };
  return api;
}
