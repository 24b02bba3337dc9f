import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Container, type ResolutionContext } from 'inversify';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import { createApplication, type CoreDeps } from '../../core/application/index.js';
import { createAssetRegistry } from '../../core/domain/assets.js';
import { MAINNET_USDT_CONTRACT } from '../../core/domain/model/asset.js';
import type { BlockSource } from '../../core/ports/block-source.port.js';
import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import type { Clock } from '../../core/ports/clock.port.js';
import type { DnsResolver } from '../../core/ports/dns-resolver.port.js';
import type { EnergyProvider } from '../../core/ports/energy-provider.port.js';
import type { IdGenerator } from '../../core/ports/id-generator.port.js';
import type { ScanCursorStore } from '../../core/ports/scan-cursor-store.port.js';
import type { Mailer } from '../../core/ports/mailer.port.js';
import type { SecretHasher } from '../../core/ports/secret-hasher.port.js';
import type { WebhookTransport } from '../../core/ports/webhook-transport.port.js';
import { HttpWebhookTransport } from '../../adapters/http/index.js';
import { createMemoryAdapters, MemoryAddressLock, MemoryOperatorStatusStore, MemoryRateLimiter, MemoryScanCursorStore } from '../../adapters/memory/index.js';
import { connectMongo, createMongoAdapters, MongoOperatorStatusStore, type MongoConnection } from '../../adapters/mongodb/index.js';
import { MongoScanCursorStore } from '../../adapters/mongodb/mongo-scan-cursor-store.js';
import { connectPostgres, createPostgresAdapters, PgOperatorStatusStore, type PostgresConnection } from '../../adapters/postgres/index.js';
import { AesGcmKeyCipher, ConsoleMailer, NodeDnsResolver, NodeSecretHasher, OtpauthTotpGenerator, SmtpMailer, SystemClock } from '../../adapters/node/index.js';
import { createRedisClient, RedisAddressLock, RedisRateLimiter } from '../../adapters/redis/index.js';
import {
  CachingChainGateway, ItrxEnergyProvider, RentalMarketEnergyProvider, SelfDelegationEnergyProvider, TronBlockSource, TronSaveEnergyProvider, TronWebChainGateway,
  type RentalEnergySource,
} from '../../adapters/tron/index.js';
import { createApiHost } from '../api/api-app.js';
import type { RateLimits } from '../api/rate-limit.js';
import type { ReadinessCheck } from '../api/routes/system.routes.js';
import { ConfigError, withoutDatabasePassword, type HostConfig, type RentalProviderConfig } from './config.js';
import { createServiceLogger, serviceName } from './logger.js';
import { CustodyMetrics, workflowCallPurpose } from './metrics.js';
import { BlockReceipts } from '../../core/application/worker/block-receipts.js';
import type { SweepCheck } from '../../core/application/collection-starter.js';
import { collectionStepSettings } from '../../core/application/worker/collection-executor.js';
import { plannedSweepCheck } from '../../core/application/worker/sweep-fee-quote.js';
import { plannedWithdrawalFeeCheck, type WithdrawalFeeCheck } from '../../core/application/worker/withdrawal-funding-plan.js';
import type { RequestObserver } from '../api/pipeline.js';
import { TOKENS, type StoreAdapters } from './tokens.js';

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
  /** The open MongoDB connection STORE=mongodb runs on (openComposition opens it from MONGODB_URL). */
  readonly mongo?: Pick<MongoConnection, 'client' | 'db' | 'transactions'>;
  /** The open PostgreSQL pool STORE=postgres runs on, migrations applied (openComposition opens it from DATABASE_URL). */
  readonly postgres?: Pick<PostgresConnection, 'pool'>;
  /** Replaces the rental market (ENERGY_PROVIDER other than self), e.g. one with a counting fetch. */
  readonly rentalProvider?: EnergyProvider;
  /**
   * false: no energy check before a collection is made (issue #34), for tests that seed tasks for the worker on chain
   * state no plan was made for. Default true; production never turns it off.
   */
  readonly energyCheck?: boolean;
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

/** Bounds a readiness probe so /readyz answers even when a backing service hangs. */
async function probe(name: string, check: () => Promise<unknown>, timeoutMs = 2_000): Promise<ReadinessCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
  const ok = await Promise.race([check().then(() => true, () => false), timeout]);
  clearTimeout(timer);
  return { name, ok };
}

