import type { ServiceIdentifier } from 'inversify';
import type { Logger } from 'pino';
import type { Application, CoreDeps } from '../../core/application/index.js';
import type { AssetRegistry } from '../../core/domain/assets.js';
import type { AddressLock } from '../../core/ports/address-lock.port.js';
import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import type { Clock } from '../../core/ports/clock.port.js';
import type { DnsResolver } from '../../core/ports/dns-resolver.port.js';
import type { BlockSource } from '../../core/ports/block-source.port.js';
import type { BlockReceipts } from '../../core/application/worker/block-receipts.js';
import type { EnergyProvider } from '../../core/ports/energy-provider.port.js';
import type { EventOutbox } from '../../core/ports/event-outbox.port.js';
import type { ScanCursorStore } from '../../core/ports/scan-cursor-store.port.js';
import type { OperatorStatusStore } from '../../core/ports/operator-status-store.port.js';
import type { IdGenerator } from '../../core/ports/id-generator.port.js';
import type { IdempotencyStore } from '../../core/ports/idempotency-store.port.js';
import type { KeyCipher } from '../../core/ports/key-cipher.port.js';
import type { Mailer } from '../../core/ports/mailer.port.js';
import type { RateLimiter } from '../../core/ports/rate-limiter.port.js';
import type { SecretHasher } from '../../core/ports/secret-hasher.port.js';
import type { WebhookTransport } from '../../core/ports/webhook-transport.port.js';
import type { Ledger } from '../../core/ports/ledger.port.js';
import type { ApiHost } from '../api/api-app.js';
import type { CustodyMetrics } from './metrics.js';
import type { ReadinessProbe } from '../api/routes/system.routes.js';
import type { HostConfig } from './config.js';

/** The store-backed ports of one store (memory or MongoDB): what CoreDeps and the worker take from it. */
export type StoreAdapters = Pick<CoreDeps,
  'ids' | 'accounts' | 'sessions' | 'subscriptions' | 'apiTokens' | 'wallets' | 'balances' | 'deposits' | 'commands' | 'tasks'
  | 'cashierTokens' | 'developerConfigs' | 'deliveries' | 'uow' | 'risk' | 'auditLog' | 'withdrawalPolicies' | 'members'> & {
  readonly outbox: EventOutbox;
  readonly idempotency: IdempotencyStore;
  readonly scanCursors: ScanCursorStore;
  /** What the worker tells the operator console (issue #38 item 2). */
  readonly operatorStatus: OperatorStatusStore;
  /** The books (issue #36). */
  readonly ledger: Ledger;
};

/**
 * The energy sources of a collection: self-delegation from the main address always; the third-party rental when
 * ENERGY_PROVIDER=rental (null otherwise).
 */
export interface EnergyProviders {
  readonly self: EnergyProvider;
  readonly rental: EnergyProvider | null;
}

/** A typed container key: the symbol carries the type of what is bound to it. */
function token<T>(name: string): ServiceIdentifier<T> & symbol {
  return Symbol.for(`custody/${name}`) as ServiceIdentifier<T> & symbol;
}

/** Every binding of the composition root. Only hosts/composition knows which adapter sits behind each. */
export const TOKENS = {
  Config: token<HostConfig>('config'),
  Logger: token<Logger>('logger'),
  Clock: token<Clock>('clock'),
  Ids: token<IdGenerator>('ids'),
  Hasher: token<SecretHasher>('hasher'),
  Cipher: token<KeyCipher>('cipher'),
  Mailer: token<Mailer>('mailer'),
  Dns: token<DnsResolver>('dns'),
  Transport: token<WebhookTransport>('webhook-transport'),
  Chain: token<ChainGateway>('chain'),
  Assets: token<AssetRegistry>('assets'),
  Stores: token<StoreAdapters>('stores'),
  Outbox: token<EventOutbox>('outbox'),
  ScanCursors: token<ScanCursorStore>('scan-cursors'),
  BlockSource: token<BlockSource>('block-source'),
  /** The chain as the worker's workflows read it: once per block, shared (CHAIN_BLOCK_MS; issue #27). */
  WorkflowChain: token<ChainGateway>('workflow-chain'),
  /** The receipts of the blocks this process's scanner reads; its workflows follow their transactions from them. */
  BlockReceipts: token<BlockReceipts>('block-receipts'),
  EnergyProviders: token<EnergyProviders>('energy-providers'),
  AddressLock: token<AddressLock>('address-lock'),
  RateLimiter: token<RateLimiter>('rate-limiter'),
  Idempotency: token<IdempotencyStore>('idempotency'),
  CoreDeps: token<CoreDeps>('core-deps'),
  Application: token<Application>('application'),
  Readiness: token<ReadinessProbe>('readiness'),
  ApiHost: token<ApiHost>('api-host'),
  /** This process's Prometheus metrics (hosts/composition/metrics.ts). */
  Metrics: token<CustodyMetrics>('metrics'),
} as const;
