/**
 * Issue #26, decision 144, with a real crash: a process requesting a withdrawal on PostgreSQL is SIGKILLed inside the
 * request, once after the command's write and once after its audit entry's, both before the commit. Neither the
 * command nor the entry is left: PostgreSQL rolls back the dead connection's transaction. The same process not killed
 * leaves both. With the entry appended after the action's own commit (before decision 144), the first kill leaves a
 * withdrawal with no audit entry, and this test fails.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { verifyStoredAuditChain } from '../../core/application/audit-verifier.js';
import { subscribeAll, signUp } from '../../core/application/testing/user-journeys.js';
import { startDevnet, type Devnet } from '../../adapters/tron-devnet/index.js';
import { buildPgTestApplication } from './pg-test-application.js';
import { usePgTestStore } from '../../adapters/postgres/testing/pg-test-store.js';
import { nodeArgsFor } from '../../contracts-tests/harness/ts-entry.js';

const TO = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';

/** Runs the child to its end: its exit code or signal, and what it printed. */
function runChild(env: Record<string, string>): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  const child = spawn(process.execPath, nodeArgsFor('hosts/audit/audit-crash-child.ts'), {
    env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, out })));
}

describeWithPostgres('PostgreSQL: a process killed inside an audited request leaves neither the action nor its entry', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'audit_crash');
  let devnet: Devnet;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'audit-crash' });
  });
  afterAll(async () => {
    await devnet.close();
  });

  it('SIGKILL after the withdrawal\'s write, or after its entry\'s: nothing; not killed: both', async () => {
    await open().clear();
    const { app, mailer, stores } = buildPgTestApplication(open().connection, devnet);
    const user = await signUp(app, (e) => mailer.lastCodeFor(e), 'killed@example.com');
    await subscribeAll(app, user.userId);
    const main = (await app.wallets.create(user.userId, { network_code: 'TRON', address_type: 1 })).address;
    // A velocity limit, so the request also takes the user's advisory lock inside the scope.
    await app.withdrawalPolicies.putPolicy(user.userId, { limits: { TRX: { max_count_1h: 5 } } });
    const headBefore = (await stores.auditLog.head(user.userId))!.seq;
    const env = {
      DATABASE_URL: open().url, DEVNET_URL: devnet.url, DEVNET_USDT: devnet.usdtAddress, USER_ID: String(user.userId),
      FROM_ADDRESS: main, TO_ADDRESS: TO,
    };
    const withdrawals = async () => (await open().connection.pool.query('SELECT command_no FROM commands WHERE user_id = $1', [user.userId])).rows;

    for (const point of ['action', 'entry']) {
      const run = await runChild({ ...env, KILL_AT: point });
      expect({ signal: run.signal, dying: run.out.includes(`dying at ${point}`) }, run.out).toEqual({ signal: 'SIGKILL', dying: true });
      expect(await withdrawals(), `killed at ${point}`).toEqual([]);
      expect((await stores.auditLog.head(user.userId))!.seq, `killed at ${point}`).toBe(headBefore);
    }

    const run = await runChild({ ...env, KILL_AT: 'none' });
    expect(run.code, run.out).toBe(0);
    const commandNo = /done (\S+)/.exec(run.out)![1];
    expect(await withdrawals()).toEqual([{ command_no: commandNo }]);
    const added = await stores.auditLog.readChain(user.userId, headBefore, 10);
    expect(added.map((e) => [e.action, e.detail['command_no']])).toEqual([['withdrawal.requested', commandNo]]);
    expect((await verifyStoredAuditChain(stores.auditLog, user.userId)).ok).toBe(true);
  }, 60_000);
});
