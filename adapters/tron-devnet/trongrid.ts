/**
 * The failure replies of a public TRON gateway (TronGrid and the nginx in front of it), reproduced from what
 * users have captured. Each reply names its source. None of these requests reaches the node.
 */

/** A reply: status, reason phrase, headers and body text. */
export interface GatewayReply {
  status: number;
  reason: string;
  headers: Record<string, string>;
  body: string;
}

const json = (status: number, reason: string, body: unknown, retryAfterS?: number): GatewayReply => ({
  status,
  reason,
  headers: { 'content-type': 'application/json', ...(retryAfterS === undefined ? {} : { 'retry-after': String(retryAfterS) }) },
  body: JSON.stringify(body),
});

/**
 * 403 over the daily quota. The text is the one reported in tronpy#148 ("Exceed the user daily usage (100000), the
 * maximum query frequency is 1 time per second"); tronpy's HTTPProvider recognises exactly a 403 whose body holds
 * "Exceed the user daily usage" and reads its `Error` field. `budget` replaces the 100,000 of a free key.
 * Retry-After is a devnet addition (TronGrid is not documented to send it): clients must not depend on it.
 */
export function dailyUsage403(retryAfterS: number, budget = 100_000): GatewayReply {
  return json(403, 'Forbidden', { Error: `Exceed the user daily usage (${budget}), the maximum query frequency is 1 time per second` }, retryAfterS);
}

/**
 * 429 over the per-second frequency. The text is the fullnode-API form on TronGrid's "Rate Limits" reference page
 * (`{"Error": "The key exceeds the frequency limit(15), and the query server is suspended for 30s"}`); the 429 status
 * is what wallet-cli#985/#986 and tronpy#153 report from the same gateway. The limit and the suspension carry the
 * devnet's numbers; Retry-After (a devnet addition) equals the suspension.
 */
export function frequencyLimit429(retryAfterS: number, limit = 15): GatewayReply {
  return json(429, 'Too Many Requests', { Error: `The key exceeds the frequency limit(${limit}), and the query server is suspended for ${retryAfterS}s` }, retryAfterS);
}

/**
 * HTTP 200 carrying an error instead of a result: the body iexbase/tron-api#171 received from TronGrid
 * (`{"Error":"request rate exceeded the allowed_rps(10), and the query server is suspended for 5 s"}`), in the
 * `{"Error": ...}` form java-tron's own servlets use for failures (Util.printErrorMsg).
 */
export function errorBody200(): GatewayReply {
  return json(200, 'OK', { Error: 'request rate exceeded the allowed_rps(10), and the query server is suspended for 5 s' });
}

const NGINX_REASONS: Record<number, string> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  // nginx's own reason phrase, which tronweb#237 shows as axios' statusText for TronGrid's 503.
  503: 'Service Temporarily Unavailable',
};

/**
 * A 5xx from the gateway's nginx: its stock HTML error page (the shape quoted in tronscan-frontend#1580 and
 * tron-grid#10), not JSON. tronweb#237 (503 on gettransactioninfobyid, "you exceeded the TRONGRID request limits")
 * and tron-web#72 (502 HTML from TronGrid's load balancer) are the reports.
 */
export function nginxError(status: 500 | 502 | 503): GatewayReply {
  const title = `${status} ${NGINX_REASONS[status]}`;
  return {
    status,
    reason: NGINX_REASONS[status]!,
    headers: { 'content-type': 'text/html' },
    body: `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
  };
}
