/**
 * The use cases on a PostgreSQL store, for tests of what lands in it (the audit log's atomicity, decision 144): the
 * real stores, scrypt at test cost, the real AES-GCM cipher, a ManualClock, a RecordingMailer and the devnet gateway.
 * `auditLog` may wrap the store's log (a failing or dying append).
 */
import { randomBytes } from 'node:crypto';
import { createApplication, type Application } from '../../core/application/index.js';
import { RecordingWebhookTransport } from '../../core/application/testing/recording-webhook-transport.js';
import { StaticDnsResolver } from '../../core/application/testing/static-dns-resolver.js';
import { createAssetRegistry } from '../../core/domain/assets.js';
import type { AuditLog } from '../../core/ports/audit-log.port.js';
import { ManualClock, MemoryAddressLock, RecordingMailer } from '../../adapters/memory/index.js';
import { AesGcmKeyCipher, NodeSecretHasher, OtpauthTotpGenerator, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { createDevnetChainGateway, type DevnetEndpoint } from '../../adapters/tron/index.js';
import { createPostgresAdapters, type PostgresAdapters } from '../../adapters/postgres/create-postgres-adapters.js';
import type { PostgresConnection } from '../../adapters/postgres/pg-connection.js';

/** The assembled application and the parts a test inspects. */
export interface PgTestApplication {
  readonly app: Application;
  readonly clock: ManualClock;
  readonly mailer: RecordingMailer;
  readonly stores: PostgresAdapters;
}

export function buildPgTestApplication(
  connection: Pick<PostgresConnection, 'pool'>, devnet: DevnetEndpoint, wrapAuditLog: (log: AuditLog) => AuditLog = (log) => log,
): PgTestApplication {
  const clock = new ManualClock();
  const stores = createPostgresAdapters({ connection, clock });
  const mailer = new RecordingMailer();
  const app = createApplication({
    clock, ids: stores.ids, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
    cipher: AesGcmKeyCipher.fromConfig(randomBytes(32).toString('base64')), totp: new OtpauthTotpGenerator(), mailer,
    dns: new StaticDnsResolver({ 'hooks.example.com': ['93.184.216.34'] }), transport: new RecordingWebhookTransport(), risk: stores.risk,
    addressLock: new MemoryAddressLock({ clock }), chain: createDevnetChainGateway(devnet), assets: createAssetRegistry({ usdtContract: devnet.usdtAddress }),
    accounts: stores.accounts, sessions: stores.sessions, subscriptions: stores.subscriptions, apiTokens: stores.apiTokens,
    wallets: stores.wallets, balances: stores.balances, deposits: stores.deposits, commands: stores.commands, tasks: stores.tasks,
    cashierTokens: stores.cashierTokens, developerConfigs: stores.developerConfigs, deliveries: stores.deliveries, outbox: stores.outbox,
    uow: stores.uow, auditLog: wrapAuditLog(stores.auditLog), withdrawalPolicies: stores.withdrawalPolicies,
  });
  return { app, clock, mailer, stores };
}

/** The store's audit log with a hook before each append and after each successful one. */
export function hookedAuditLog(log: AuditLog, hooks: { readonly beforeAppend?: () => void; readonly afterAppend?: () => void }): AuditLog {
  return {
    head: (userId) => log.head(userId),
    insert: async (entry) => {
      hooks.beforeAppend?.();
      const written = await log.insert(entry);
      if (written) hooks.afterAppend?.();
      return written;
    },
    list: (userId, page) => log.list(userId, page),
    readChain: (userId, afterSeq, limit) => log.readChain(userId, afterSeq, limit),
    listAccounts: (afterUserId, limit) => log.listAccounts(afterUserId, limit),
  };
}
