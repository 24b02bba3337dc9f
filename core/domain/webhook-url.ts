import { BlockList, isIP } from 'node:net';
import { DomainError } from './errors.js';

/** Options of the URL checks. `allowLocal` is the explicit test/dev allowance for loopback receivers (DESIGN.md). */
export interface WebhookUrlOptions {
  readonly allowLocal: boolean;
}

/** Long enough for any real endpoint, short enough to keep stored configs and logs bounded. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** IPv4 ranges that must never receive a webhook (IANA special-purpose registry; spec §6 rule 2 and DESIGN.md). */
const BLOCKED_IPV4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], ['198.51.100.0', 24], ['203.0.113.0', 24], // documentation
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including the broadcast 255.255.255.255
];

/** IPv6 ranges blocked in their own right (the embedded-IPv4 forms are derived from BLOCKED_IPV4 below). */
const BLOCKED_IPV6: readonly (readonly [string, number])[] = [
  ['::', 128], ['::1', 128], // unspecified, loopback
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID ...
  ['2001:db8::', 32], ['3fff::', 20], // documentation
  ['64:ff9b:1::', 48], // local-use NAT64
  ['fc00::', 7], // unique local (private)
  ['fec0::', 10], // deprecated site-local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
];

/**
 * Prefixes that embed an IPv4 address in their last 32 bits (IPv4-compatible, IPv4-translated, NAT64). Node's
 * BlockList matches IPv4-mapped `::ffff:a.b.c.d` against IPv4 rules by itself; these it does not, so every blocked
 * IPv4 range is also added under each prefix, and 6to4 (`2002:AABB:CCDD::/48`) gets its own translation.
 */
const EMBEDDING_PREFIXES = ['::', '::ffff:0:', '64:ff9b::'] as const;

function buildBlockList(): BlockList {
  const list = new BlockList();
  for (const [net, bits] of BLOCKED_IPV4) {
    list.addSubnet(net, bits, 'ipv4');
    for (const prefix of EMBEDDING_PREFIXES) list.addSubnet(`${prefix}${net}`, 96 + bits, 'ipv6');
    const [a, b, c, d] = net.split('.').map((octet) => Number(octet).toString(16).padStart(2, '0')) as [string, string, string, string];
    list.addSubnet(`2002:${a}${b}:${c}${d}::`, 16 + bits, 'ipv6');
  }
  for (const [net, bits] of BLOCKED_IPV6) list.addSubnet(net, bits, 'ipv6');
  return list;
}

function subnets(entries: readonly (readonly [string, number])[]): BlockList {
  const list = new BlockList();
  for (const [net, bits] of entries) list.addSubnet(net, bits, 'ipv6');
  return list;
}

