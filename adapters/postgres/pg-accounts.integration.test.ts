import { expect, it } from 'vitest';
import { describeAccountRepositoryContract } from '../../contracts-tests/account-repository.contract.js';
import { describeApiTokenRepositoryContract } from '../../contracts-tests/api-token-repository.contract.js';
import { describeDeveloperConfigRepositoryContract } from '../../contracts-tests/developer-config-repository.contract.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { describeRiskPolicyContract } from '../../contracts-tests/risk-policy.contract.js';
import { describeSessionRepositoryContract } from '../../contracts-tests/session-repository.contract.js';
import { describeSubscriptionRepositoryContract } from '../../contracts-tests/subscription-repository.contract.js';
import { addressOf, aDeveloperConfig, anAccount, anApiToken, MINUTE, T0 } from '../../contracts-tests/support/fixtures.js';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { ManualClock } from '../memory/manual-clock.js';
import { PgAccountRepository } from './pg-account-repository.js';
import { PgApiTokenRepository } from './pg-api-token-repository.js';
import { connectPostgres } from './pg-connection.js';
import { PgDeveloperConfigRepository } from './pg-developer-config-repository.js';
import { PgIdGenerator } from './pg-id-generator.js';
import { PgRiskPolicy } from './pg-risk-policy.js';
import { PgSessionRepository } from './pg-session-repository.js';
import { PgSubscriptionRepository } from './pg-subscription-repository.js';
import { CachedApiTokenRepository, CachedSessionRepository } from '../records/cached-tokens.js';
import { tokenListenerOf } from './pg-token-listener.js';
import { usePgTestStore, type PgTestStore } from './testing/pg-test-store.js';

/** Expensive property runs (each run empties the database): fewer than the suites' default of 50. */
const OPTIONS = { numRuns: 15, concurrency: 50 } as const;

