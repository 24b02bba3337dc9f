import { runs } from '../../contracts-tests/support/depth.js';
import { BlockList, isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientAddress, MAX_TRUSTED_PROXY_HOPS, normalizeAddress, throttleNetwork } from './client-address.js';

/** Addresses as a proxy writes them, each with the one spelling the throttles must key it by. */
interface Written { readonly text: string; readonly key: string }

const v4 = fc.ipV4().map((a): Written => ({ text: a, key: a }));
/**
 * IPv6 addresses, bare or bracketed, in either case. Their key is the lower-case spelling's normal form (its
 * canonical form is checked on its own in (e) and by the last property); an IPv4 key is the address itself.
 */
const v6 = fc.tuple(fc.ipV6(), fc.boolean(), fc.boolean())
  .map(([a, bracket, upper]): Written => {
    const key = normalizeAddress(a.toLowerCase())!;
    const spelled = upper ? a.toUpperCase() : a;
    return { text: bracket ? `[${spelled}]` : spelled, key };
  });
/** An IPv4 client as a dual-stack socket reports it, and as a proxy may write it. */
const mapped = fc.tuple(fc.ipV4(), fc.constantFrom('::ffff:', '::FFFF:', '0:0:0:0:0:ffff:'), fc.boolean())
  .map(([a, prefix, bracket]): Written => ({ text: bracket ? `[${prefix}${a}]` : `${prefix}${a}`, key: a }));
/** Any of those with the client's port, as Azure Application Gateway writes its entries (IPv6 in brackets). */
const ported = fc.tuple(fc.oneof(v4, v6, mapped), fc.integer({ min: 0, max: 65_535 }))
  .map(([a, port]): Written => ({ text: `${isIP(a.text) === 6 ? `[${a.text}]` : a.text}:${port}`, key: a.key }));
const address = fc.oneof(v4, v6, mapped, ported);

/** Entries that are not IP addresses: what a client, a misconfigured proxy or a test of patience may write. */
const garbage = fc.oneof(
  fc.constantFrom('', ' ', 'unknown', '_hidden', 'localhost', '1.2.3.4:65536', '1.2.3.4:', '[::1]:', '[::1]:http', '[1.2.3.4]', '[1.2.3.4]:80', 'localhost:80', '256.1.1.1', '1.2.3', '::ffff:1.2.3',
    '01.2.3.4', 'for=1.2.3.4', '"1.2.3.4"', '2001:db8::1::2'),
  fc.string({ maxLength: 12 }).filter((s) => !s.includes(',')),
).filter((s) => normalizeAddress(s.trim()) === null);

/** Anything a client may put in X-Forwarded-For itself: addresses, garbage, empty entries, commas. */
const forged = fc.oneof(
  fc.constant(null),
  fc.string({ maxLength: 40 }),
  fc.array(fc.oneof(address.map((a) => a.text), garbage), { maxLength: 6 }).map((entries) => entries.join(',')),
  fc.array(fc.oneof(address.map((a) => ` ${a.text} `), garbage), { minLength: 1, maxLength: 6 }).map((entries) => entries.join(', ')),
);

const hops = fc.integer({ min: 1, max: MAX_TRUSTED_PROXY_HOPS });

/** What a proxy sends on: the header it received with its peer appended (or its peer alone when there was none). */
function append(header: string | null, peer: string): string {
  return header === null ? peer : `${header}, ${peer}`;
}

