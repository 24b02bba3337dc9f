import { readFileSync } from 'node:fs';
import { MAINNET_USDT_CONTRACT } from '../../core/domain/model/asset.js';
import { DEFAULT_SUB_ADDRESS_PLAN, SUB_ADDRESS_PLANS, type SubAddressPlan } from '../../core/domain/wallet-rules.js';
import { AesGcmKeyCipher } from '../../adapters/node/index.js';
import { redactPostgresUrl } from '../../adapters/postgres/pg-connection.js';
import { DEVNET_ITRX_API_KEY, DEVNET_ITRX_API_SECRET } from '../../adapters/tron-devnet/rental-itrx.js';
import { DEVNET_TRONSAVE_API_KEY } from '../../adapters/tron-devnet/rental-tronsave.js';
import { MAX_TRUSTED_PROXY_HOPS } from '../api/client-address.js';

/** Validated configuration of a Custody Hub process (API host, later the worker). */
export interface HostConfig {
  /** `dev` is the embedded `npm start` mode: missing secrets are generated (with a printed warning). */
  readonly mode: 'dev' | 'production';
  /** STORE: `memory` (nothing survives the process), or a durable store: `postgres` or `mongodb`. */
  readonly store: 'memory' | 'mongodb' | 'postgres';
  readonly mongodbUrl: string | null;
  /**
   * DATABASE_URL: the PostgreSQL database of STORE=postgres (`postgres://` or `postgresql://`; TLS through `sslmode`
   * in the URL, as libpq reads it). Holds a password: never logged, and redacted in every message that names it.
   */
  readonly databaseUrl: string | null;
  /** DATABASE_POOL_SIZE: connections this process opens to PostgreSQL at most (1-200, default 10). */
  readonly databasePoolSize: number;
  readonly locks: 'memory' | 'redis';
  readonly redisUrl: string | null;
  readonly chain: 'devnet' | 'tronweb';
  /** Node URL; with CHAIN=devnet it defaults to DEFAULT_DEVNET_URL. */
  readonly tronFullHost: string;
  /**
   * TRON_SOLIDITY_HOST: where /walletsolidity/* is served (reference blocks, solidified reads); null = the full
   * host, as on TronGrid. A self-hosted java-tron serves it only on its own port (8091).
   */
  readonly tronSolidityHost: string | null;
  /**
   * TRON_FULL_HOSTS: the nodes the balance scanner reads, in order of preference, comma-separated, each `url` or
   * `url|solidity-url`; a failing or rate-limited node is skipped with backoff. The workflows (collections,
   * withdrawals, staking) use TRON_FULL_HOST first and the entries other than it as fallbacks. Default: TRON_FULL_HOST
   * with TRON_SOLIDITY_HOST.
   */
  readonly scanNodes: readonly { readonly fullHost: string; readonly solidityHost: string | null }[];
  /** TRON_NODE_DAILY_CALLS: calls each scanner node may take per UTC day (a provider's quota); null = no budget. */
  readonly scanNodeDailyCalls: number | null;
  readonly tronApiKey: string | null;
  /** TRON_PRO_TIER_KEY: a data-provider key with which resources list who delegated to whom (spec §2); never logged. */
  readonly tronProTierKey: string | null;
  /** TRON_PRO_TIER_HOST: where the pro-tier key is sent; null = the full host. */
  readonly tronProTierHost: string | null;
  readonly usdtContract: string;
  /** Database name (MONGODB_DB); null = the one in MONGODB_URL's path, else `custody_hub`. */
  readonly mongodbDb: string | null;
  /**
   * Where collection energy comes from when self-delegation is not enough (ENERGY_PROVIDER): `self` only, or the
   * `rental` providers of {@link rentalProviders} too.
   */
  readonly energyProvider: 'self' | 'rental';
  /** The rental providers in fallback order, with their endpoints and credentials (never logged); empty with `self`. */
  readonly rentalProviders: readonly RentalProviderConfig[];
  /** ENERGY_RENTAL_MAX_PRICE_SUN: the most one sweep may pay a rental provider; null = no cap. */
  readonly energyRentalMaxPriceSun: bigint | null;
  /** ENERGY_BURN_MAX_SUN: the most one sweep may burn for energy (with ENERGY_BURN); null = no cap. */
  readonly energyBurnMaxSun: bigint | null;
  /** Confirmations a collection step waits for before the next starts (CHAIN_CONFIRMATIONS). */
  readonly chainConfirmations: number;
  /**
   * CHAIN_BLOCK_MS (default 3,000, TRON's block interval; 0 turns it off): the workflows read the head and the state
   * that cannot change within a block at most once per this interval, shared by every workflow (issue #27).
   */
  readonly chainBlockMs: number;
  /** KEY_ENCRYPTION_KEY as given (base64, or `id:base64,…`); null only in dev mode (an ephemeral key is made). */
  readonly keyEncryptionKey: string | null;
  /** null only in dev mode (a random one is generated and printed). */
  readonly adminToken: string | null;
  readonly port: number;
  /**
   * TRUSTED_PROXY_HOPS: the reverse proxies in front of the API that each append the address they received a request
   * from to X-Forwarded-For (0-10, default 0). The per-client-address throttles count the address that many entries
   * from the right of the header; 0 ignores the header and counts the socket's peer. Always 0 in a worker.
   */
  readonly trustedProxyHops: number;
  /**
   * CONSOLE_IDLE_MIN: minutes a merchant console session lives without use before the server ends it (issue #38; default
   * 30, 1-1440). Never past the session's 24 h.
   */
  readonly consoleIdleMs: number;
  /** Test/dev allowance for loopback webhook receivers (never on in a real deployment). */
  readonly webhookAllowLocal: boolean;
  /**
   * ENERGY_BURN: when neither self-delegation nor rental can cover a collection's energy, pay it by burning TRX on the
   * sub-address (off by default: burning costs ~13 TRX per USDT transfer to a new holder).
   */
  readonly energyBurn: boolean;
  /**
   * WORKFLOW_STUCK_AFTER_S: a workflow step (a sent transaction the chain has not settled, a step that must finish and
   * keeps failing) running longer than this is logged as stuck, once per period (default 900 s).
   */
  readonly workflowStuckAfterMs: number;
  /**
   * WITHDRAWAL_ALLOWLIST_DELAY_H: hours before a new allow-list entry may be paid (issue #26; default 24, 0-8760).
   * 0 makes entries usable at once, which defeats the cooling-off: refused outside dev mode (issue #35 item 9).
   */
  readonly allowListDelayMs: number;
  /**
   * POLICY_CHANGE_DELAY_H: hours a loosening of the withdrawal policy waits before it takes effect (issue #35 item 3;
   * default 24, 0-8760). Under 1 is refused outside dev mode; 0 lets npm start try a change without waiting.
   */
  readonly policyChangeDelayMs: number;
  /**
   * WORKFLOW_LEASE_S: how long a worker's claim on a workflow lasts (default 60). A worker that dies holds its claims
   * this long before another worker takes them over; a stage running longer than this may be taken over while it
   * runs, which the version fence and the write-ahead record make safe but wasteful. 5–3600.
   */
  readonly workflowLeaseMs: number;
  /**
   * WORKFLOW_CONCURRENCY: collection stages one worker runs at once, each on its own leased task (default 4). Leases keep
   * one stage per task at a time, as between worker processes; more lanes overlap the node round trips of many sweeps.
   */
  readonly workflowConcurrency: number;
  /**
   * WITHDRAWAL_CONFIRMATIONS: 0 (default, spec §6) completes a withdrawal once a node accepts its broadcast; N waits
   * until it is N blocks deep, so withdrawal.completed means the money moved (a node can accept and then lose a
   * transaction).
   */
  readonly withdrawalConfirmations: number;
  /** Which process reads this configuration: each asks only for what it uses (the worker serves no admin API). */
  readonly role: ProcessRole;
  /** LOG_LEVEL: pino's level (default info). */
  readonly logLevel: LogLevel;
  /**
   * METRICS_PORT: the separate port of `/metrics` (and the worker's `/healthz`), never the public API port; null = no
   * metrics server (the default of the single-process `npm start`; api and worker default to 9464).
   */
  readonly metricsPort: number | null;
  /**
   * METRICS_HOST: where the metrics server listens (default 127.0.0.1: `/metrics` stays off every network until an
   * operator says otherwise; a container sets 0.0.0.0 for a scraper on its network).
   */
  readonly metricsHost: string;
  /**
   * DEFAULT_SUB_ADDRESS_PLAN: the `sub_address` plan `POST /subscriptions/activate` gives when no `plan_code` is sent
   * (default `starter`, DESIGN.md's; a self-hosted operator may set `unlimited`).
   */
  readonly defaultSubAddressPlan: SubAddressPlan;
  /** ALLOW_EPHEMERAL: production accepts memory stores (nothing survives a restart, processes share nothing). */
  readonly allowEphemeral: boolean;
  /**
   * Where verification codes go: SMTP_URL with MAIL_FROM (required by a production API), else the console mailer,
   * which prints codes and is for development only.
   */
  readonly mail: { readonly kind: 'smtp'; readonly url: string; readonly from: string } | { readonly kind: 'console' };
}