describeWithPostgres('PostgreSQL store: accounts group', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'accounts');

  const fresh = async () => {
    await open().clear();
    const { pool } = open().connection;
    return {
      clock: new ManualClock(), accounts: new PgAccountRepository(pool), sessions: new PgSessionRepository(pool),
      subscriptions: new PgSubscriptionRepository(pool), apiTokens: new PgApiTokenRepository(pool),
      developerConfigs: new PgDeveloperConfigRepository(pool), risk: new PgRiskPolicy(pool), ids: new PgIdGenerator(pool),
    };
  };

  describeAccountRepositoryContract('postgres', fresh, OPTIONS);
  describeSessionRepositoryContract('postgres', fresh, OPTIONS);
  describeSubscriptionRepositoryContract('postgres', fresh, OPTIONS);
  describeApiTokenRepositoryContract('postgres', fresh, OPTIONS);
  // The decorators of createPostgresAdapters (a fresh cache per subject, on the pool's one listener) keep the contracts.
  const freshCached = async () => {
    const subject = await fresh();
    const listener = tokenListenerOf(open().connection.pool);
    return { ...subject, apiTokens: new CachedApiTokenRepository(subject.apiTokens, listener), sessions: new CachedSessionRepository(subject.sessions, listener) };
  };
  describeApiTokenRepositoryContract('postgres, cached', freshCached, OPTIONS);
  describeSessionRepositoryContract('postgres, cached', freshCached, OPTIONS);
  describeDeveloperConfigRepositoryContract('postgres', fresh, OPTIONS);
  describeRiskPolicyContract('postgres', fresh, OPTIONS);

  // Adapter-only: no shared suite runs two processes on one database; two pools are two sets of server sessions.
  it('id sequences from two pools on one database are distinct and dense, from 1, per sequence', async () => {
    const { ids } = await fresh();
    const other = await connectPostgres(open().url, { migrate: false, poolSize: 10 });
    try {
      const second = new PgIdGenerator(other.pool);
      const got = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? ids : second).nextInt('user')));
      expect([...got].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(await second.nextInt('api_token')).toBe(1);
      expect(await ids.nextInt('user')).toBe(41);
    } finally {
      await other.close();
    }
  });

  // Adapter-only: the suites use ASCII addresses; only here does the server's locale (C in the harness, where
  // lower() folds ASCII only) decide which addresses clash.
  it('folds e-mails beyond ASCII the way the other stores do, whatever the server locale', async () => {
    const { accounts } = await fresh();
    expect(await accounts.create(anAccount({ id: 1, email: 'ÉLISE@Example.com', verified: true }))).toBe(true);
    expect(await accounts.create(anAccount({ id: 2, email: 'élise@example.com', verified: true }))).toBe(false);
    expect((await accounts.findByEmail('élise@EXAMPLE.com'))!.id).toBe(1);
  });

  // Adapter-only: the suite never changes an e-mail; the other stores refuse a change onto a taken address as a lost
  // race, and here the unique constraint must not surface as a StoreError instead.
  it('an e-mail change onto another account\'s address is a ConcurrencyConflict and writes nothing', async () => {
    const { accounts } = await fresh();
    await accounts.create(anAccount({ id: 1, email: 'a@example.com', verified: true }));
    await accounts.create(anAccount({ id: 2, email: 'b@example.com', verified: true }));
    await expect(accounts.update(anAccount({ id: 2, email: 'A@example.com', verified: true, version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
    expect((await accounts.findById(2))!).toMatchObject({ email: 'b@example.com', version: 1 });
  });

  // Adapter-only: the suite cannot hold a row lock between another caller's read and its write. The sweep waits on an
  // uncommitted verification, then must re-judge the row and keep it.
  it('the expiry sweep keeps an account verified by a transaction it had to wait for', async () => {
    const { accounts } = await fresh();
    const { pool } = open().connection;
    await accounts.create(anAccount({ id: 1 }));
    const verifier = await pool.connect();
    try {
      await verifier.query('BEGIN');
      await verifier.query('UPDATE accounts SET verified = true, version = 2 WHERE id = 1');
      const sweep = accounts.deleteUnverifiedCreatedBefore(T0 + MINUTE);
      await waitForLockWaiter(pool);
      await verifier.query('COMMIT');
      expect(await sweep).toBe(0);
    } finally {
      verifier.release();
    }
    expect((await accounts.findById(1))!.verified).toBe(true);
  });

  // Adapter-only: the suite's concurrent revokes rarely interleave; here a revoke must wait for another's uncommitted
  // one, and must then report the winner's time, not the one its statement's snapshot saw.
  it('a revoke that waited for another one reports the stored revocation time', async () => {
    const { apiTokens } = await fresh();
    const { pool } = open().connection;
    await apiTokens.create(anApiToken());
    const winner = await pool.connect();
    try {
      await winner.query('BEGIN');
      await winner.query('UPDATE api_tokens SET revoked_at = $1 WHERE id = 1', [T0 + 5]);
      const loser = apiTokens.revoke(1, T0 + 9);
      await waitForLockWaiter(pool);
      await winner.query('COMMIT');
      expect((await loser)!.revokedAt).toBe(T0 + 5);
    } finally {
      winner.release();
    }
  });

  // Adapter-only: the port promises no listing order and the suite sorts it, but every store lists in first-deny order
  // and lets the user entry's reason win over an address's, as the memory store does.
  it('a repeated deny keeps the entry\'s first position; the user entry\'s reason comes first', async () => {
    const { risk } = await fresh();
    await risk.deny({ kind: 'address', value: addressOf(2), reason: null });
    await risk.deny({ kind: 'user', value: '7', reason: 'fraud' });
    await Promise.all([1, 2, 3].map(() => risk.deny({ kind: 'address', value: addressOf(2), reason: 'sanctioned' })));
    expect(await risk.list()).toEqual([
      { kind: 'address', value: addressOf(2), reason: 'sanctioned' }, { kind: 'user', value: '7', reason: 'fraud' },
    ]);
    expect(await risk.check({ userId: 7, operation: 'withdrawal', address: addressOf(2) })).toEqual({ blocked: true, reason: 'fraud' });
  });

  // Adapter-only: the stored representation, which no shared suite can see.
  it('keeps developer minimums as exact decimal strings in JSONB and refuses a JSON number', async () => {
    const { developerConfigs } = await fresh();
    const { pool } = open().connection;
    await developerConfigs.save(aDeveloperConfig({ minCollectAmounts: { TRX: 2n ** 70n + 1n } }));
    const raw = await pool.query(`SELECT jsonb_typeof(min_collect_amounts -> 0 -> 'amount') AS type, min_collect_amounts -> 0 ->> 'amount' AS amount FROM developer_configs`);
    expect(raw.rows).toEqual([{ type: 'string', amount: (2n ** 70n + 1n).toString() }]);
    await expect(pool.query(`UPDATE developer_configs SET min_collect_amounts = '[{"symbol": "TRX", "amount": 5}]'`))
      .rejects.toMatchObject({ constraint: 'developer_configs_minimums_are_decimal_strings' });
    await expect(pool.query(`UPDATE developer_configs SET min_collect_amounts = '[{"symbol": "TRX", "amount": "1e3"}]'`))
      .rejects.toMatchObject({ constraint: 'developer_configs_minimums_are_decimal_strings' });
  });
});

/** Resolves once a session of this database waits for a lock (the statement under test has reached the row). */
async function waitForLockWaiter(pool: PgTestStore['connection']['pool']): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::bigint AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no session started waiting for the lock');
}
