import { MAINNET_USDT_CONTRACT } from '../../core/domain/model/asset.js';
import { AesGcmKeyCipher } from '../../adapters/node/index.js';

/** Validated configuration of a Custody Hub process (API host, later the worker). */
export interface HostConfig {
  /** `dev` is the embedded `npm start` mode: missing secrets are generated (with a printed warning). */
  readonly mode: 'dev' | 'production';
  readonly store: 'memory' | 'mongodb';
  readonly mongodbUrl: string | null;
  readonly locks: 'memory' | 'redis';
  readonly redisUrl: string | null;
  readonly chain: 'devnet' | 'tronweb';
  readonly tronFullHost: string | null;
  readonly tronApiKey: string | null;
  readonly usdtContract: string;
  /** KEY_ENCRYPTION_KEY as given (base64, or `id:base64,…`); null only in dev mode (an ephemeral key is made). */
  readonly keyEncryptionKey: string | null;
  /** null only in dev mode (a random one is generated and printed). */
  readonly adminToken: string | null;
  readonly port: number;
  /** Test/dev allowance for loopback webhook receivers (never on in a real deployment). */
  readonly webhookAllowLocal: boolean;
}

/** A configuration problem; the message names the variable and never echoes a secret value. */
export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function text(env: Env, name: string): string | null {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? null : value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = text(env, name) ?? fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${value}")`);
  return value as T;
}

function url(env: Env, name: string, protocols: readonly string[]): string | null {
  const value = text(env, name);
  if (value === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(name, `must use ${protocols.join(' or ')}`);
  return value;
}

function flag(env: Env, name: string): boolean {
  const value = text(env, name);
  if (value === null) return false;
  if (['1', 'true', 'yes'].includes(value.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(value.toLowerCase())) return false;
  throw new ConfigError(name, 'must be true or false');
}

function port(env: Env, name: string, fallback: number): number {
  const value = text(env, name);
  if (value === null) return fallback;
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n > 65_535) throw new ConfigError(name, 'must be a TCP port (0-65535)');
  return n;
}

/** Bearer prefixes of the other token kinds: an admin token with one of them could never be recognised as admin. */
const RESERVED_PREFIXES = ['st_', 'dk_', 'ct_'];

function adminToken(env: Env, mode: HostConfig['mode']): string | null {
  const value = text(env, 'ADMIN_TOKEN');
  if (value === null) {
    if (mode === 'dev') return null;
    throw new ConfigError('ADMIN_TOKEN', 'is required (at least 32 characters)');
  }
  if (value.length < 32) throw new ConfigError('ADMIN_TOKEN', 'must be at least 32 characters');
  if (/\s/.test(value)) throw new ConfigError('ADMIN_TOKEN', 'must not contain whitespace');
  if (RESERVED_PREFIXES.some((p) => value.startsWith(p))) throw new ConfigError('ADMIN_TOKEN', `must not start with ${RESERVED_PREFIXES.join(', ')}`);
  return value;
}

/**
 * Reads and validates the environment. Every problem is a ConfigError naming the variable, raised before anything
 * starts. In production mode every secret is required; dev mode lets KEY_ENCRYPTION_KEY and ADMIN_TOKEN be generated.
 */
export function loadConfig(env: Env, options: { mode: HostConfig['mode'] }): HostConfig {
  const mode = options.mode;
  const store = oneOf(env, 'STORE', ['memory', 'mongodb'], 'memory');
  const mongodbUrl = url(env, 'MONGODB_URL', ['mongodb:', 'mongodb+srv:']);
  if (store === 'mongodb' && mongodbUrl === null) throw new ConfigError('MONGODB_URL', 'is required when STORE=mongodb');
  const locks = oneOf(env, 'LOCKS', ['memory', 'redis'], 'memory');
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  if (locks === 'redis' && redisUrl === null) throw new ConfigError('REDIS_URL', 'is required when LOCKS=redis');
  const chain = oneOf(env, 'CHAIN', ['devnet', 'tronweb'], 'devnet');
  const tronFullHost = url(env, 'TRON_FULL_HOST', ['http:', 'https:']);
  if (chain === 'tronweb' && tronFullHost === null) throw new ConfigError('TRON_FULL_HOST', 'is required when CHAIN=tronweb');
  const usdtContract = text(env, 'USDT_CONTRACT') ?? MAINNET_USDT_CONTRACT;
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(usdtContract)) throw new ConfigError('USDT_CONTRACT', 'must be a base58 TRON address');
  const keyEncryptionKey = text(env, 'KEY_ENCRYPTION_KEY');
  if (keyEncryptionKey === null && mode !== 'dev') {
    throw new ConfigError('KEY_ENCRYPTION_KEY', 'is required (32 bytes, base64; or "id:base64,…" for rotation)');
  }
  if (keyEncryptionKey !== null) {
    try {
      AesGcmKeyCipher.fromConfig(keyEncryptionKey, 'KEY_ENCRYPTION_KEY');
    } catch (error) {
      // The adapter's message names the variable and the entry, never the key bytes.
      throw new ConfigError('KEY_ENCRYPTION_KEY', `is invalid: ${(error as Error).message}`);
    }
  }
  const webhookAllowLocal = flag(env, 'WEBHOOK_ALLOW_LOCAL');
  return {
    mode, store, mongodbUrl, locks, redisUrl, chain, tronFullHost, tronApiKey: text(env, 'TRON_API_KEY'), usdtContract,
    keyEncryptionKey, adminToken: adminToken(env, mode), port: port(env, 'PORT', 3000), webhookAllowLocal,
  };
}