/**
 * Whether the node follows the chain the store's scan cursors were scanning (issue #34), for every process that
 * answers readiness, a separate `npm run api` included: not ready when the stored checkpoints name genesis blocks and
 * the node's is none of them (a restarted devnet, another network). The node is asked only then; a node or store
 * that does not answer is left to the `chain` and `store` checks.
 */
async function storeChainCheck(cursors: ScanCursorStore, blocks: BlockSource, timeoutMs = 2_000): Promise<ReadinessCheck> {
  const judge = async (): Promise<boolean> => {
    const stored = await cursors.genesisIds();
    if (stored.length === 0) return true;
    const genesis = await blocks.genesis();
    return stored.includes(genesis.hash);
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(true), timeoutMs); });
  const ok = await Promise.race([judge().catch(() => true), timeout]);
  clearTimeout(timer);
  return { name: 'store-chain', ok };
}

/** A durable store composed without its connection: a wiring mistake, reported against the variable that asked for it. */
function missingConnection(config: HostConfig, overrides: CompositionOverrides): ConfigError | null {
  const variable = {
    memory: null, postgres: overrides.postgres === undefined ? 'DATABASE_URL' : null, mongodb: overrides.mongo === undefined ? 'MONGODB_URL' : null,
  }[config.store];
  return variable === null ? null
    : new ConfigError('STORE', `is ${config.store} but no connection was opened (compose with openComposition, which connects to ${variable})`);
}

function storeAdapters(config: HostConfig, overrides: CompositionOverrides, clock: Clock): StoreAdapters {
  const ids = overrides.ids === undefined ? {} : { ids: overrides.ids };
  const missing = missingConnection(config, overrides);
  if (missing !== null) throw missing;
  switch (config.store) {
    case 'memory': return { ...createMemoryAdapters({ clock, ...ids }), scanCursors: new MemoryScanCursorStore(), operatorStatus: new MemoryOperatorStatusStore() };
    case 'postgres': return {
      ...createPostgresAdapters({ connection: overrides.postgres!, clock, ...ids }), operatorStatus: new PgOperatorStatusStore(overrides.postgres!.pool),
    };
    case 'mongodb': {
      const mongo = overrides.mongo!;
      return {
        ...createMongoAdapters({ connection: mongo, clock, ...ids }), scanCursors: new MongoScanCursorStore(mongo.db),
        operatorStatus: new MongoOperatorStatusStore(mongo.db),
      };
    }
  }
}

/** The store's readiness: a round trip to the database (memory is always there). */
function storeCheck(config: HostConfig, overrides: CompositionOverrides): Promise<ReadinessCheck> {
  const { mongo, postgres } = overrides;
  if (config.store === 'postgres' && postgres !== undefined) return probe('store', () => postgres.pool.query('SELECT 1'));
  if (config.store === 'mongodb' && mongo !== undefined) return probe('store', () => mongo.db.command({ ping: 1 }));
  return Promise.resolve({ name: 'store', ok: true });
}

/** A clock's `now` as a function (resolved once, not per call). */
function clockOf(clock: Clock): () => number {
  return () => clock.now();
}

