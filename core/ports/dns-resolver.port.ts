/** Resolves a host name once, so the webhook transport can check and pin the address it connects to. */
export interface DnsResolver {
  /** Every IPv4 and IPv6 address of the host (an IP literal resolves to itself); throws when none. */
  resolve(host: string): Promise<string[]>;
}
