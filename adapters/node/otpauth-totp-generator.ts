import { HOTP, Secret, TOTP } from 'otpauth';
import type { TotpGenerator } from '../../core/ports/totp-generator.port.js';

/** Copies the bytes into a fresh ArrayBuffer: otpauth's Secret keeps a reference, and a Uint8Array may view a larger pool. */
function secretOf(bytes: Uint8Array): Secret {
  return new Secret({ buffer: Uint8Array.from(bytes).buffer });
}

/** TotpGenerator on the `otpauth` library (RFC 4226/6238): SHA1, 6 digits, 30-second period. */
export class OtpauthTotpGenerator implements TotpGenerator {
  codeAt(secret: Uint8Array, step: number): string {
    return HOTP.generate({ secret: secretOf(secret), algorithm: 'SHA1', digits: 6, counter: step });
  }

  keyUri(secret: Uint8Array, account: string, issuer: string): string {
    return new TOTP({ issuer, label: account, secret: secretOf(secret), algorithm: 'SHA1', digits: 6, period: 30 }).toString();
  }
}