/** Binds the node-facing adapters: the chain gateway, the block source and the energy providers. */
function bindChain(container: Container, config: HostConfig, overrides: CompositionOverrides): void {
  const apiKey = config.tronApiKey === null ? {} : { apiKey: config.tronApiKey };
  const solidity = config.tronSolidityHost === null ? {} : { solidityHost: config.tronSolidityHost };
  // The workflows' fallbacks: the TRON_FULL_HOSTS entries other than TRON_FULL_HOST (compared as parsed URLs, so a
  // trailing slash or a case difference does not make the node its own fallback), in their order.
  const same = (a: string, b: string): boolean => new URL(a).href.replace(/\/+$/, '') === new URL(b).href.replace(/\/+$/, '');
  const fallbackNodes = config.scanNodes.filter((n) => !same(n.fullHost, config.tronFullHost))
    .map((n) => ({ fullHost: n.fullHost, ...(n.solidityHost === null ? {} : { solidityHost: n.solidityHost }) }));
  const gateway = (ctx: ResolutionContext, perBlock: boolean): TronWebChainGateway => {
    const metrics = ctx.get(TOKENS.Metrics);
    return new TronWebChainGateway({
      fullHost: config.tronFullHost, usdtContract: config.usdtContract, ...apiKey, ...solidity,
      ...(fallbackNodes.length === 0 ? {} : { fallbackNodes }),
      now: clockOf(ctx.get(TOKENS.Clock)),
      onNodeFailure: (node) => metrics.chainNodeFailure(node),
      onCall: (path) => metrics.nodeCall(path, workflowCallPurpose(path)),
      // The head and block-stable state once per block, shared by every workflow; the scanner's newer blocks end it.
      ...(perBlock ? {
        blockCacheMs: config.chainBlockMs, tip: () => ctx.get(TOKENS.BlockReceipts).newestBlock(),
        recent: () => ctx.get(TOKENS.BlockReceipts).newestHead(config.chainBlockMs), referenceReuseMs: 10 * config.chainBlockMs,
        solidified: () => ctx.get(TOKENS.BlockReceipts).newestSolidified(),
      } : {}),
      ...(config.tronProTierKey === null ? {} : { proTierKey: config.tronProTierKey }),
      ...(config.tronProTierHost === null ? {} : { proTierHost: config.tronProTierHost }),
      // A local devnet answers in milliseconds or not at all; a public node may be slow.
      ...(config.chain === 'devnet' ? { timeoutMs: 5_000 } : {}),
    });
  };
  // The API's reads (a balance refresh, readiness, a withdrawal's checks) ask the node each time.
  container.bind(TOKENS.Chain).toDynamicValue((ctx) => ctx.get(TOKENS.Metrics).meterChain(overrides.chain ?? gateway(ctx, false)));
  // The worker's workflows read once per block, shared (issue #27, #39): a node client of their own behind the
  // per-block reads; the scanner's newer blocks end them.
  container.bind(TOKENS.WorkflowChain).toDynamicValue((ctx) => {
    if (overrides.chain !== undefined) return ctx.get(TOKENS.Chain);
    const tip = (): number | null => ctx.get(TOKENS.BlockReceipts).newestBlock();
    // The scanner's fresh head gives the chain's time: the factor and the prices then stand until the next maintenance.
    const chainTime = (): number | null => ctx.get(TOKENS.BlockReceipts).newestHead(config.chainBlockMs)?.timestamp ?? null;
    const reads = new CachingChainGateway(gateway(ctx, true), { blockMs: config.chainBlockMs, now: clockOf(ctx.get(TOKENS.Clock)), tip, chainTime });
    return ctx.get(TOKENS.Metrics).meterChain(reads);
  });
  container.bind(TOKENS.BlockSource).toDynamicValue((ctx) => {
    const metrics = ctx.get(TOKENS.Metrics);
    return new TronBlockSource({
      nodes: config.scanNodes.map((n) => ({ fullHost: n.fullHost, ...(n.solidityHost === null ? {} : { solidityHost: n.solidityHost }) })),
      ...apiKey,
      onNodeFailure: (node) => metrics.chainNodeFailure(node),
      onCall: (path) => metrics.nodeCall(path, 'scan'),
      ...(config.scanNodeDailyCalls === null ? {} : { budget: { calls: config.scanNodeDailyCalls, windowMs: 86_400_000 } }),
      ...(config.chain === 'devnet' ? { timeoutMs: 5_000 } : {}),
    });
  });
  container.bind(TOKENS.EnergyProviders).toDynamicValue((ctx) => {
    let rental: EnergyProvider | null = overrides.rentalProvider ?? null;
    if (rental === null && config.rentalProviders.length > 0) {
      const cap = config.energyRentalMaxPriceSun === null ? {} : { maxPriceSun: config.energyRentalMaxPriceSun };
      const sources = config.rentalProviders.map((p) => rentalSource(p, config, ctx.get(TOKENS.Clock)));
      rental = new RentalMarketEnergyProvider(sources, cap);
    }
    return { self: new SelfDelegationEnergyProvider(ctx.get(TOKENS.WorkflowChain)), rental };
  });
}

/**
 * The fee check before a withdrawal is recorded (issue #34): the worker's fee plan for a withdrawal from a
 * sub-address, under the collections' energy sources and burn settings (the worker funds withdrawals with those).
 */