/** `api` (npm run api), `worker` (npm run worker), or `all` (one process running both: npm start, npm run serve, tests). */
export type ProcessRole = 'api' | 'worker' | 'all';

/** pino's levels, as LOG_LEVEL accepts them. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The metrics port of `npm run api` and `npm run worker` unless METRICS_PORT says otherwise (Prometheus' exporter range). */
export const DEFAULT_METRICS_PORT = 9464;

/** Where `/metrics` listens unless METRICS_HOST says otherwise: loopback, off every network. */
export const DEFAULT_METRICS_HOST = '127.0.0.1';

/** The plans DEFAULT_SUB_ADDRESS_PLAN accepts. */
const SUB_ADDRESS_PLAN_CODES = Object.keys(SUB_ADDRESS_PLANS) as SubAddressPlan[];

/** A rental provider as configured: TronSave (API key) or itrx (API key and HMAC secret). */
export type RentalProviderConfig =
  | { readonly kind: 'tronsave'; readonly url: string; readonly apiKey: string }
  | { readonly kind: 'itrx'; readonly url: string; readonly apiKey: string; readonly apiSecret: string };

/** The rental providers ENERGY_PROVIDER can name, in the default fallback order of `rental`. */
export const RENTAL_PROVIDERS = ['tronsave', 'itrx'] as const;

