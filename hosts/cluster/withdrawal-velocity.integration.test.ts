/**
 * Issue #26, attack-style: the velocity limits hold exactly with 20 parallel withdrawals across two API processes
 * (hosts/cluster/api-process.ts) on one PostgreSQL database. Each process has its own in-memory address mutex and
 * rate limiter (LOCKS=memory), so nothing but the store stands between the racing requests: the check-and-count of
 * ChangeSet.velocity, under the user's lock inside the transaction that records the command. Per user: max_count_1h 7
 * lets exactly 7 of 20 through; max_amount_24h of 7 units lets exactly 7 of 20 one-unit withdrawals through; an
 * approval_threshold of 7 units lets exactly 7 of 20 one-unit withdrawals go without an approval (issue #35).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { startDevnet } from '../../adapters/tron-devnet/index.js';
import { createTestDatabase } from '../../contracts-tests/harness/postgres.js';
import '../../contracts-tests/harness/with-postgres.js';
import { connectPostgres } from '../../adapters/postgres/index.js';
import { startProcess, type ClusterProcess } from './cluster-processes.js';
import { apiNode, signUpOverNodes, type Answer, type ApiNode, type ClusterUser } from './cluster-fixture.js';

const postgresUrl = inject('postgresUrl');
const missing = postgresUrl === '' ? `no PostgreSQL: ${inject('postgresSkipReason')}` : null;
if (missing !== null) console.warn(`SKIPPED: withdrawal velocity across API processes: ${missing}`);

/** 20 withdrawals at once, one per sub-address, alternating between the two API processes. */
async function storm(nodes: readonly ApiNode[], user: ClusterUser, to: string, symbol: 'TRX' | 'USDT'): Promise<Answer[]> {
  return Promise.all(user.subs.map((from, i) => nodes[i % nodes.length]!.call('POST', '/api/transfers', user.session,
    { from_address: from, to_address: to, asset_symbol: symbol, amount: '1000000' }, { 'idempotency-key': randomUUID() })));
}

function tally(answers: readonly Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[`${a.status} ${a.code}`] = (counts[`${a.status} ${a.code}`] ?? 0) + 1;
  return counts;
}

describe.skipIf(missing !== null)('withdrawal velocity limits across two API processes on PostgreSQL', () => {
  it('20 parallel withdrawals: exactly the allowed number succeed, by count and by amount', async () => {
    const database = await createTestDatabase(postgresUrl, 'velocity');
    const devnet = await startDevnet({ port: 0, blockMs: 1_000, seed: 'velocity-processes', genesisTime: Math.floor(Date.now() / 3_000) * 3_000 });
    const processes: ClusterProcess[] = [];
    try {
      const env = {
        NODE_ENV: 'production', STORE: 'postgres', DATABASE_URL: database.url, DATABASE_POOL_SIZE: '10', LOCKS: 'memory', CHAIN: 'devnet',
        TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.usdtAddress, PORT: '0', METRICS_PORT: '0',
        KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), ADMIN_TOKEN: `adm_${randomBytes(24).toString('hex')}`,
      };
      for (const i of [1, 2]) processes.push(startProcess(`api-${i}`, 'hosts/cluster/api-process.ts', env));
      const urls = await Promise.all(processes.map((p) => p.waitFor(/^api listening (\S+)$/, 60_000)));
      const nodes = urls.map((m) => apiNode(m[1]!));
      const codeFor = async (email: string): Promise<string> => {
        const pattern = new RegExp(`verification code for ${email.replace(/[.+]/g, '\\$&')}: (\\S+)`);
        return (await Promise.any(processes.map((p) => p.waitFor(pattern, 10_000))))[1]!;
      };
      const to = devnet.info().witnesses[0]!;
      const [byCount, byAmount, bySplit] = [
        await signUpOverNodes(nodes, codeFor, 20), await signUpOverNodes(nodes, codeFor, 20), await signUpOverNodes(nodes, codeFor, 20),
      ];
      const put = async (user: ClusterUser, limits: unknown) => {
        const answer = await nodes[0]!.call('PUT', '/api/policies/withdrawal', user.session, { limits });
        expect(answer.status, JSON.stringify(answer.data)).toBe(200);
      };
      await put(byCount, { TRX: { max_count_1h: 7 } });
      await put(byAmount, { USDT: { max_amount_24h: '7000000' } });
      // Issue #35: the approval threshold counts the 24 h sum, judged in the same locked check: of 20 parallel parts of
      // 1 TRX under a threshold of 7 TRX, exactly 7 go without an approval (no approver here: the rest are refused).
      await put(bySplit, { TRX: { approval_threshold: '7000000' } });

      const countAnswers = await storm(nodes, byCount, to, 'TRX');
      expect(tally(countAnswers)).toEqual({ '201 OK': 7, '422 POLICY-VELOCITY-COUNT-EXCEEDED': 13 });
      const amountAnswers = await storm(nodes, byAmount, to, 'USDT');
      expect(tally(amountAnswers)).toEqual({ '201 OK': 7, '422 POLICY-VELOCITY-AMOUNT-EXCEEDED': 13 });
      const splitAnswers = await storm(nodes, bySplit, to, 'TRX');
      expect(tally(splitAnswers)).toEqual({ '201 OK': 7, '422 POLICY-APPROVAL-UNAVAILABLE': 13 });
      // The store holds exactly the accepted withdrawals.
      const connection = await connectPostgres(database.url, { migrate: false, poolSize: 1 });
      try {
        const { rows } = await connection.pool.query<{ user_id: string; n: number }>(
          'SELECT user_id, count(*)::int AS n FROM commands WHERE type = 2 GROUP BY user_id ORDER BY user_id',
        );
        expect(rows.map((r) => Number(r.n))).toEqual([7, 7, 7]);
      } finally {
        await connection.close();
      }
    } finally {
      await Promise.all(processes.map((p) => p.stop()));
      await devnet.close();
      await database.drop();
    }
  }, 240_000);
});
