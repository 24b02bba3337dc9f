import { runs } from '../../contracts-tests/support/depth.js';
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
// ipaddr.js is an independent oracle here (tests only): the module under test uses node:net BlockList.
import ipaddr from 'ipaddr.js';
import { DomainError } from './errors.js';
import { checkWebhookHost, checkWebhookUrlSyntax, isBlockedIp, isLoopbackIp } from './webhook-url.js';

/** Ranges that must be refused, written as CIDR independently of the module. */
const BLOCKED_V4 = [
  '0.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16',
  '192.0.0.0/24', '192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '192.88.99.0/24', '198.18.0.0/15',
  '224.0.0.0/4', '240.0.0.0/4', '255.255.255.255/32',
];
const BLOCKED_V6 = [
  '::/128', '::1/128', 'fe80::/10', 'fc00::/7', 'fec0::/10', 'ff00::/8', '100::/64', '2001::/23', '2001::/32',
  '2001:2::/48', '2001:db8::/32', '3fff::/20', '64:ff9b:1::/48',
];

function bitsFrom(network: number[], prefix: number, random: number[]): number[] {
  return network.map((byte, i) => {
    const fixed = Math.max(0, Math.min(8, prefix - i * 8));
    const mask = (0xff << (8 - fixed)) & 0xff;
    return (byte & mask) | (random[i]! & ~mask & 0xff);
  });
}

const inV4 = (cidr: string): fc.Arbitrary<ipaddr.IPv4> => fc.array(fc.nat(255), { minLength: 4, maxLength: 4 }).map((random) => {
  const [net, prefix] = ipaddr.IPv4.parseCIDR(cidr);
  const addr = new ipaddr.IPv4(bitsFrom(net.octets, prefix, random));
  if (!addr.match(net, prefix)) throw new Error('generator left the range');
  return addr;
});

const inV6 = (cidr: string): fc.Arbitrary<ipaddr.IPv6> => fc.array(fc.nat(255), { minLength: 16, maxLength: 16 }).map((random) => {
  const [net, prefix] = ipaddr.IPv6.parseCIDR(cidr);
  const bytes = bitsFrom(net.toByteArray(), prefix, random);
  const addr = ipaddr.fromByteArray(bytes) as ipaddr.IPv6;
  if (!addr.match(net, prefix)) throw new Error('generator left the range');
  return addr;
});

const hex16 = (n: number): string => n.toString(16);
const fixed = (parts: number[]): string => parts.map((p) => p.toString(16).padStart(4, '0')).join(':');

/** Textual forms of an IPv6 address: compressed, expanded, zero-padded, uppercase, bracketed. */
function v6Forms(addr: ipaddr.IPv6): string[] {
  const forms = [addr.toString(), addr.toNormalizedString(), fixed(addr.parts), addr.toRFC5952String()];
  return [...forms, ...forms.map((f) => f.toUpperCase()), `[${addr.toString()}]`];
}

/** Every IPv6 form that embeds the IPv4 address (mapped, compatible, IPv4-translated, NAT64, 6to4). */
function embeddedForms(v4: ipaddr.IPv4, suffix: number): string[] {
  const [a, b, c, d] = v4.octets as [number, number, number, number];
  const hi = hex16((a << 8) | b);
  const lo = hex16((c << 8) | d);
  const dotted = v4.toString();
  const mapped = v4.toIPv4MappedAddress();
  return [
    `::ffff:${dotted}`, `::FFFF:${dotted}`, `::ffff:${hi}:${lo}`, `0:0:0:0:0:ffff:${dotted}`, ...v6Forms(mapped),
    `::${dotted}`, `::${hi}:${lo}`, // IPv4-compatible
    `::ffff:0:${dotted}`, `0:0:0:0:ffff:0:${hi}:${lo}`, // IPv4-translated (RFC 6145)
    `64:ff9b::${dotted}`, `64:FF9B::${hi.toUpperCase()}:${lo}`, `0064:ff9b:0000:0000:0000:0000:${hi}:${lo}`, // NAT64
    `2002:${hi}:${lo}::${hex16(suffix)}`, `2002:${hi}:${lo}:${hex16(suffix)}::1`, // 6to4
  ];
}

