import { describe, expect, it } from 'vitest';
import type { TotpGenerator } from '../core/ports/totp-generator.port.js';

/** The RFC 6238 appendix B secret for SHA1: the ASCII digits "1234567890" twice. */
const RFC_SECRET = new TextEncoder().encode('12345678901234567890');

/**
 * The TotpGenerator contract (core/ports/totp-generator.port.ts): the RFC 6238 appendix B SHA1 vectors (their last six
 * digits, as 6-digit apps show them) and the key URI an authenticator app reads.
 */
export function describeTotpGeneratorContract(name: string, makeSubject: () => TotpGenerator): void {
  describe(`TotpGenerator contract: ${name}`, () => {
    it('gives the RFC 6238 appendix B codes (SHA1, 30 s steps), zero-padded to six digits', () => {
      const totp = makeSubject();
      // [T in seconds, the RFC's 8-digit TOTP]: the step is floor(T / 30).
      const vectors: Array<[number, string]> = [
        [59, '94287082'], [1111111109, '07081804'], [1111111111, '14050471'],
        [1234567890, '89005924'], [2000000000, '69279037'], [20000000000, '65353130'],
      ];
      for (const [seconds, eight] of vectors) expect(totp.codeAt(RFC_SECRET, Math.floor(seconds / 30)), String(seconds)).toBe(eight.slice(2));
    });

    it('the key URI carries the base32 secret, the issuer, SHA1, 6 digits and a 30 s period', () => {
      const uri = new URL(makeSubject().keyUri(RFC_SECRET, 'dev@merchant.example', 'Custody Hub'));
      expect(uri.protocol).toBe('otpauth:');
      expect(uri.host).toBe('totp');
      expect(decodeURIComponent(uri.pathname)).toBe('/Custody Hub:dev@merchant.example');
      expect(uri.searchParams.get('secret')).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
      expect(uri.searchParams.get('issuer')).toBe('Custody Hub');
      expect(uri.searchParams.get('algorithm')).toBe('SHA1');
      expect(uri.searchParams.get('digits')).toBe('6');
      expect(uri.searchParams.get('period')).toBe('30');
    });

    it('another secret gives other codes; a secret bigger than its view is read only within the view', () => {
      const totp = makeSubject();
      const other = new Uint8Array(20).fill(7);
      expect(totp.codeAt(other, 1)).not.toBe(totp.codeAt(RFC_SECRET, 1));
      const pool = new Uint8Array(64).fill(9);
      pool.set(RFC_SECRET, 10);
      expect(totp.codeAt(pool.subarray(10, 30), 1)).toBe('287082');
    });
  });
}
