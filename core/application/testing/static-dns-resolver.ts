import type { DnsResolver } from '../../ports/dns-resolver.port.js';

/**
 * A DnsResolver for tests over a fixed table: hosts resolve to the addresses set for them, IP literals to themselves,
 * anything else fails like NXDOMAIN. Tests see exactly which addresses the webhook checks ran against.
 */
export class StaticDnsResolver implements DnsResolver {
  private readonly table = new Map<string, string[]>();

  constructor(entries: Readonly<Record<string, readonly string[]>> = {}) {
    for (const [host, addresses] of Object.entries(entries)) this.set(host, addresses);
  }

  /** Makes `host` resolve to `addresses` (an empty list makes it fail). */
  set(host: string, addresses: readonly string[]): void {
    this.table.set(host.toLowerCase(), [...addresses]);
  }

  async resolve(host: string): Promise<string[]> {
    if (/^[\d.]+$/.test(host) || host.includes(':')) return [host];
    const found = this.table.get(host.toLowerCase());
    if (found === undefined || found.length === 0) throw new Error(`ENOTFOUND ${host}`);
    return [...found];
  }
}
