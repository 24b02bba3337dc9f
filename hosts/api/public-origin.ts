/** A host as a URL may carry it: a name or IPv4 address, or a bracketed IPv6 address, and an optional port. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/** The first value of a header that proxies append to (`a, b`), trimmed; null when absent or empty. */
function first(headers: Headers, name: string): string | null {
  const value = headers.get(name)?.split(',')[0]?.trim();
  return value === undefined || value === '' ? null : value;
}

/**
 * The service's origin as the caller reached it, for the links an answer hands back to that same caller (the payer
 * URL of a payment request, issue #34): `X-Forwarded-Proto` and `X-Forwarded-Host` when a TLS-terminating proxy set
 * them, else `http` and `Host`. Headers that could not form an origin give undefined (the answer then has no link).
 * Only the caller reads the link, so a spoofed header misleads no one else.
 */
export function requestOrigin(headers: Headers): string | undefined {
  const proto = (first(headers, 'x-forwarded-proto') ?? 'http').toLowerCase();
  const host = first(headers, 'x-forwarded-host') ?? first(headers, 'host');
  if ((proto !== 'http' && proto !== 'https') || host === null || !HOST.test(host)) return undefined;
  return `${proto}://${host}`;
}