function withdrawalFeesOf(ctx: ResolutionContext, config: HostConfig, stores: Pick<CoreDeps, 'wallets'>): WithdrawalFeeCheck {
  const energy = ctx.get(TOKENS.EnergyProviders);
  return plannedWithdrawalFeeCheck({
    chain: ctx.get(TOKENS.Chain), clock: ctx.get(TOKENS.Clock), wallets: stores.wallets, cipher: ctx.get(TOKENS.Cipher),
    energy: { self: energy.self, rental: energy.rental ?? undefined },
  }, { burnEnabled: config.energyBurn, ...(config.energyBurnMaxSun === null ? {} : { maxBurnSun: config.energyBurnMaxSun }) });
}

/**
 * The energy check before a collection is made (issue #34): the worker's PENDING planner under the configured energy
 * sources and burn settings (those compose-worker gives the workflows), so no task is made that can only fail.
 */
function sweepCheckOf(ctx: ResolutionContext, config: HostConfig, stores: Pick<CoreDeps, 'wallets'>): SweepCheck {
  const energy = ctx.get(TOKENS.EnergyProviders);
  return plannedSweepCheck({
    chain: ctx.get(TOKENS.Chain), clock: ctx.get(TOKENS.Clock), wallets: stores.wallets, cipher: ctx.get(TOKENS.Cipher),
    energy: { self: energy.self, rental: energy.rental ?? undefined },
  }, collectionStepSettings({ burnEnabled: config.energyBurn, ...(config.energyBurnMaxSun === null ? {} : { maxBurnSun: config.energyBurnMaxSun }) }));
}

/** One configured rental provider's adapter (the market applies the price cap; each adapter checks it too). */
function rentalSource(p: RentalProviderConfig, config: HostConfig, clock: Clock): RentalEnergySource {
  const common = {
    baseUrl: p.url, ...(config.chain === 'devnet' ? { timeoutMs: 5_000 } : {}),
    ...(config.energyRentalMaxPriceSun === null ? {} : { maxPriceSun: config.energyRentalMaxPriceSun }),
  };
  return p.kind === 'tronsave'
    ? new TronSaveEnergyProvider({ ...common, apiKey: p.apiKey })
    : new ItrxEnergyProvider({ ...common, apiKey: p.apiKey, apiSecret: p.apiSecret, clock });
}

/**
 * Builds the inversify container from a validated configuration: every port bound with a factory to the adapter the
 * configuration selects, then the use cases and the API host on top. Nothing connects until first resolved.
 * STORE=postgres needs `overrides.postgres`, STORE=mongodb `overrides.mongo` (use {@link openComposition}, which opens them).
 */
