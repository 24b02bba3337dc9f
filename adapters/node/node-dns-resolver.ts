import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { InfrastructureError } from '../../core/domain/errors.js';
import type { DnsResolver } from '../../core/ports/dns-resolver.port.js';

/** The part of `dns.promises.lookup` this adapter uses (replaceable in tests). */
export type LookupAll = (host: string, options: { all: true; family: 0 }) => Promise<{ address: string; family: number }[]>;

/** Resolves through the operating system's resolver (node:dns lookup), every IPv4 and IPv6 address at once. */
export class NodeDnsResolver implements DnsResolver {
  constructor(private readonly lookupAll: LookupAll = lookup) {}

  async resolve(host: string): Promise<string[]> {
    const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    if (isIP(bare) !== 0) return [bare];
    let found: { address: string }[];
    try {
      found = await this.lookupAll(bare, { all: true, family: 0 });
    } catch (cause) {
      const code = (cause as { code?: unknown }).code;
      const permanent = code === 'ENOTFOUND' || code === 'ENODATA';
      throw new InfrastructureError('SERVICE-UNAVAILABLE', `DNS lookup of ${bare} failed (${String(code ?? 'error')})`, {
        transient: !permanent, cause,
      });
    }
    const addresses = [...new Set(found.map((entry) => entry.address))];
    if (addresses.length === 0) {
      throw new InfrastructureError('SERVICE-UNAVAILABLE', `DNS lookup of ${bare} returned no address`, { transient: false });
    }
    return addresses;
  }
}
