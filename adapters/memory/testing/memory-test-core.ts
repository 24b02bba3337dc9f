/**
 * The use cases assembled for tests: memory stores, a ManualClock, a RecordingMailer, the real scrypt hasher at test
 * cost, the real AES-GCM cipher, and the real TRON gateway against an in-process devnet (blocks only when mined).
 * Lives outside core/ because it wires adapters; core/application/testing holds the core-only doubles it uses.
 */
import { randomBytes } from 'node:crypto';
import { createApplication, type Application, type CoreDeps, type CoreSettings } from '../../../core/application/index.js';
import { RecordingWebhookTransport } from '../../../core/application/testing/recording-webhook-transport.js';
import { StaticDnsResolver } from '../../../core/application/testing/static-dns-resolver.js';
import { createAssetRegistry } from '../../../core/domain/assets.js';
import type { ChainGateway } from '../../../core/ports/chain-gateway.port.js';
import { AesGcmKeyCipher, NodeSecretHasher, OtpauthTotpGenerator, TEST_SCRYPT_COST } from '../../node/index.js';
import { createDevnetChainGateway, type DevnetEndpoint } from '../../tron/index.js';
import { startDevnet, type Devnet } from '../../tron-devnet/index.js';
import { createMemoryAdapters, type MemoryAdapters } from '../create-memory-adapters.js';
import { ManualClock } from '../manual-clock.js';
import { MemoryAddressLock } from '../memory-address-lock.js';
import { RecordingMailer } from '../recording-mailer.js';

/** One assembled application and every part a test may drive or inspect. */
export interface TestCore {
  readonly app: Application;
  readonly clock: ManualClock;
  readonly mailer: RecordingMailer;
  readonly stores: MemoryAdapters;
  readonly addressLock: MemoryAddressLock;
  readonly dns: StaticDnsResolver;
  readonly transport: RecordingWebhookTransport;
  readonly chain: ChainGateway;
  readonly devnet: Devnet;
  /** The mailed code reader for core/application/testing/user-journeys. */
  readonly readCode: (email: string) => string | undefined;
}

/** Options of startTestDevnet / buildTestCore. */
export interface TestCoreOptions {
  readonly settings?: Partial<CoreSettings>;
  /** Replaces the devnet gateway (e.g. a wrapper that fails on demand); the devnet still runs. */
  readonly chain?: (devnet: Devnet) => ChainGateway;
}

/** Starts a devnet in manual-block mode on a free loopback port; close it after the file. */
export function startTestDevnet(): Promise<Devnet> {
  return startDevnet({ port: 0, blockMs: 0, seed: 'application-tests' });
}

/** The store ports the application takes: the memory adapters' members, or another store's of the same names. */
export type TestStores = Pick<CoreDeps,
  'ids' | 'risk' | 'accounts' | 'sessions' | 'subscriptions' | 'apiTokens' | 'wallets' | 'balances' | 'deposits' | 'commands'
  | 'tasks' | 'cashierTokens' | 'developerConfigs' | 'deliveries' | 'outbox' | 'uow' | 'auditLog' | 'withdrawalPolicies' | 'ledger'>;

/** The parts around the stores that a test wires, and drives or inspects. */
export interface TestParts {
  readonly clock: ManualClock;
  readonly mailer: RecordingMailer;
  readonly addressLock: MemoryAddressLock;
  readonly dns: StaticDnsResolver;
  readonly transport: RecordingWebhookTransport;
  readonly chain: ChainGateway;
}

/**
 * The application on `stores` (any store's adapters) and the test parts: scrypt at test cost, a fresh AES-GCM key,
 * the real TOTP generator, the devnet's USDT.
 */
export function testApplication(devnet: DevnetEndpoint, stores: TestStores, parts: TestParts, settings?: Partial<CoreSettings>): Application {
  return createApplication({
    clock: parts.clock, ids: stores.ids, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
    cipher: AesGcmKeyCipher.fromConfig(randomBytes(32).toString('base64')), totp: new OtpauthTotpGenerator(), mailer: parts.mailer,
    dns: parts.dns, transport: parts.transport, risk: stores.risk, addressLock: parts.addressLock, chain: parts.chain,
    assets: createAssetRegistry({ usdtContract: devnet.usdtAddress }),
    accounts: stores.accounts, sessions: stores.sessions, subscriptions: stores.subscriptions, apiTokens: stores.apiTokens,
    wallets: stores.wallets, balances: stores.balances, deposits: stores.deposits, commands: stores.commands, tasks: stores.tasks,
    cashierTokens: stores.cashierTokens, developerConfigs: stores.developerConfigs, deliveries: stores.deliveries, outbox: stores.outbox,
    uow: stores.uow, auditLog: stores.auditLog, withdrawalPolicies: stores.withdrawalPolicies, ledger: stores.ledger,
    ...(settings === undefined ? {} : { settings }),
  });
}

/** The test parts buildTestCore uses, on a running devnet. */
export function testParts<D extends DevnetEndpoint>(devnet: D, chain?: (devnet: D) => ChainGateway): TestParts {
  const clock = new ManualClock();
  return {
    clock, mailer: new RecordingMailer(), addressLock: new MemoryAddressLock({ clock }),
    dns: new StaticDnsResolver({ 'hooks.example.com': ['93.184.216.34'], 'intranet.example.com': ['10.0.0.7'] }),
    transport: new RecordingWebhookTransport(), chain: chain?.(devnet) ?? createDevnetChainGateway(devnet),
  };
}

/** Fresh stores, clock and mailer on a running devnet: cheap, so every test can take its own. */
export function buildTestCore(devnet: Devnet, options: TestCoreOptions = {}): TestCore {
  const parts = testParts(devnet, options.chain);
  const stores = createMemoryAdapters({ clock: parts.clock });
  const app = testApplication(devnet, stores, parts, options.settings);
  return { app, ...parts, stores, devnet, readCode: (email) => parts.mailer.lastCodeFor(email) };
}
