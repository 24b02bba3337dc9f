import { randomBytes } from 'node:crypto';
import { Container } from 'inversify';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import { createApplication, type CoreDeps } from '../../core/application/index.js';
import { createAssetRegistry } from '../../core/domain/assets.js';
import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import type { Clock } from '../../core/ports/clock.port.js';
import type { DnsResolver } from '../../core/ports/dns-resolver.port.js';
import type { IdGenerator } from '../../core/ports/id-generator.port.js';
import type { Mailer } from '../../core/ports/mailer.port.js';
import type { SecretHasher } from '../../core/ports/secret-hasher.port.js';
import type { WebhookTransport } from '../../core/ports/webhook-transport.port.js';
import { createMemoryAdapters } from '../../adapters/memory/index.js';
// Not re-exported by adapters/memory/index.ts yet; imported from their files.
import { MemoryAddressLock } from '../../adapters/memory/memory-address-lock.js';
import { MemoryRateLimiter } from '../../adapters/memory/memory-rate-limiter.js';
import { AesGcmKeyCipher, ConsoleMailer, NodeDnsResolver, NodeSecretHasher, SystemClock } from '../../adapters/node/index.js';
import { createRedisClient, RedisAddressLock, RedisRateLimiter } from '../../adapters/redis/index.js';
import { TronWebChainGateway } from '../../adapters/tron/tronweb-chain-gateway.js';
import { createApiHost } from '../api/api-app.js';
import { createApiLogger } from '../api/logger.js';
import type { RateLimits } from '../api/rate-limit.js';
import type { ReadinessCheck } from '../api/routes/system.routes.js';
import { ConfigError, type HostConfig } from './config.js';
import { TOKENS } from './tokens.js';
import { UnavailableWebhookTransport } from './unavailable-webhook-transport.js';

/**
 * Replacements for tests and tools: a manual clock, seeded ids, a recording mailer, a cheap password hasher, a
 * captured logger, a chain double. Anything not given comes from the configuration.
 */
export interface CompositionOverrides {
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  readonly hasher?: SecretHasher;
  readonly mailer?: Mailer;
  readonly dns?: DnsResolver;
  readonly transport?: WebhookTransport;
  readonly chain?: ChainGateway;
  readonly logger?: Logger;
  readonly rateLimits?: Partial<RateLimits>;
}

/** A composed process: the container and what must be closed on shutdown. */
export interface Composition {
  readonly container: Container;
  /** The admin token in force (generated in dev mode when ADMIN_TOKEN is unset). */
  readonly adminToken: string;
  /** True when KEY_ENCRYPTION_KEY was unset and an ephemeral key encrypts the private keys of this run only. */
  readonly ephemeralKey: boolean;
  close(): Promise<void>;
}

function notAvailable(variable: string, what: string): never {
  throw new ConfigError(variable, `selects ${what}, which is not available yet in this build`);
}

/** Bounds a readiness probe so /readyz answers even when a backing service hangs. */
async function probe(name: string, check: () => Promise<unknown>, timeoutMs = 2_000): Promise<ReadinessCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
  const ok = await Promise.race([check().then(() => true, () => false), timeout]);
  clearTimeout(timer);
  return { name, ok };
}

/**
 * Builds the inversify container from a validated configuration: every port bound with a factory to the adapter the
 * configuration selects, then the use cases and the API host on top. Nothing connects until first resolved.
 */
