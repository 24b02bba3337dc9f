import { hash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { SecretHasher } from '../../core/ports/secret-hasher.port.js';

/** scrypt cost parameters. N must be a power of two. */
export interface ScryptCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** Production cost: tens of milliseconds (about 50 ms measured) and 16 MiB per hash. */
export const DEFAULT_SCRYPT_COST: ScryptCost = { N: 16_384, r: 8, p: 1 };
/** A cheap cost for tests only (a few milliseconds per hash). */
export const TEST_SCRYPT_COST: ScryptCost = { N: 1_024, r: 8, p: 1 };

const SALT_BYTES = 16;
const HASH_BYTES = 32;
// Bounds for parameters read back from a stored hash, so a corrupted or hostile value cannot exhaust memory.
const MAX_N = 1 << 20;
const MAX_R = 32;
const MAX_P = 16;

function scryptAsync(password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, length, options, (error, key) => (error === null ? resolve(key) : reject(error)));
  });
}

function optionsFor(cost: ScryptCost): ScryptOptions {
  return { N: cost.N, r: cost.r, p: cost.p, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
}

function isValidCost(cost: ScryptCost): boolean {
  const { N, r, p } = cost;
  return Number.isSafeInteger(N) && N > 1 && N <= MAX_N && (N & (N - 1)) === 0 &&
    Number.isSafeInteger(r) && r >= 1 && r <= MAX_R && Number.isSafeInteger(p) && p >= 1 && p <= MAX_P;
}

/**
 * SHA-256 hex for bearer tokens (high-entropy, so a fast hash is enough and doubles as the lookup key);
 * scrypt with a random salt for passwords, stored as `scrypt$N$r$p$salt$hash` (salt and hash base64).
 */
export class NodeSecretHasher implements SecretHasher {
  private readonly cost: ScryptCost;

  constructor(options: { readonly cost?: ScryptCost } = {}) {
    this.cost = options.cost ?? DEFAULT_SCRYPT_COST;
    if (!isValidCost(this.cost)) throw new Error('NodeSecretHasher: invalid scrypt cost (N a power of two, bounded r, p)');
  }

  hashToken(token: string): string {
    // One-shot hash: every authenticated request hashes its bearer token, and createHash's object costs ~3x more.
    return hash('sha256', token, 'hex');
  }

  async hashPassword(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const hash = await scryptAsync(password, salt, HASH_BYTES, optionsFor(this.cost));
    const { N, r, p } = this.cost;
    return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
  }

  async verifyPassword(password: string, stored: string): Promise<boolean> {
    const parts = stored.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
    const [N, r, p] = parts.slice(1, 4).map((part) => (/^\d{1,8}$/.test(part) ? Number(part) : Number.NaN));
    const cost = { N: N!, r: r!, p: p! };
    const salt = Buffer.from(parts[4]!, 'base64');
    const expected = Buffer.from(parts[5]!, 'base64');
    if (!isValidCost(cost) || salt.length === 0 || expected.length < 16 || expected.length > 64) return false;
    try {
      const actual = await scryptAsync(password, salt, expected.length, optionsFor(cost));
      return timingSafeEqual(actual, expected);
    } catch {
      return false;
    }
  }
}