/** The providers' documented API roots (docs/rental-providers.md); CHAIN=devnet defaults to the devnet's simulations. */
const RENTAL_API_ROOTS = { tronsave: 'https://api.tronsave.io', itrx: 'https://itrx.io' } as const;

/**
 * A configuration problem; the message names the variable and never echoes a secret value. loadConfig reports every
 * problem of an environment at once: one ConfigError whose `problems` lists each (a single problem is its own list).
 */
export class ConfigError extends Error {
  /** Every problem found, each naming its variable; `[this]` for a single one. */
  readonly problems: readonly ConfigError[];

  constructor(readonly variable: string, problem: string, problems?: readonly ConfigError[]) {
    super(problems === undefined ? `configuration: ${variable} ${problem}` : problem);
    this.name = 'ConfigError';
    this.problems = problems ?? [this];
  }

  /** One error for several problems: `variable` names them all (comma-separated), the message lists one per line. */
  static of(problems: readonly ConfigError[]): ConfigError {
    if (problems.length === 1) return problems[0]!;
    const lines = problems.map((p) => `  ${p.message.replace(/^configuration: /, '')}`);
    return new ConfigError(problems.map((p) => p.variable).join(', '),
      `configuration: ${problems.length} problems\n${lines.join('\n')}`, problems.flatMap((p) => p.problems));
  }
}

/** The environment as read (process.env fits). */
export type Env = Readonly<Record<string, string | undefined>>;

function text(env: Env, name: string): string | null {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? null : value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = text(env, name) ?? fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${value}")`);
  return value as T;
}

/** A list of `url` or `url|solidity-url` entries, comma-separated (TRON_FULL_HOSTS); null when unset. */
function nodeList(env: Env, name: string): { fullHost: string; solidityHost: string | null }[] | null {
  const value = text(env, name);
  if (value === null) return null;
  return value.split(',').map((entry, i) => {
    const [full, solidity, extra] = entry.trim().split('|').map((u) => u.trim());
    if (extra !== undefined) throw new ConfigError(name, `entry ${i + 1} must be "url" or "url|solidity-url"`);
    const one = (u: string | undefined): string => url({ [name]: u }, name, ['http:', 'https:']) ?? (() => {
      throw new ConfigError(name, `entry ${i + 1} is empty`);
    })();
    return { fullHost: one(full), solidityHost: solidity === undefined ? null : one(solidity) };
  });
}

/** A positive number of calls per day, or null when unset. */
function dailyCalls(env: Env, name: string): number | null {
  if (text(env, name) === null) return null;
  const calls = integer(env, name, 0, 1e12, 'a positive number of calls');
  if (calls < 1) throw new ConfigError(name, 'must be a positive number of calls');
  return calls;
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

/** An integer variable in [0, max], `fallback` when unset; otherwise a ConfigError naming it (`what` it should be). */
export function integer(env: Env, name: string, fallback: number, max: number, what: string): number {
  const value = text(env, name);
  if (value === null) return fallback;
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n > max) throw new ConfigError(name, `must be ${what} (0-${max})`);
  return n;
}

