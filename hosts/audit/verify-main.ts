/**
 * `npm run audit:verify [-- --anchors heads.json]`: checks every account's audit chain in the store (STORE=postgres
 * or mongodb) from its first entry, and prints one JSON line per account (its head: seq and hash) or per broken
 * chain (the first broken entry, and why). With `--anchors`, a file of heads printed by an earlier run
 * ({"<userId>": {"seq", "hash"}}), a chain that no longer holds its noted head (a truncation, a rewritten prefix) is
 * broken too. Exit 0 every chain verifies; 4 a chain is broken (the first broken entry is named on stderr);
 * 1 failed; 2 configuration. docs/operations.md, "The audit log".
 */
import { readFile } from 'node:fs/promises';
import { connectMongo, createMongoAdapters } from '../../adapters/mongodb/index.js';
import { connectPostgres, createPostgresAdapters } from '../../adapters/postgres/index.js';
import { SystemClock } from '../../adapters/node/index.js';
import { verifyAllAuditChains, type AuditChainReport } from '../../core/application/index.js';
import type { AuditLog } from '../../core/ports/audit-log.port.js';
import { ConfigError, loadConfig } from '../composition/config.js';
import { argValues } from '../keys/key-backup-cli.js';
import { parseAnchors } from './anchors.js';

async function openLog(config: ReturnType<typeof loadConfig>): Promise<{ log: AuditLog; close(): Promise<void> }> {
  const clock = new SystemClock();
  if (config.store === 'postgres') {
    const connection = await connectPostgres(config.databaseUrl!, { poolSize: 2 });
    return { log: createPostgresAdapters({ connection, clock }).auditLog, close: () => connection.close() };
  }
  if (config.store === 'mongodb') {
    const connection = await connectMongo(config.mongodbUrl!, config.mongodbDb === null ? {} : { dbName: config.mongodbDb });
    return { log: createMongoAdapters({ connection, clock }).auditLog, close: () => connection.close() };
  }
  throw new ConfigError('STORE', 'must be postgres or mongodb: audit:verify reads a persistent store');
}

try {
  const config = loadConfig(process.env, { mode: 'production', role: 'worker' });
  const anchorsPath = argValues(process.argv.slice(2), 'anchors')[0];
  const anchors = anchorsPath === undefined ? new Map() : parseAnchors(await readFile(anchorsPath, 'utf8'));
  const { log, close } = await openLog(config);
  try {
    let firstBroken: AuditChainReport | null = null;
    const broken = await verifyAllAuditChains(log, (report) => {
      process.stdout.write(`${JSON.stringify(report.ok
        ? { user_id: report.userId, ok: true, entries: report.count, head_seq: report.head.seq, head_hash: report.head.hash }
        : { user_id: report.userId, ok: false, broken_at: report.seq, reason: report.reason })}\n`);
      if (!report.ok && firstBroken === null) firstBroken = report;
    }, anchors);
    if (firstBroken !== null) {
      const first = firstBroken as Extract<AuditChainReport, { ok: false }>;
      process.stderr.write(`audit:verify: ${broken} broken chain(s); first: user ${first.userId}, entry seq ${first.seq} (${first.reason})\n`);
      process.exitCode = 4;
    }
  } finally {
    await close();
  }
} catch (error) {
  process.stderr.write(error instanceof ConfigError ? `${error.message}\n` : `audit:verify failed: ${(error as Error).message}\n`);
  process.exitCode = error instanceof ConfigError ? 2 : 1;
}
