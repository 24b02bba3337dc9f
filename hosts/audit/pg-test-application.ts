/**
 * The use cases on a PostgreSQL store, for tests of what lands in it (the audit log's atomicity, decision 144): the
 * real stores, scrypt at test cost, the real AES-GCM cipher, a ManualClock, a RecordingMailer and the devnet gateway.
 * `auditLog` may wrap the store's log (a failing or dying append).
 */
import type { Application } from '../../core/application/index.js';
import type { AuditLog } from '../../core/ports/audit-log.port.js';
import type { ManualClock, RecordingMailer } from '../../adapters/memory/index.js';
import { testApplication, testParts } from '../../adapters/memory/testing/memory-test-core.js';
import type { DevnetEndpoint } from '../../adapters/tron/index.js';
import { createPostgresAdapters, type PostgresAdapters } from '../../adapters/postgres/create-postgres-adapters.js';
import type { PostgresConnection } from '../../adapters/postgres/pg-connection.js';

/** The assembled application and the parts a test inspects. */
export interface PgTestApplication {
  readonly app: Application;
  readonly clock: ManualClock;
  readonly mailer: RecordingMailer;
  readonly stores: PostgresAdapters;
}

/** buildTestCore's application (memory-test-core.ts) on the PostgreSQL stores, its audit log optionally wrapped. */
export function buildPgTestApplication(
  connection: Pick<PostgresConnection, 'pool'>, devnet: DevnetEndpoint, wrapAuditLog: (log: AuditLog) => AuditLog = (log) => log,
): PgTestApplication {
  const parts = testParts(devnet);
  const stores = createPostgresAdapters({ connection, clock: parts.clock });
  const app = testApplication(devnet, { ...stores, auditLog: wrapAuditLog(stores.auditLog) }, parts);
  return { app, clock: parts.clock, mailer: parts.mailer, stores };
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