/** WORKFLOW_LEASE_S: seconds in [5, 3600], 60 when unset (a shorter lease would expire under a slow node call). */
function leaseSeconds(env: Env, name: string): number {
  const n = integer(env, name, 60, 3_600, 'a number of seconds from 5');
  if (n < 5) throw new ConfigError(name, 'must be a number of seconds from 5 (5-3600)');
  return n;
}

/** An integer variable in [1, max], `fallback` when unset; otherwise a ConfigError naming it and the range. */
function count(env: Env, name: string, fallback: number, max: number, what: string): number {
  const value = text(env, name);
  if (value === null) return fallback;
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n < 1 || n > max) throw new ConfigError(name, `must be ${what} (1-${max})`);
  return n;
}

function port(env: Env, name: string, fallback: number): number {
  return integer(env, name, fallback, 65_535, 'a TCP port');
}

/** A value sent as an HTTP header: printable ASCII without spaces, else a request would fail far from the cause. */
function headerValue(env: Env, name: string): string | null {
  const value = text(env, name);
  if (value !== null && !/^[\x21-\x7e]+$/.test(value)) throw new ConfigError(name, 'must be printable ASCII without spaces');
  return value;
}

/** The `sslmode` values node-postgres knows; any other would silently mean "TLS, verified", whatever was meant. */
const SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'];

/** DATABASE_URL: a PostgreSQL URL, its `sslmode` (if any) one node-postgres knows. Never echoes the URL (it holds a password). */
function postgresUrl(env: Env, name: string): string | null {
  const value = url(env, name, ['postgres:', 'postgresql:']);
  if (value === null) return null;
  const sslmode = new URL(value).searchParams.get('sslmode');
  if (sslmode !== null && !SSL_MODES.includes(sslmode)) throw new ConfigError(name, `has an unknown sslmode (use one of ${SSL_MODES.join(', ')})`);
  return value;
}

/** DATABASE_URL and DATABASE_POOL_SIZE alone, by the rules of {@link loadConfig} (`npm run db:migrate` needs nothing else). */
export function loadDatabaseConfig(env: Env): { readonly databaseUrl: string; readonly databasePoolSize: number } {
  const p = new Problems();
  const databaseUrl = p.take(null, () => postgresUrl(env, 'DATABASE_URL'));
  p.check(databaseUrl === null && text(env, 'DATABASE_URL') === null, 'DATABASE_URL', 'is required (postgres://user:password@host:5432/database)');
  const databasePoolSize = p.take(10, () => count(env, 'DATABASE_POOL_SIZE', 10, 200, 'a number of connections'));
  if (p.list.length > 0 || databaseUrl === null) throw ConfigError.of(p.list);
  return { databaseUrl, databasePoolSize };
}

/**
 * `message` with DATABASE_URL's password taken out wherever the URL or its `user:password@` part is quoted, for an
 * error shown to an operator: connectPostgres names the server redacted already, but a driver's reason might quote
 * the URL it was given.
 */
export function withoutDatabasePassword(message: string, url: string): string {
  const secrets: string[] = [];
  try {
    const { password } = new URL(url);
    if (password !== '') secrets.push(password, decodeURIComponent(password));
  } catch {
    // Not a URL (loadConfig refuses those), or a stray `%` in the password: the spellings found so far are enough.
  }
  return secrets.reduce((text, secret) => text.split(`:${secret}@`).join(':***@'), message.split(url).join(redactPostgresUrl(url)));
}

