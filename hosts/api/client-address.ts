import { isIP } from 'node:net';

/** The most reverse proxies TRUSTED_PROXY_HOPS may count. */
export const MAX_TRUSTED_PROXY_HOPS = 10;

const MAPPED_V4 = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;
const MAPPED_V4_HEX = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;
/** An IPv4 address or a bracketed one, then a port: Azure Application Gateway writes its entries as `IP:port`. */
const WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}|\[[^\]]*\]):(\d{1,5})$/;

/**
 * An IP address as a proxy writes it into X-Forwarded-For (`1.2.3.4`, `2001:db8::1`, `[2001:db8::1]`, with a port
 * `1.2.3.4:5678` or `[2001:db8::1]:443`), in one spelling per address: the port dropped, IPv6 compressed and
 * lower-cased, an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, which a dual-stack socket reports for an IPv4 client) as
 * its IPv4 address. Null for anything else: a host name, `unknown`, a port above 65535, an empty entry.
 */
export function normalizeAddress(entry: string): string | null {
  const ported = WITH_PORT.exec(entry);
  if (ported !== null) return Number(ported[2]) <= 65_535 ? normalizeAddress(ported[1]!) : null;
  const bracketed = entry.startsWith('[') && entry.endsWith(']');
  const address = bracketed ? entry.slice(1, -1) : entry;
  const version = isIP(address);
  if (version === 4) return bracketed ? null : address;
  if (version !== 6) return null;
  const mapped = MAPPED_V4.exec(address);
  if (mapped !== null) return mapped[1]!;
  let canonical: string;
  try {
    // The WHATWG URL parser writes an IPv6 host in its canonical form (RFC 5952): compressed, lower case.
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    // A zone id (`fe80::1%eth0`) is valid to isIP but not in a URL: kept as given, lower-cased.
    return address.toLowerCase();
  }
  const hex = MAPPED_V4_HEX.exec(canonical);
  if (hex === null) return canonical;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/**
 * The client address a request's throttles are counted against: Express's "trust proxy = N" rule. The addresses are
 * the socket's peer, then the X-Forwarded-For entries from right to left (each proxy appends the address it received
 * the request from); the client is the one `trustedHops` steps along, or the furthest there is when the chain is
 * shorter. An entry that is not an IP address ends the chain: nothing left of it can be trusted. With 0 hops the
 * header is ignored and the client is the peer, as it is without a proxy.
 *
 * A client can prepend anything to X-Forwarded-For, but with exactly `trustedHops` proxies in front of the API, each
 * appending its peer, the entry `trustedHops` steps along is the one the outermost proxy wrote: forged entries sit
 * left of it and are never reached. Undefined when the peer is unknown (no socket): nothing after it can be trusted.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | null, trustedHops: number): string | undefined {
  if (peer === undefined) return undefined;
  const first = normalizeAddress(peer);
  if (first === null) return peer;
  if (trustedHops < 1 || forwardedFor === null) return first;
  const entries = forwardedFor.split(',');
  let client = first;
  for (let hop = 1, i = entries.length - 1; hop <= trustedHops && i >= 0; hop++, i--) {
    const address = normalizeAddress(entries[i]!.trim());
    if (address === null) break;
    client = address;
  }
  return client;
}

/**
 * What the per-client-address throttles count against: an IPv4 address itself, an IPv6 address's /64 network
 * (`2001:db8:1:2::/64`). One subscriber or host is handed a whole /64 (RFC 6177, and SLAAC picks addresses inside it
 * at will), so counting each IPv6 address on its own would give one client 2^64 buckets. Takes what
 * {@link clientAddress} returns; anything that is not an IP address is its own bucket.
 */
export function throttleNetwork(address: string): string {
  const bare = address.split('%')[0]!;
  if (isIP(bare) !== 6) return address;
  const [head = '', tail] = bare.toLowerCase().split('::');
  // A dotted IPv4 tail (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) is the last two groups.
  const groupsOf = (part: string): string[] => part.split(':').flatMap((g) => {
    if (!g.includes('.')) return [g];
    const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number);
    return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  });
  const front = head === '' ? [] : groupsOf(head);
  const back = tail === undefined || tail === '' ? [] : groupsOf(tail);
  const groups = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