export function composeContainer(config: HostConfig, overrides: CompositionOverrides = {}): Composition {
  const missing = missingConnection(config, overrides);
  if (missing !== null) throw missing;
  const container = new Container({ defaultScope: 'Singleton' });
  const adminToken = config.adminToken ?? `adm_${randomBytes(32).toString('base64url')}`;
  const ephemeralKey = config.keyEncryptionKey === null;
  let redis: Redis | null = null;
  const redisClient = (): Redis => (redis ??= createRedisClient(config.redisUrl ?? ''));

  container.bind(TOKENS.Config).toConstantValue(config);
  container.bind(TOKENS.Logger).toDynamicValue(() => overrides.logger ?? createServiceLogger(config));
  // Process-level metrics (event loop, memory) only where a metrics server will expose them.
  container.bind(TOKENS.Metrics).toDynamicValue(() => new CustodyMetrics(serviceName(config.role), {
    defaults: config.metricsPort !== null,
  }));
  container.bind(TOKENS.Clock).toDynamicValue(() => overrides.clock ?? new SystemClock());
  container.bind(TOKENS.BlockReceipts).toDynamicValue((ctx) => new BlockReceipts(ctx.get(TOKENS.Clock)));
  container.bind(TOKENS.Stores).toDynamicValue((ctx) => storeAdapters(config, overrides, ctx.get(TOKENS.Clock)));
  container.bind(TOKENS.Ids).toDynamicValue((ctx) => ctx.get(TOKENS.Stores).ids);
  container.bind(TOKENS.Idempotency).toDynamicValue((ctx) => ctx.get(TOKENS.Metrics).meterIdempotency(ctx.get(TOKENS.Stores).idempotency));
  container.bind(TOKENS.Outbox).toDynamicValue((ctx) => ctx.get(TOKENS.Stores).outbox);
  container.bind(TOKENS.ScanCursors).toDynamicValue((ctx) => ctx.get(TOKENS.Stores).scanCursors);
  container.bind(TOKENS.Hasher).toDynamicValue(() => overrides.hasher ?? new NodeSecretHasher());
  container.bind(TOKENS.Cipher).toDynamicValue(() => AesGcmKeyCipher.fromConfig(config.keyEncryptionKey ?? randomBytes(32).toString('base64')));
  container.bind(TOKENS.Mailer).toDynamicValue(() => overrides.mailer
    ?? (config.mail.kind === 'smtp' ? new SmtpMailer({ url: config.mail.url, from: config.mail.from }) : new ConsoleMailer()));
  container.bind(TOKENS.Dns).toDynamicValue(() => overrides.dns ?? new NodeDnsResolver());
  container.bind(TOKENS.Transport).toDynamicValue((ctx) => overrides.transport
    ?? new HttpWebhookTransport({ resolver: ctx.get(TOKENS.Dns), allowLocal: config.webhookAllowLocal }));
  container.bind(TOKENS.Assets).toDynamicValue(() => createAssetRegistry({ usdtContract: config.usdtContract }));
  bindChain(container, config, overrides);
  container.bind(TOKENS.AddressLock).toDynamicValue((ctx) => ctx.get(TOKENS.Metrics).meterLock(config.locks === 'redis'
    ? new RedisAddressLock(redisClient()) : new MemoryAddressLock({ clock: ctx.get(TOKENS.Clock) })));
  container.bind(TOKENS.RateLimiter).toDynamicValue((ctx) => (config.locks === 'redis'
    ? new RedisRateLimiter(redisClient()) : new MemoryRateLimiter({ clock: ctx.get(TOKENS.Clock) })));
  container.bind(TOKENS.CoreDeps).toDynamicValue((ctx): CoreDeps => {
    const { idempotency: _idempotency, scanCursors: _cursors, operatorStatus: _status, ...stores } = ctx.get(TOKENS.Stores);
    return {
      ...stores, clock: ctx.get(TOKENS.Clock), hasher: ctx.get(TOKENS.Hasher), cipher: ctx.get(TOKENS.Cipher), totp: new OtpauthTotpGenerator(),
      mailer: ctx.get(TOKENS.Mailer), dns: ctx.get(TOKENS.Dns), transport: ctx.get(TOKENS.Transport),
      addressLock: ctx.get(TOKENS.AddressLock), chain: ctx.get(TOKENS.Chain), assets: ctx.get(TOKENS.Assets),
      ...(overrides.energyCheck === false ? {} : { sweepCheck: sweepCheckOf(ctx, config, stores) }),
      withdrawalFees: withdrawalFeesOf(ctx, config, stores),
      settings: {
        allowLocalWebhooks: config.webhookAllowLocal, allowListDelayMs: config.allowListDelayMs, policyChangeDelayMs: config.policyChangeDelayMs, defaultSubAddressPlan: config.defaultSubAddressPlan,
      },
    };
  });
  container.bind(TOKENS.Application).toDynamicValue((ctx) => createApplication(ctx.get(TOKENS.CoreDeps)));
  container.bind(TOKENS.Readiness).toDynamicValue((ctx) => async () => {
    const chain = ctx.get(TOKENS.Chain);
    const checks = [probe('chain', () => chain.head())];
    checks.push(storeCheck(config, overrides));
    // Where the balance scanner runs in this process (npm run serve): not ready once it stopped for another chain.
    const stopped = ctx.get(TOKENS.Metrics).scannerChainMismatch();
    if (stopped !== undefined) checks.push(Promise.resolve({ name: 'scanner-chain', ok: stopped === null }));
    checks.push(storeChainCheck(ctx.get(TOKENS.Stores).scanCursors, ctx.get(TOKENS.BlockSource)));
    if (config.locks === 'redis') checks.push(probe('redis', () => redisClient().ping()));
    return Promise.all(checks);
  });
  container.bind(TOKENS.ApiHost).toDynamicValue((ctx) => createApiHost({
    app: ctx.get(TOKENS.Application), rateLimiter: ctx.get(TOKENS.RateLimiter), idempotency: ctx.get(TOKENS.Idempotency),
    unitOfWork: ctx.get(TOKENS.Stores).uow,
    adminToken, logger: ctx.get(TOKENS.Logger), readiness: ctx.get(TOKENS.Readiness), trustedProxyHops: config.trustedProxyHops,
    consoleIdleMs: config.consoleIdleMs,
    now: clockOf(ctx.get(TOKENS.Clock)),
    operatorStatus: ctx.get(TOKENS.Stores).operatorStatus,
    // Resolved on the first request, not on each (the container lookup is per-request work with nothing to gain).
    observe: lazyObserver(() => ctx.get(TOKENS.Metrics)),
    ...(overrides.rateLimits === undefined ? {} : { rateLimits: overrides.rateLimits }),
  }));

  return {
    container, adminToken, ephemeralKey,
    close: async () => {
      if (redis !== null) await redis.quit().catch(() => undefined);
    },
  };
}