/** MongoDB's rules for database names (no path or namespace characters, at most 63 bytes). */
function databaseName(env: Env, name: string): string | null {
  const value = text(env, name);
  if (value !== null && (!/^[^/\\. "$*<>:|?]+$/.test(value) || Buffer.byteLength(value) > 63)) {
    throw new ConfigError(name, 'must be a MongoDB database name (no / \\ . space " $ * < > : | ?, at most 63 bytes)');
  }
  return value;
}

/** The devnet's default address (`npm run devnet`), used when CHAIN=devnet and TRON_FULL_HOST is unset. */
export const DEFAULT_DEVNET_URL = 'http://127.0.0.1:8090';

/** Confirmations a collection step waits for unless CHAIN_CONFIRMATIONS says otherwise (TRON's solidification depth). */
export const DEFAULT_CHAIN_CONFIRMATIONS = 19;

/** Bearer prefixes of the other token kinds: an admin token with one of them could never be recognised as admin. */
const RESERVED_PREFIXES = ['st_', 'dk_', 'ct_'];

function adminToken(env: Env, mode: HostConfig['mode'], role: ProcessRole): string | null {
  // The worker serves no admin API: it neither needs nor reads ADMIN_TOKEN.
  if (role === 'worker') return null;
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

/** Collects ConfigErrors instead of stopping at the first, so one run reports every bad variable. */
class Problems {
  readonly list: ConfigError[] = [];

  /** `read()`, or `fallback` after recording the ConfigError it threw (any other error is a bug and propagates). */
  take<T>(fallback: T, read: () => T): T {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.list.push(error);
      return fallback;
    }
  }

  check(condition: boolean, variable: string, problem: string): void {
    if (condition) this.list.push(new ConfigError(variable, problem));
  }
}

/** Options of {@link loadConfig}. */
export interface LoadOptions {
  readonly mode: HostConfig['mode'];
  /** Default `all`. */
  readonly role?: ProcessRole;
  /**
   * The process is a deployment's only copy of its state (`npm run serve`): in production the memory store is refused
   * even on the devnet, unless ALLOW_EPHEMERAL=true.
   */
  readonly durable?: boolean;
}

/**
 * Reads and validates the environment. Every problem is a ConfigError naming the variable, raised before anything
 * starts, all of them at once (ConfigError.problems). In production mode every secret the process uses is required
 * (the worker does not use ADMIN_TOKEN); dev mode lets KEY_ENCRYPTION_KEY and ADMIN_TOKEN be generated, except with a
 * durable store, whose private keys must outlive the process. Production refuses memory stores where they would lose
 * keys (CHAIN=tronweb), split state (a separate api or worker process) or lose a deployment's state (`durable`)
 * unless ALLOW_EPHEMERAL=true.
 */
export function loadConfig(env: Env, options: LoadOptions): HostConfig {
  const mode = options.mode;
  const role = options.role ?? 'all';
  const p = new Problems();
  const store = p.take('memory' as HostConfig['store'], () => oneOf(env, 'STORE', ['memory', 'postgres', 'mongodb'], 'memory'));
  const mongodbUrl = p.take(null, () => url(env, 'MONGODB_URL', ['mongodb:', 'mongodb+srv:']));
  p.check(store === 'mongodb' && mongodbUrl === null && text(env, 'MONGODB_URL') === null, 'MONGODB_URL', 'is required when STORE=mongodb');
  const databaseUrl = p.take(null, () => postgresUrl(env, 'DATABASE_URL'));
  p.check(store === 'postgres' && databaseUrl === null && text(env, 'DATABASE_URL') === null, 'DATABASE_URL',
    'is required when STORE=postgres (postgres://user:password@host:5432/database, sslmode=verify-full for TLS)');
  const locks = p.take('memory' as const, () => oneOf(env, 'LOCKS', ['memory', 'redis'], 'memory'));
  const redisUrl = p.take(null, () => url(env, 'REDIS_URL', ['redis:', 'rediss:']));
  p.check(locks === 'redis' && redisUrl === null && text(env, 'REDIS_URL') === null, 'REDIS_URL', 'is required when LOCKS=redis');
  const chain = p.take('devnet' as const, () => oneOf(env, 'CHAIN', ['devnet', 'tronweb'], 'devnet'));
  const givenFullHost = p.take(null, () => url(env, 'TRON_FULL_HOST', ['http:', 'https:']));
  p.check(chain === 'tronweb' && givenFullHost === null && text(env, 'TRON_FULL_HOST') === null, 'TRON_FULL_HOST', 'is required when CHAIN=tronweb');
  const tronFullHost = givenFullHost ?? DEFAULT_DEVNET_URL;
  const tronSolidityHost = p.take(null, () => url(env, 'TRON_SOLIDITY_HOST', ['http:', 'https:']));
  const tronProTierKey = p.take(null, () => headerValue(env, 'TRON_PRO_TIER_KEY'));
  const tronProTierHost = p.take(null, () => url(env, 'TRON_PRO_TIER_HOST', ['http:', 'https:']));
  p.check(tronProTierHost !== null && text(env, 'TRON_PRO_TIER_KEY') === null, 'TRON_PRO_TIER_KEY', 'is required when TRON_PRO_TIER_HOST is set');
  const rentalProviders = p.take([], () => rentalProviderConfigs(env, chain, tronFullHost));
  const energyProvider = rentalProviders.length === 0 ? 'self' : 'rental';
  const usdtContract = text(env, 'USDT_CONTRACT') ?? MAINNET_USDT_CONTRACT;
  p.check(!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(usdtContract), 'USDT_CONTRACT', 'must be a base58 TRON address');
  const keyEncryptionKey = p.take(null, () => keyFromEnvOrFile(env));
  p.check(keyEncryptionKey === null && mode !== 'dev' && text(env, 'KEY_ENCRYPTION_KEY_FILE') === null, 'KEY_ENCRYPTION_KEY',
    'is required (32 bytes, base64; or "id:base64,…" for rotation), or KEY_ENCRYPTION_KEY_FILE naming a file that holds it');
  if (keyEncryptionKey !== null) {
    try {
      AesGcmKeyCipher.fromConfig(keyEncryptionKey, 'KEY_ENCRYPTION_KEY');
    } catch (error) {
      // The adapter's message names the variable and the entry, never the key bytes.
      p.list.push(new ConfigError('KEY_ENCRYPTION_KEY', `is invalid: ${(error as Error).message}`));
    }
  }
  // An ephemeral key would encrypt private keys that outlive this process in the store: lost funds after a restart.
  p.check(keyEncryptionKey === null && store !== 'memory' && mode === 'dev', 'KEY_ENCRYPTION_KEY',
    `is required with STORE=${store} (stored private keys must stay decryptable after a restart)`);
  const allowEphemeral = p.take(false, () => flag(env, 'ALLOW_EPHEMERAL'));
  if (mode === 'production' && store === 'memory' && !allowEphemeral) {
    if (chain === 'tronweb') {
      p.list.push(new ConfigError('STORE', 'is memory with CHAIN=tronweb: every private key made would be lost at the next restart '
        + '(set STORE=postgres (or mongodb), or ALLOW_EPHEMERAL=true to accept losing them)'));
    } else if (role !== 'all') {
      p.list.push(new ConfigError('STORE', `is memory in a separate ${role} process: the API and the worker would share nothing `
        + '(set STORE=postgres (or mongodb), or ALLOW_EPHEMERAL=true for a throwaway process)'));
    } else if (options.durable === true) {
      p.list.push(new ConfigError('STORE', 'is memory in a production process that keeps its state (npm run serve): every account, '
        + 'key and task would be lost at the next restart (set STORE=postgres (or mongodb), or ALLOW_EPHEMERAL=true for a throwaway process)'));
    }
  }
  const smtpUrl = p.take(null, () => url(env, 'SMTP_URL', ['smtp:', 'smtps:']));
  const mailFrom = text(env, 'MAIL_FROM');
  p.check(mode === 'production' && role !== 'worker' && text(env, 'SMTP_URL') === null, 'SMTP_URL',
    'is required: the API sends verification codes by e-mail (smtp://user:pass@host:587 or smtps://…:465); the console mailer is for development only');
  p.check(smtpUrl !== null && mailFrom === null, 'MAIL_FROM', 'is required with SMTP_URL (the From address of verification mail)');
  p.check(mailFrom !== null && !/^[^\r\n]*<?[^\s<>@]+@[^\s<>@]+>?$/.test(mailFrom), 'MAIL_FROM', 'must be an e-mail address, optionally "Name <address>"');
  // Issue #35 item 9: no cooling-off lets a thief pay an address the moment they list it; for development only.
  p.check(mode !== 'dev' && /^0+$/.test(text(env, 'WITHDRAWAL_ALLOWLIST_DELAY_H') ?? ''), 'WITHDRAWAL_ALLOWLIST_DELAY_H',
    'is 0 outside development: a new allow-list destination would be payable at once (use at least 1; 0 only with npm start)');
  // Issue #35 item 3: a loosening that took effect at once is what one session and one code could do before.
  p.check(mode !== 'dev' && /^0+$/.test(text(env, 'POLICY_CHANGE_DELAY_H') ?? ''), 'POLICY_CHANGE_DELAY_H',
    'is 0 outside development: a loosening of a withdrawal policy would take effect at once (use at least 1; 0 only with npm start)');
  const config: HostConfig = {
    mail: smtpUrl !== null && mailFrom !== null ? { kind: 'smtp', url: smtpUrl, from: mailFrom } : { kind: 'console' },
    mode, role, store, mongodbUrl, databaseUrl, locks, redisUrl, chain, tronFullHost, tronSolidityHost,
    databasePoolSize: p.take(10, () => count(env, 'DATABASE_POOL_SIZE', 10, 200, 'a number of connections')),
    tronApiKey: p.take(null, () => headerValue(env, 'TRON_API_KEY')),
    scanNodes: p.take(null, () => nodeList(env, 'TRON_FULL_HOSTS')) ?? [{ fullHost: tronFullHost, solidityHost: tronSolidityHost }],
    scanNodeDailyCalls: p.take(null, () => dailyCalls(env, 'TRON_NODE_DAILY_CALLS')),
    tronProTierKey, tronProTierHost, usdtContract,
    mongodbDb: p.take(null, () => databaseName(env, 'MONGODB_DB')), energyProvider, rentalProviders,
    energyRentalMaxPriceSun: p.take(null, () => priceSun(env, 'ENERGY_RENTAL_MAX_PRICE_SUN')),
    energyBurnMaxSun: p.take(null, () => priceSun(env, 'ENERGY_BURN_MAX_SUN')),
    chainConfirmations: p.take(0, () => integer(env, 'CHAIN_CONFIRMATIONS', DEFAULT_CHAIN_CONFIRMATIONS, 1_000, 'a number of blocks')),
    chainBlockMs: p.take(0, () => integer(env, 'CHAIN_BLOCK_MS', 3_000, 60_000, 'milliseconds')),
    keyEncryptionKey, adminToken: p.take(null, () => adminToken(env, mode, role)),
    port: role === 'worker' ? 0 : p.take(0, () => port(env, 'PORT', 3000)),
    trustedProxyHops: role === 'worker' ? 0
      : p.take(0, () => integer(env, 'TRUSTED_PROXY_HOPS', 0, MAX_TRUSTED_PROXY_HOPS, 'a number of proxies')),
    consoleIdleMs: 60_000 * (role === 'worker' ? 30 : p.take(30, () => count(env, 'CONSOLE_IDLE_MIN', 30, 1_440, 'a number of minutes'))),
    webhookAllowLocal: p.take(false, () => flag(env, 'WEBHOOK_ALLOW_LOCAL')),
    energyBurn: p.take(false, () => flag(env, 'ENERGY_BURN')),
    workflowStuckAfterMs: 1_000 * p.take(0, () => integer(env, 'WORKFLOW_STUCK_AFTER_S', 900, 604_800, 'a number of seconds')),
    allowListDelayMs: 3_600_000 * p.take(24, () => integer(env, 'WITHDRAWAL_ALLOWLIST_DELAY_H', 24, 8_760, 'a number of hours')),
    policyChangeDelayMs: 3_600_000 * p.take(24, () => integer(env, 'POLICY_CHANGE_DELAY_H', 24, 8_760, 'a number of hours')),
    workflowLeaseMs: 1_000 * p.take(60, () => leaseSeconds(env, 'WORKFLOW_LEASE_S')),
    workflowConcurrency: p.take(1, () => count(env, 'WORKFLOW_CONCURRENCY', 4, 64, 'a number of stages')),
    withdrawalConfirmations: p.take(0, () => integer(env, 'WITHDRAWAL_CONFIRMATIONS', 0, 1_000, 'a number of blocks')),
    logLevel: p.take('info' as LogLevel, () => oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info')),
    metricsPort: p.take(null, () => (text(env, 'METRICS_PORT') === null && role === 'all' ? null
      : port(env, 'METRICS_PORT', DEFAULT_METRICS_PORT))),
    metricsHost: p.take(DEFAULT_METRICS_HOST, () => hostName(env, 'METRICS_HOST', DEFAULT_METRICS_HOST)),
    defaultSubAddressPlan: p.take(DEFAULT_SUB_ADDRESS_PLAN, () => oneOf(env, 'DEFAULT_SUB_ADDRESS_PLAN', SUB_ADDRESS_PLAN_CODES, DEFAULT_SUB_ADDRESS_PLAN)),
    allowEphemeral,
  };
  if (p.list.length > 0) throw ConfigError.of(p.list);
  return config;
}

/** A host name or IP address to listen on (no spaces or slashes). */
function hostName(env: Env, name: string, fallback: string): string {
  const value = text(env, name) ?? fallback;
  if (/\s|\//.test(value)) throw new ConfigError(name, 'must be an IP address or a host name');
  return value;
}

/**
 * KEY_ENCRYPTION_KEY, or the contents of the file KEY_ENCRYPTION_KEY_FILE names (a Docker or Kubernetes secret),
 * trimmed; both set is refused (which one wins would be a guess). Never echoes the key.
 */
function keyFromEnvOrFile(env: Env): string | null {
  const direct = text(env, 'KEY_ENCRYPTION_KEY');
  const file = text(env, 'KEY_ENCRYPTION_KEY_FILE');
  if (file === null) return direct;
  if (direct !== null) throw new ConfigError('KEY_ENCRYPTION_KEY_FILE', 'must not be set together with KEY_ENCRYPTION_KEY');
  let contents: string;
  try {
    contents = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConfigError('KEY_ENCRYPTION_KEY_FILE', `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (contents === '') throw new ConfigError('KEY_ENCRYPTION_KEY_FILE', 'names an empty file');
  return contents;
}

/** A positive whole number of SUN, or null when unset. */
function priceSun(env: Env, name: string): bigint | null {
  const value = text(env, name);
  if (value === null) return null;
  if (!/^[0-9]{1,19}$/.test(value) || BigInt(value) === 0n) throw new ConfigError(name, 'must be a positive whole number of SUN');
  return BigInt(value);
}

/**
 * ENERGY_PROVIDER: `self` (no rental), `rental` (every configured provider: both on CHAIN=devnet, else those with
 * credentials), or providers by name in fallback order (`tronsave`, `itrx`, `itrx,tronsave`). Each named provider
 * needs its credentials outside the devnet; on the devnet they default to the devnet's simulations of the provider.
 */
function rentalProviderConfigs(env: Env, chain: HostConfig['chain'], tronFullHost: string): RentalProviderConfig[] {
  for (const gone of ['ENERGY_RENTAL_URL', 'ENERGY_RENTAL_API_KEY']) {
    if (text(env, gone) !== null) {
      throw new ConfigError(gone, 'is no longer read (the generic rental API is gone): set TRONSAVE_API_KEY, or ITRX_API_KEY and ITRX_API_SECRET');
    }
  }
  const devnet = chain === 'devnet';
  const creds = {
    tronsaveKey: headerValue(env, 'TRONSAVE_API_KEY'), itrxKey: headerValue(env, 'ITRX_API_KEY'), itrxSecret: headerValue(env, 'ITRX_API_SECRET'),
  };
  if ((creds.itrxKey === null) !== (creds.itrxSecret === null)) {
    throw new ConfigError(creds.itrxKey === null ? 'ITRX_API_KEY' : 'ITRX_API_SECRET', 'is required with the other half of the itrx key pair');
  }
  const given = text(env, 'ENERGY_PROVIDER') ?? 'self';
  const names = given === 'self' ? [] : given === 'rental'
    ? RENTAL_PROVIDERS.filter((p) => devnet || (p === 'tronsave' ? creds.tronsaveKey !== null : creds.itrxKey !== null))
    : given.split(',').map((n) => n.trim());
  const known = new Set<string>(RENTAL_PROVIDERS);
  if (names.some((n) => !known.has(n)) || new Set(names).size !== names.length) {
    throw new ConfigError('ENERGY_PROVIDER', `must be self, rental, or distinct providers among ${RENTAL_PROVIDERS.join(', ')} (got "${given}")`);
  }
  if (given === 'rental' && names.length === 0) {
    throw new ConfigError('ENERGY_PROVIDER', 'is rental but no provider is configured: set TRONSAVE_API_KEY, or ITRX_API_KEY and ITRX_API_SECRET');
  }
  const endpoint = (name: 'TRONSAVE_URL' | 'ITRX_URL', kind: keyof typeof RENTAL_API_ROOTS): string =>
    url(env, name, ['http:', 'https:']) ?? (devnet ? tronFullHost : RENTAL_API_ROOTS[kind]);
  const required = (name: string, value: string | null, devnetValue: string): string => {
    if (value !== null) return value;
    if (devnet) return devnetValue;
    throw new ConfigError(name, `is required when ENERGY_PROVIDER names ${name.startsWith('TRONSAVE') ? 'tronsave' : 'itrx'} and CHAIN=tronweb`);
  };
  return (names as Array<(typeof RENTAL_PROVIDERS)[number]>).map((kind): RentalProviderConfig => (kind === 'tronsave'
    ? { kind, url: endpoint('TRONSAVE_URL', kind), apiKey: required('TRONSAVE_API_KEY', creds.tronsaveKey, DEVNET_TRONSAVE_API_KEY) }
    : {
      kind, url: endpoint('ITRX_URL', kind), apiKey: required('ITRX_API_KEY', creds.itrxKey, DEVNET_ITRX_API_KEY),
      apiSecret: required('ITRX_API_SECRET', creds.itrxSecret, DEVNET_ITRX_API_SECRET),
    }));
}