describe('clientAddress: which X-Forwarded-For entry is the client', () => {
  it('(a) with 0 hops the client is the socket peer, whatever the header says', () => {
    fc.assert(fc.property(address, forged, (peer, header) => {
      expect(clientAddress(peer.text, header, 0)).toBe(peer.key);
    }), { numRuns: runs(500) });
    expect(clientAddress(undefined, '1.2.3.4', 0)).toBeUndefined();
  });

  it('(b) behind N proxies that each append their peer, no prefix a client forges changes the answer: the real client', () => {
    fc.assert(fc.property(address, fc.array(address, { minLength: MAX_TRUSTED_PROXY_HOPS, maxLength: MAX_TRUSTED_PROXY_HOPS }), hops, forged,
      (client, proxies, n, sent) => {
        // The client talks to proxy 1, proxy k to proxy k+1, proxy n to the API: each appends whom it heard from.
        let header = sent;
        let from = client.text;
        for (const proxy of proxies.slice(0, n)) {
          header = append(header, from);
          from = proxy.text;
        }
        expect(clientAddress(from, header, n)).toBe(client.key);
      }), { numRuns: runs(1_000) });
  });

  it('(c) a chain shorter than the hops answers its furthest address (the leftmost entry, else the peer)', () => {
    fc.assert(fc.property(address, fc.array(address, { maxLength: MAX_TRUSTED_PROXY_HOPS - 1 }), (peer, chain) => {
      const header = chain.length === 0 ? null : chain.map((a) => a.text).join(', ');
      const furthest = chain[0] ?? peer;
      for (let n = chain.length; n <= MAX_TRUSTED_PROXY_HOPS; n++) expect(clientAddress(peer.text, header, n)).toBe(furthest.key);
    }), { numRuns: runs(300) });
  });

  it('(d) an entry that is not an address ends the chain: what lies left of it is never reached', () => {
    fc.assert(fc.property(address, forged, garbage, fc.array(address, { maxLength: MAX_TRUSTED_PROXY_HOPS - 1 }), fc.array(address, { maxLength: 4 }),
      (peer, anything, bad, valid, left) => {
        // [anything left of it], [addresses], bad, [valid addresses]: the chain stops at bad whatever the hops.
        const header = [anything, ...left.map((a) => a.text), bad, ...valid.map((a) => a.text)].filter((e) => e !== null).join(',');
        const furthest = valid[0] ?? peer;
        for (let n = valid.length; n <= MAX_TRUSTED_PROXY_HOPS; n++) expect(clientAddress(peer.text, header, n)).toBe(furthest.key);
        // Within the valid part the usual rule holds.
        for (let n = 1; n < valid.length; n++) expect(clientAddress(peer.text, header, n)).toBe(valid[valid.length - n]!.key);
      }), { numRuns: runs(500) });
  });

  it('(e) an IPv4 client keys one bucket however it is spelled: mapped IPv6, bracketed, as peer or entry', () => {
    fc.assert(fc.property(fc.ipV4(), fc.constantFrom('::ffff:', '::FFFF:', '0:0:0:0:0:ffff:', '0000:0000:0000:0000:0000:FFFF:'), fc.boolean(), hops,
      (a, prefix, bracket, n) => {
        const spelled = bracket ? `[${prefix}${a}]` : `${prefix}${a}`;
        expect(clientAddress(`${prefix}${a}`, null, 0)).toBe(a);
        expect(clientAddress('10.0.0.1', spelled, 1)).toBe(a);
        expect(clientAddress('10.0.0.1', [spelled, ...Array.from({ length: n - 1 }, () => '10.0.0.2')].join(', '), n)).toBe(a);
      }), { numRuns: runs(300) });
    // The hex spelling a canonicaliser writes (::ffff:102:304) is the same client too.
    expect(clientAddress('::ffff:102:304', null, 0)).toBe('1.2.3.4');
    expect(clientAddress('10.0.0.1', '[::FFFF:C0A8:0001]', 1)).toBe('192.168.0.1');
  });

  it('(f) an entry with a port keys as its address alone (Azure Application Gateway appends `IP:port`)', () => {
    fc.assert(fc.property(fc.oneof(v4, v6, mapped), fc.integer({ min: 0, max: 65_535 }), hops, (a, port, n) => {
      const withPort = `${isIP(a.text) === 6 ? `[${a.text}]` : a.text}:${port}`;
      const chain = [withPort, ...Array.from({ length: n - 1 }, (_, i) => `10.0.0.${i + 2}:${port}`)].join(', ');
      expect(clientAddress('10.0.0.1', chain, n)).toBe(a.key);
      expect(clientAddress('10.0.0.1', `6.6.6.6:1, ${chain}`, n)).toBe(a.key);
    }), { numRuns: runs(300) });
    expect(normalizeAddress('203.0.113.7:51234')).toBe('203.0.113.7');
    expect(normalizeAddress('[2001:DB8::1]:443')).toBe('2001:db8::1');
    expect(normalizeAddress('[::ffff:1.2.3.4]:8080')).toBe('1.2.3.4');
    expect(normalizeAddress('1.2.3.4:65536')).toBeNull();
  });

  it('every answer is an IP address in its one spelling, or the peer as given when the socket reports no IP', () => {
    fc.assert(fc.property(fc.oneof(address.map((a) => a.text), garbage), forged, fc.integer({ min: 0, max: MAX_TRUSTED_PROXY_HOPS }), (peer, header, n) => {
      const result = clientAddress(peer, header, n);
      if (normalizeAddress(peer) === null) {
        expect(result).toBe(peer);
        return;
      }
      expect(isIP(result!)).not.toBe(0);
      expect(normalizeAddress(result!)).toBe(result);
    }), { numRuns: runs(500) });
  });
});

describe('throttleNetwork: what the per-address throttles count', () => {
  /** node's own subnet matcher, an oracle independent of the function under test. */
  const inSubnet = (network: string, address: string): boolean => {
    const list = new BlockList();
    list.addSubnet(network.replace('::/64', '::'), 64, 'ipv6');
    return list.check(address, 'ipv6');
  };

  it('an IPv6 client counts by its /64: two addresses share a bucket exactly when their first 64 bits agree', () => {
    // Addresses that share a /64 often: a random prefix with random interface ids, or two random addresses.
    const prefix = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 4, maxLength: 4 });
    const iid = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 4, maxLength: 4 });
    const spell = (groups: number[]): string => normalizeAddress(groups.map((g) => g.toString(16)).join(':'))!;
    const pair = fc.oneof(
      fc.tuple(prefix, iid, iid).map(([p, a, b]) => [spell([...p, ...a]), spell([...p, ...b])] as const),
      fc.tuple(prefix, prefix, iid).map(([p, q, a]) => [spell([...p, ...a]), spell([...q, ...a])] as const),
      fc.tuple(fc.ipV6(), fc.ipV6()).map(([a, b]) => [normalizeAddress(a.toLowerCase())!, normalizeAddress(b.toLowerCase())!] as const),
    ).filter(([a, b]) => isIP(a) === 6 && isIP(b) === 6);
    fc.assert(fc.property(pair, ([a, b]) => {
      const network = throttleNetwork(a);
      expect(network).toMatch(/^[0-9a-f]{1,4}(:[0-9a-f]{1,4}){3}::\/64$/);
      expect(inSubnet(network, a)).toBe(true);
      expect(throttleNetwork(b) === network).toBe(inSubnet(network, b));
    }), { numRuns: runs(1_000) });
  });

  it('an IPv4 client counts by its own address; anything else is its own bucket', () => {
    fc.assert(fc.property(fc.ipV4(), (a) => { expect(throttleNetwork(a)).toBe(a); }));
    expect(throttleNetwork('::1')).toBe('0:0:0:0::/64');
    expect(throttleNetwork('2001:db8:0:1:dead:beef::1')).toBe('2001:db8:0:1::/64');
    expect(throttleNetwork('64:ff9b::1.2.3.4')).toBe('64:ff9b:0:0::/64');
    expect(throttleNetwork('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(throttleNetwork('unix-socket')).toBe('unix-socket');
  });
});