describe('isBlockedIp', () => {
  it.each(BLOCKED_V4)('refuses every address of %s in every textual form', (cidr) => {
    fc.assert(fc.property(inV4(cidr), fc.nat(0xffff), (v4, suffix) => {
      expect(isBlockedIp(v4.toString())).toBe(true);
      for (const form of embeddedForms(v4, suffix)) expect([form, isBlockedIp(form)]).toEqual([form, true]);
    }), { numRuns: runs(100) });
  });

  it.each(BLOCKED_V6)('refuses every address of %s in every textual form', (cidr) => {
    fc.assert(fc.property(inV6(cidr), (v6) => {
      for (const form of v6Forms(v6)) expect([form, isBlockedIp(form)]).toEqual([form, true]);
    }), { numRuns: runs(100) });
  });

  it('agrees with ipaddr.js on every IPv4 address: only unicast (and the anycast AS112/AMT) is allowed', () => {
    const v4 = fc.array(fc.nat(255), { minLength: 4, maxLength: 4 }).map((o) => new ipaddr.IPv4(o));
    fc.assert(fc.property(v4, fc.nat(0xffff), (addr, suffix) => {
      const publicAddr = ['unicast', 'as112', 'amt'].includes(addr.range());
      expect(isBlockedIp(addr.toString())).toBe(!publicAddr);
      for (const form of embeddedForms(addr, suffix)) expect([form, isBlockedIp(form)]).toEqual([form, !publicAddr]);
    }), { numRuns: runs(1000) });
  });

  it('allows public IPv6 (global unicast per ipaddr.js) in every textual form', () => {
    fc.assert(fc.property(inV6('2000::/3').filter((a) => a.range() === 'unicast'), (addr) => {
      for (const form of v6Forms(addr)) expect([form, isBlockedIp(form)]).toEqual([form, false]);
    }), { numRuns: runs(300) });
  });

  it('refuses IPv6 outside global unicast that is no embedded public IPv4 (fail closed)', () => {
    fc.assert(fc.property(inV6('4000::/2'), (addr) => {
      expect(isBlockedIp(addr.toString())).toBe(true);
    }));
  });

  it.each([
    ['8.8.8.8', false], ['1.1.1.1', false], ['2606:4700:4700::1111', false], ['::ffff:8.8.8.8', false],
    ['127.0.0.1', true], ['::1', true], ['[::1]', true], ['169.254.169.254', true], ['::ffff:169.254.169.254', true],
    ['100.100.100.200', true], ['0.0.0.0', true], ['::', true], ['255.255.255.255', true], ['fd00:ec2::254', true],
    ['fe80::1%eth0', true], ['localhost', true], ['', true], ['127.1', true], ['0x7f000001', true], ['not an ip', true],
  ])('%s → blocked %s', (ip, blocked) => {
    expect(isBlockedIp(ip)).toBe(blocked);
  });
});

describe('isLoopbackIp', () => {
  it('is true exactly for 127.0.0.0/8 and ::1, in any form', () => {
    fc.assert(fc.property(inV4('127.0.0.0/8'), (v4) => {
      expect(isLoopbackIp(v4.toString())).toBe(true);
      expect(isLoopbackIp(`::ffff:${v4.toString()}`)).toBe(true);
    }));
    expect(isLoopbackIp('::1')).toBe(true);
    expect(isLoopbackIp('0:0:0:0:0:0:0:1')).toBe(true);
    for (const ip of ['10.0.0.1', '128.0.0.1', '::2', 'localhost']) expect(isLoopbackIp(ip)).toBe(false);
  });
});

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).code;
  }
}