const BLOCKED = buildBlockList();
/** IPv6 outside global unicast (2000::/3) is refused unless it is an embedded form of a public IPv4. */
const GLOBAL_UNICAST = subnets([['2000::', 3]]);
const EMBEDDING = subnets([['::ffff:0:0', 96], ['::', 96], ['::ffff:0:0:0', 96], ['64:ff9b::', 96]]);
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** An IP literal without brackets or zone, with its family; null when it is not one. */
function literal(ip: string): { ip: string; family: 'ipv4' | 'ipv6' } | null {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  // A zone id (fe80::1%eth0) is silently ignored by BlockList, so such literals are not vouched for.
  if (bare.includes('%')) return null;
  const version = isIP(bare);
  return version === 0 ? null : { ip: bare, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * True when a webhook must not be sent to `ip`: loopback, private, link-local, CGNAT, unspecified, multicast,
 * broadcast, reserved, documentation and benchmarking ranges, in IPv4 and IPv6, including IPv4-mapped,
 * IPv4-compatible, NAT64 and 6to4 forms of those IPv4 ranges. Anything that is not an IP literal is blocked
 * (fail closed). Accepts bracketed IPv6 (`[::1]`, as URL.hostname gives it).
 */
export function isBlockedIp(ip: string): boolean {
  const parsed = literal(ip);
  if (parsed === null) return true;
  if (BLOCKED.check(parsed.ip, parsed.family)) return true;
  if (parsed.family === 'ipv4' || EMBEDDING.check(parsed.ip, 'ipv6')) return false;
  return !GLOBAL_UNICAST.check(parsed.ip, 'ipv6');
}

/** 127.0.0.0/8 and ::1, also as `::ffff:127.x.y.z`. */
export function isLoopbackIp(ip: string): boolean {
  const parsed = literal(ip);
  return parsed !== null && LOOPBACK.check(parsed.ip, parsed.family);
}

/** `localhost` and `*.localhost` always mean this machine (RFC 6761). */
function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

function invalid(message: string): DomainError {
  return new DomainError('VALIDATION-ERROR', { field: 'webhook_url', message: `webhook_url: ${message}` });
}

/**
 * Spec §6 rule 1: `https:` on the default port (443 or none), no credentials. With `allowLocal`, plain `http:` on
 * any port is also accepted for loopback hosts only (localhost, 127.0.0.0/8, ::1). Throws VALIDATION-ERROR naming
 * `webhook_url`. Store `url.href`: the WHATWG parser normalises the host (IPv4 `0x7f.1` → `127.0.0.1`, IPv6
 * compressed), so the address checks below see canonical literals.
 */
export function checkWebhookUrlSyntax(raw: string, opts: WebhookUrlOptions): URL {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) throw invalid(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('must be an absolute URL');
  }
  if (url.username !== '' || url.password !== '') throw invalid('must not contain credentials');
  if (url.protocol === 'https:') {
    if (url.port !== '') throw invalid('must use the default https port 443');
    return url;
  }
  const localHttp = opts.allowLocal && url.protocol === 'http:' && (isLocalhostName(url.hostname) || isLoopbackIp(url.hostname));
  if (!localHttp) throw invalid('must use https');
  return url;
}

/**
 * The checks that need no DNS answer: a `localhost` name or a blocked IP literal is refused with
 * BIZ-WEBHOOK-URL-BLOCKED before anything is resolved (issue #13: a user must not make the server resolve a name it
 * would refuse anyway). Returns the IP literal of the host, or null when the host is a name that must be resolved.
 */
export function checkWebhookHostBeforeLookup(url: URL, opts: WebhookUrlOptions): string | null {
  const host = url.hostname;
  const hostLiteral = literal(host);
  if (hostLiteral === null) {
    if (isLocalhostName(host) && !opts.allowLocal) throw new DomainError('BIZ-WEBHOOK-URL-BLOCKED');
    return null;
  }
  checkWebhookHost(url, [], opts);
  return hostLiteral.ip;
}

/**
 * Spec §6 rule 2: refuses with BIZ-WEBHOOK-URL-BLOCKED when the URL's host is a blocked literal or a localhost
 * name, or when ANY of the addresses it resolved to is blocked — one bad answer is enough, since the transport might
 * pick it. An empty resolution of a name is refused as well (nothing was checked). With `allowLocal`, loopback is
 * allowed, nothing else.
 */
export function checkWebhookHost(url: URL, resolved: readonly string[], opts: WebhookUrlOptions): void {
  const allowed = (ip: string): boolean => !isBlockedIp(ip) || (opts.allowLocal && isLoopbackIp(ip));
  const host = url.hostname;
  const hostLiteral = literal(host);
  const candidates = hostLiteral === null ? [...resolved] : [hostLiteral.ip, ...resolved];
  const localName = hostLiteral === null && isLocalhostName(host);
  if ((localName && !opts.allowLocal) || candidates.length === 0 || !candidates.every(allowed)) {
    throw new DomainError('BIZ-WEBHOOK-URL-BLOCKED');
  }
}
