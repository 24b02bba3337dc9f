import { Buffer } from 'node:buffer';
import { generateKeyPairSync, sign } from 'node:crypto';

/**
 * A self-signed X.509 v3 certificate (EC P-256, ECDSA-SHA256) made with node:crypto and a minimal DER encoder, so
 * TLS tests need neither openssl nor committed key material. For tests and local development only.
 */
export interface TestCertificate {
  /** PEM private key (PKCS#8) and certificate; pass `cert` as the trusted `ca` of the client. */
  readonly key: string;
  readonly cert: string;
}

const der = (tag: number, content: Buffer): Buffer => {
  const n = content.length;
  const length = n < 0x80 ? Buffer.from([n]) : (() => {
    const bytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
    return Buffer.from([0x80 | bytes.length, ...bytes]);
  })();
  return Buffer.concat([Buffer.from([tag]), length, content]);
};
const seq = (...items: Buffer[]): Buffer => der(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => der(0x31, Buffer.concat(items));
const integer = (value: Buffer): Buffer => der(0x02, (value[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);
const utf8 = (text: string): Buffer => der(0x0c, Buffer.from(text, 'utf8'));
const octets = (content: Buffer): Buffer => der(0x04, content);
const bits = (content: Buffer): Buffer => der(0x03, Buffer.concat([Buffer.from([0]), content]));
const explicit = (n: number, content: Buffer): Buffer => der(0xa0 | n, content);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const out = [40 * a + b];
  for (const part of rest) {
    const chunk = [part & 0x7f];
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return der(0x06, Buffer.from(out));
}

/** UTCTime until 2049, GeneralizedTime after (RFC 5280 §4.1.2.5). */
function time(ms: number): Buffer {
  const iso = new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return Number(iso.slice(0, 4)) < 2050 ? der(0x17, Buffer.from(`${iso.slice(2)}Z`)) : der(0x18, Buffer.from(`${iso}Z`));
}

const ECDSA_SHA256 = '1.2.840.10045.4.3.2';

/** A certificate for the given DNS names (the first is also the common name), valid from `now` - 1 h for `days`. */
export function makeTestCertificate(dnsNames: readonly string[], now: number, days = 1): TestCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = seq(set(seq(oid('2.5.4.3'), utf8(dnsNames[0] ?? 'localhost'))));
  const san = seq(...dnsNames.map((dns) => der(0x82, Buffer.from(dns, 'ascii'))));
  const extensions = explicit(3, seq(seq(oid('2.5.29.17'), octets(san))));
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))),
    integer(Buffer.from([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08])),
    seq(oid(ECDSA_SHA256)),
    name,
    seq(time(now - 3_600_000), time(now + days * 86_400_000)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions,
  );
  const certificate = seq(tbs, seq(oid(ECDSA_SHA256)), bits(sign('sha256', tbs, privateKey)));
  const body = certificate.toString('base64').match(/.{1,64}/g)!.join('\n');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    cert: `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`,
  };
}