describe('checkWebhookUrlSyntax (spec §6 rule 1)', () => {
  const strict = { allowLocal: false };
  const local = { allowLocal: true };

  it.each([
    ['https://hooks.example.com/receive'], ['https://hooks.example.com:443/receive'], ['https://HOOKS.example.com/a?b=c'],
  ])('accepts %s', (raw) => {
    expect(checkWebhookUrlSyntax(raw, strict).protocol).toBe('https:');
  });

  it('normalises the host so the address checks see canonical literals', () => {
    expect(checkWebhookUrlSyntax('https://0x7f.1/', strict).hostname).toBe('127.0.0.1');
    expect(checkWebhookUrlSyntax('https://[0:0:0:0:0:ffff:7f00:1]/', strict).hostname).toBe('[::ffff:7f00:1]');
    expect(checkWebhookUrlSyntax('https://hooks.example.com:443/x', strict).href).toBe('https://hooks.example.com/x');
  });

  it.each([
    ['http://hooks.example.com/'], ['https://hooks.example.com:8443/'], ['https://hooks.example.com:80/'],
    ['ftp://hooks.example.com/'], ['https://user:pass@hooks.example.com/'], ['https://user@hooks.example.com/'],
    ['hooks.example.com/x'], [''], ['javascript:alert(1)'], ['http://127.0.0.1:8080/'], ['https://a.example/' + 'x'.repeat(2100)],
  ])('refuses %j with VALIDATION-ERROR on webhook_url', (raw) => {
    expect(codeOf(() => checkWebhookUrlSyntax(raw, strict))).toBe('VALIDATION-ERROR');
    try { checkWebhookUrlSyntax(raw, strict); } catch (e) { expect((e as DomainError).field).toBe('webhook_url'); }
  });

  it('with allowLocal, also accepts http on any port to loopback only', () => {
    for (const raw of ['http://127.0.0.1:8080/hook', 'http://localhost:3000/', 'http://[::1]:9000/', 'http://127.8.9.10/']) {
      expect(checkWebhookUrlSyntax(raw, local).protocol).toBe('http:');
    }
    for (const raw of ['http://10.0.0.1:8080/', 'http://example.com/', 'https://example.com:8443/', 'http://user:p@127.0.0.1/']) {
      expect(codeOf(() => checkWebhookUrlSyntax(raw, local))).toBe('VALIDATION-ERROR');
    }
  });

  it('any non-default https port is refused', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 65535 }).filter((p) => p !== 443), (port) => {
      expect(codeOf(() => checkWebhookUrlSyntax(`https://hooks.example.com:${port}/`, strict))).toBe('VALIDATION-ERROR');
    }));
  });
});

describe('checkWebhookHost (spec §6 rule 2)', () => {
  const strict = { allowLocal: false };
  const url = (raw: string): URL => new URL(raw);

  it('passes a public name whose every address is public', () => {
    expect(codeOf(() => checkWebhookHost(url('https://hooks.example.com/'), ['93.184.216.34', '2606:2800:220:1::1'], strict))).toBeNull();
  });

  it('refuses when ANY resolved address is blocked', () => {
    fc.assert(fc.property(
      fc.array(fc.constantFrom('93.184.216.34', '8.8.4.4', '2606:4700::1'), { maxLength: 3 }),
      fc.constantFrom('10.1.2.3', '::ffff:127.0.0.1', 'fe80::1', '169.254.169.254', '64:ff9b::c0a8:101'),
      fc.nat(3),
      (good, bad, at) => {
        const resolved = [...good.slice(0, at), bad, ...good.slice(at)];
        expect(codeOf(() => checkWebhookHost(url('https://hooks.example.com/'), resolved, strict))).toBe('BIZ-WEBHOOK-URL-BLOCKED');
      },
    ));
  });

  it('refuses blocked literals, localhost names and names that resolved to nothing', () => {
    for (const raw of ['https://127.0.0.1/', 'https://[::1]/', 'https://[::ffff:a00:1]/', 'https://10.0.0.1/', 'https://localhost/', 'https://a.localhost/']) {
      expect(codeOf(() => checkWebhookHost(url(raw), [], strict))).toBe('BIZ-WEBHOOK-URL-BLOCKED');
    }
    expect(codeOf(() => checkWebhookHost(url('https://hooks.example.com/'), [], strict))).toBe('BIZ-WEBHOOK-URL-BLOCKED');
    expect(codeOf(() => checkWebhookHost(url('https://8.8.8.8/'), [], strict))).toBeNull();
  });

  it('with allowLocal, allows loopback and nothing else', () => {
    const local = { allowLocal: true };
    expect(codeOf(() => checkWebhookHost(url('http://localhost:3000/'), ['127.0.0.1', '::1'], local))).toBeNull();
    expect(codeOf(() => checkWebhookHost(url('http://127.0.0.1:3000/'), [], local))).toBeNull();
    expect(codeOf(() => checkWebhookHost(url('http://localhost:3000/'), ['127.0.0.1', '10.0.0.2'], local))).toBe('BIZ-WEBHOOK-URL-BLOCKED');
    expect(codeOf(() => checkWebhookHost(url('https://hooks.example.com/'), ['192.168.1.1'], local))).toBe('BIZ-WEBHOOK-URL-BLOCKED');
  });
});
