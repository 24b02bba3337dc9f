/**
 * The use cases assembled for tests: memory stores, a ManualClock, a RecordingMailer, the real scrypt hasher at test
 * cost, the real AES-GCM cipher, and the real TRON gateway against an in-process devnet (blocks only when mined).
 * Lives outside core/ because it wires adapters; core/application/testing holds the core-only doubles it uses.
 */
import { randomBytes } from 'node:crypto';
import { createApplication, type Application, type CoreSettings } from '../../../core/application/index.js';
import { RecordingWebhookTransport } from '../../../core/application/testing/recording-webhook-transport.js';
import { StaticDnsResolver } from '../../../core/application/testing/static-dns-resolver.js';
import { createAssetRegistry } from '../../../core/domain/assets.js';
import type { ChainGateway } from '../../../core/ports/chain-gateway.port.js';
import { AesGcmKeyCipher, NodeSecretHasher, OtpauthTotpGenerator, TEST_SCRYPT_COST } from '../../node/index.js';
import { createDevnetChainGateway } from '../../tron/index.js';
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

/** Fresh stores, clock and mailer on a running devnet: cheap, so every test can take its own. */
export function buildTestCore(devnet: Devnet, options: TestCoreOptions = {}): TestCore {
  const clock = new ManualClock();
  const mailer = new RecordingMailer();
  const stores = createMemoryAdapters({ clock });
  const addressLock = new MemoryAddressLock({ clock });
  const dns = new StaticDnsResolver({ 'hooks.example.com': ['93.184.216.34'], 'intranet.example.com': ['10.0.0.7'] });
  const transport = new RecordingWebhookTransport();
  const chain = options.chain?.(devnet) ?? createDevnetChainGateway(devnet);
  const app = createApplication({
    clock, ids: stores.ids, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
    cipher: AesGcmKeyCipher.fromConfig(randomBytes(32).toString('base64')), totp: new OtpauthTotpGenerator(), mailer, dns, transport, risk: stores.risk,
    addressLock, chain, assets: createAssetRegistry({ usdtContract: devnet.usdtAddress }),
    accounts: stores.accounts, sessions: stores.sessions, subscriptions: stores.subscriptions, apiTokens: stores.apiTokens,
    wallets: stores.wallets, balances: stores.balances, deposits: stores.deposits, commands: stores.commands, tasks: stores.tasks,
    cashierTokens: stores.cashierTokens, developerConfigs: stores.developerConfigs, deliveries: stores.deliveries, outbox: stores.outbox,
    uow: stores.uow, auditLog: stores.auditLog, withdrawalPolicies: stores.withdrawalPolicies,
    ...(options.settings === undefined ? {} : { settings: options.settings }),
  });
  return { app, clock, mailer, stores, addressLock, dns, transport, chain, devnet, readCode: (email) => mailer.lastCodeFor(email) };
}