export function composeContainer(config: HostConfig, overrides: CompositionOverrides = {}): Composition {
  const container = new Container({ defaultScope: 'Singleton' });
  const adminToken = config.adminToken ?? `adm_${randomBytes(32).toString('base64url')}`;
  const ephemeralKey = config.keyEncryptionKey === null;
  let redis: Redis | null = null;
  const redisClient = (): Redis => (redis ??= createRedisClient(config.redisUrl ?? ''));

  if (config.store === 'mongodb') notAvailable('STORE', 'the MongoDB store (adapters/mongodb)');

  container.bind(TOKENS.Config).toConstantValue(config);
  container.bind(TOKENS.Logger).toDynamicValue(() => overrides.logger ?? createApiLogger());
  container.bind(TOKENS.Clock).toDynamicValue(() => overrides.clock ?? new SystemClock());
  container.bind(TOKENS.MemoryStores).toDynamicValue((ctx) => createMemoryAdapters({
    clock: ctx.get(TOKENS.Clock), ...(overrides.ids === undefined ? {} : { ids: overrides.ids }),
  }));
  container.bind(TOKENS.Ids).toDynamicValue((ctx) => ctx.get(TOKENS.MemoryStores).ids);
  container.bind(TOKENS.Idempotency).toDynamicValue((ctx) => ctx.get(TOKENS.MemoryStores).idempotency);
  container.bind(TOKENS.Hasher).toDynamicValue(() => overrides.hasher ?? new NodeSecretHasher());
  container.bind(TOKENS.Cipher).toDynamicValue(() => (config.keyEncryptionKey === null
    ? AesGcmKeyCipher.fromConfig(randomBytes(32).toString('base64'))
    : AesGcmKeyCipher.fromConfig(config.keyEncryptionKey)));
  container.bind(TOKENS.Mailer).toDynamicValue(() => overrides.mailer ?? new ConsoleMailer());
  container.bind(TOKENS.Dns).toDynamicValue(() => overrides.dns ?? new NodeDnsResolver());
  container.bind(TOKENS.Transport).toDynamicValue(() => overrides.transport ?? new UnavailableWebhookTransport());
  container.bind(TOKENS.Assets).toDynamicValue(() => createAssetRegistry({ usdtContract: config.usdtContract }));
  container.bind(TOKENS.Chain).toDynamicValue(() => {
    if (overrides.chain !== undefined) return overrides.chain;
    if (config.tronFullHost === null) throw new ConfigError('TRON_FULL_HOST', `is required for CHAIN=${config.chain}`);
    return new TronWebChainGateway({
      fullHost: config.tronFullHost, usdtContract: config.usdtContract, ...(config.tronApiKey === null ? {} : { apiKey: config.tronApiKey }),
    });
  });
  container.bind(TOKENS.AddressLock).toDynamicValue((ctx) => (config.locks === 'redis'
    ? new RedisAddressLock(redisClient()) : new MemoryAddressLock({ clock: ctx.get(TOKENS.Clock) })));
  container.bind(TOKENS.RateLimiter).toDynamicValue((ctx) => (config.locks === 'redis'
    ? new RedisRateLimiter(redisClient()) : new MemoryRateLimiter({ clock: ctx.get(TOKENS.Clock) })));
  container.bind(TOKENS.CoreDeps).toDynamicValue((ctx): CoreDeps => {
    const stores = ctx.get(TOKENS.MemoryStores);
    return {
      clock: ctx.get(TOKENS.Clock), ids: ctx.get(TOKENS.Ids), hasher: ctx.get(TOKENS.Hasher), cipher: ctx.get(TOKENS.Cipher),
      mailer: ctx.get(TOKENS.Mailer), dns: ctx.get(TOKENS.Dns), transport: ctx.get(TOKENS.Transport), risk: stores.risk,
      addressLock: ctx.get(TOKENS.AddressLock), chain: ctx.get(TOKENS.Chain), assets: ctx.get(TOKENS.Assets),
      accounts: stores.accounts, sessions: stores.sessions, subscriptions: stores.subscriptions, apiTokens: stores.apiTokens,
      wallets: stores.wallets, balances: stores.balances, commands: stores.commands, tasks: stores.tasks,
      cashierTokens: stores.cashierTokens, developerConfigs: stores.developerConfigs, deliveries: stores.deliveries, uow: stores.uow,
      settings: { allowLocalWebhooks: config.webhookAllowLocal },
    };
  });
  container.bind(TOKENS.Application).toDynamicValue((ctx) => createApplication(ctx.get(TOKENS.CoreDeps)));
  container.bind(TOKENS.Readiness).toDynamicValue((ctx) => async () => {
    const chain = ctx.get(TOKENS.Chain);
    const checks = [probe('chain', () => chain.head())];
    if (config.locks === 'redis') checks.push(probe('redis', () => redisClient().ping()));
    return [{ name: 'store', ok: true }, ...(await Promise.all(checks))];
  });
  container.bind(TOKENS.ApiHost).toDynamicValue((ctx) => createApiHost({
    app: ctx.get(TOKENS.Application), rateLimiter: ctx.get(TOKENS.RateLimiter), idempotency: ctx.get(TOKENS.Idempotency),
    adminToken, logger: ctx.get(TOKENS.Logger), readiness: ctx.get(TOKENS.Readiness),
    ...(overrides.rateLimits === undefined ? {} : { rateLimits: overrides.rateLimits }),
  }));

  return {
    container, adminToken, ephemeralKey,
    close: async () => {
      if (redis !== null) await redis.quit().catch(() => undefined);
    },
  };
}
