/**
 * Issue #37: API processes remember API and session tokens (adapters/postgres/records/cached-tokens.ts), and a token
 * revoked, logged out or ended by a password reset through one API process is refused by the other within 1 s (its
 * LISTEN session hears the change, pg-token-listener.ts). Two API processes (hosts/cluster/api-process.ts) on one
 * PostgreSQL database, Redis for locks and limits, a devnet in this test process.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startDevnet } from '../../adapters/tron-devnet/index.js';
import { createTestDatabase, type PostgresTestDatabase } from '../../contracts-tests/harness/postgres.js';
import '../../contracts-tests/harness/with-redis.js';
import '../../contracts-tests/harness/with-postgres.js';
import { startProcess, type ClusterProcess } from './cluster-processes.js';
import { apiNode, signUpOverNodes, type ApiNode, type ClusterUser } from './cluster-fixture.js';

const redisUrl = inject('redisUrl');
const postgresUrl = inject('postgresUrl');
const missing = postgresUrl === '' ? `no PostgreSQL: ${inject('postgresSkipReason')}`
  : redisUrl === '' ? `no Redis: ${inject('redisSkipReason')}` : null;
if (missing !== null) console.warn(`SKIPPED: token revocation across API processes: ${missing}`);

/** The bound, from the revoking answer to the other process's refusal. */
const WITHIN_MS = 1_000;

describe.skipIf(missing !== null)('token revocation across two API processes on PostgreSQL', () => {
  const processes: ClusterProcess[] = [];
  let database: PostgresTestDatabase;
  let devnet: Awaited<ReturnType<typeof startDevnet>>;
  let a: ApiNode;
  let b: ApiNode;

  beforeAll(async () => {
    database = await createTestDatabase(postgresUrl, 'revocation');
    devnet = await startDevnet({ port: 0, blockMs: 1_000, seed: 'token-revocation' });
    const env = {
      NODE_ENV: 'production', STORE: 'postgres', DATABASE_URL: database.url, DATABASE_POOL_SIZE: '3', LOCKS: 'redis', REDIS_URL: redisUrl,
      CLUSTER_REDIS_PREFIX: `revocation-${randomUUID().slice(0, 8)}:`, CHAIN: 'devnet', TRON_FULL_HOST: devnet.url,
      USDT_CONTRACT: devnet.usdtAddress, PORT: '0', KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ADMIN_TOKEN: `adm_${randomBytes(24).toString('hex')}`,
    };
    for (const i of [1, 2]) processes.push(startProcess(`api-${i}`, 'hosts/cluster/api-process.ts', env));
    const urls = await Promise.all(processes.map((p) => p.waitFor(/^api listening (\S+)$/, 60_000)));
    [a, b] = urls.map((m) => apiNode(m[1]!)) as [ApiNode, ApiNode];
  }, 90_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await devnet?.close();
    await database?.drop();
  });

  /** The code the API processes printed for `email` (ConsoleMailer), the newest of `kind`. */
  const codeFor = (kind: 'verification' | 'password reset') => async (email: string): Promise<string> => {
    const pattern = new RegExp(`^${kind} code for ${email.replace(/[.+]/g, '\\$&')}: (\\S+)$`);
    await Promise.any(processes.map((p) => p.waitFor(pattern, 10_000)));
    const lines = processes.flatMap((p) => p.output).filter((line) => pattern.test(line));
    return pattern.exec(lines.at(-1)!)![1]!;
  };

  /** Uses the token on both processes for 600 ms, so that both remember it (their listeners vouch within 250 ms). */
  async function warm(token: string, path: string): Promise<void> {
    for (let i = 0; i < 4; i++) {
      for (const node of [a, b]) expect((await node.call('GET', path, token)).status).toBe(200);
      await sleep(150);
    }
  }

  /**
   * Milliseconds from now until `node` refuses `token` on `path` with 401 (polled every 100 ms: the user's 60 GETs a
   * minute must last; a 429 comes after authentication, so the token was still taken); Infinity past 3 s.
   */
  async function refusedAfter(node: ApiNode, token: string, path: string): Promise<number> {
    const started = performance.now();
    for (;;) {
      const answer = await node.call('GET', path, token);
      if (answer.status === 401) return performance.now() - started;
      expect([200, 429]).toContain(answer.status);
      if (performance.now() - started > 3_000) return Number.POSITIVE_INFINITY;
      await sleep(100);
    }
  }

  async function login(user: ClusterUser & { email: string; password: string }, node: ApiNode): Promise<string> {
    const answer = await node.call('POST', '/api/auth/login', undefined, { email: user.email, password: user.password });
    expect(answer.status).toBe(200);
    return answer.data.session_token as string;
  }

  /** A user signed up over both processes, with the e-mail it verified (and signUpOverNodes's password). */
  async function signUp(): Promise<ClusterUser & { email: string; password: string }> {
    let email = '';
    const user = await signUpOverNodes([a, b], (asked) => {
      email = asked;
      return codeFor('verification')(asked);
    }, 0);
    return { ...user, email, password: 'correct horse battery staple' };
  }

  it('a Developer API Token revoked through one process is refused by the other within 1 s', async () => {
    const user = await signUp();
    const balances = `/api/wallets/${user.main}/balances`;
    await warm(user.apiToken, balances);
    const { items } = (await a.call('GET', '/api/api-tokens', user.session)).data;
    expect((await a.call('DELETE', `/api/api-tokens/${items[0].id}`, user.session)).status).toBe(200);
    expect((await a.call('GET', balances, user.apiToken)).status).toBe(401);
    expect(await refusedAfter(b, user.apiToken, balances)).toBeLessThan(WITHIN_MS);
  }, 60_000);

  it('a session logged out, or ended by a password reset, through one process is refused by the other within 1 s', async () => {
    const user = await signUp();
    await warm(user.session, '/api/api-tokens');
    expect((await a.call('POST', '/api/auth/logout', user.session)).status).toBe(200);
    expect(await refusedAfter(b, user.session, '/api/api-tokens')).toBeLessThan(WITHIN_MS);

    const again = await login(user, b);
    await warm(again, '/api/api-tokens');
    expect((await a.call('POST', '/api/auth/password-reset/request', undefined, { email: user.email })).status).toBe(202);
    const code = await codeFor('password reset')(user.email);
    const reset = await a.call('POST', '/api/auth/password-reset/confirm', undefined, { email: user.email, code, new_password: 'another long passphrase 2' });
    expect(reset.status).toBe(200);
    expect(await refusedAfter(b, again, '/api/api-tokens')).toBeLessThan(WITHIN_MS);
  }, 60_000);
});