/**
 * With CHAIN=devnet and no USDT_CONTRACT, the devnet's own USDT contract (from its /sim/info): mainnet's address does
 * not exist on a devnet. When the devnet does not answer, the configuration is kept and readiness reports the chain.
 */
async function withDevnetUsdt(config: HostConfig): Promise<HostConfig> {
  if (config.chain !== 'devnet' || config.usdtContract !== MAINNET_USDT_CONTRACT) return config;
  try {
    const response = await fetch(`${config.tronFullHost.replace(/\/+$/, '')}/sim/info`, { signal: AbortSignal.timeout(2_000) });
    const usdt = ((await response.json()) as { usdt?: { base58?: unknown } }).usdt?.base58;
    return typeof usdt === 'string' && /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(usdt) ? { ...config, usdtContract: usdt } : config;
  } catch {
    return config;
  }
}

/**
 * composeContainer after opening what the configuration needs up front: the PostgreSQL pool (DATABASE_POOL_SIZE
 * connections, pending migrations applied) for STORE=postgres, the MongoDB connection (indexes ensured) for
 * STORE=mongodb, and with CHAIN=devnet the devnet's USDT contract unless USDT_CONTRACT is set. A connection failure
 * is a ConfigError naming DATABASE_URL or MONGODB_URL, without the password; close() also closes the connection.
 */
export async function openComposition(given: HostConfig, overrides: CompositionOverrides = {}): Promise<Composition> {
  const config = await withDevnetUsdt(given);
  const opened = await openStore(config, overrides);
  if (opened === null) return composeContainer(config, overrides);
  const composition = composeContainer(config, { ...overrides, ...opened.overrides });
  return {
    ...composition,
    close: async () => {
      await composition.close();
      await opened.close();
    },
  };
}

/** The connection a durable store needs and the composition has not been given; null when there is none to open. */
async function openStore(
  config: HostConfig, overrides: CompositionOverrides,
): Promise<{ overrides: CompositionOverrides; close(): Promise<void> } | null> {
  if (config.store === 'postgres' && overrides.postgres === undefined) {
    const url = config.databaseUrl ?? '';
    let connection: PostgresConnection;
    try {
      connection = await connectPostgres(url, { poolSize: config.databasePoolSize });
    } catch (error) {
      throw new ConfigError('DATABASE_URL', `cannot be used: ${withoutDatabasePassword((error as Error).message, url)}`);
    }
    return { overrides: { postgres: connection }, close: () => connection.close() };
  }
  if (config.store === 'mongodb' && overrides.mongo === undefined) {
    let connection: MongoConnection;
    try {
      connection = await connectMongo(config.mongodbUrl, config.mongodbDb === null ? {} : { dbName: config.mongodbDb });
    } catch (error) {
      // connectMongo's message already redacts the password.
      throw new ConfigError('MONGODB_URL', `cannot be used: ${(error as Error).message}`);
    }
    return { overrides: { mongo: connection }, close: () => connection.close() };
  }
  return null;
}

/** The HTTP request observer of the metrics, resolved once on first use. */
function lazyObserver(metrics: () => CustodyMetrics): RequestObserver {
  let resolved: CustodyMetrics | undefined;
  return (method, route, status, seconds) => (resolved ??= metrics()).httpRequest(method, route, status, seconds);
}
