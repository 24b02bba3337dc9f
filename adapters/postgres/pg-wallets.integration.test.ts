import { expect, it } from 'vitest';
import { describeBalanceRepositoryContract } from '../../contracts-tests/balance-repository.contract.js';
import { describeCashierTokenRepositoryContract } from '../../contracts-tests/cashier-token-repository.contract.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { describeIdempotencyStoreContract } from '../../contracts-tests/idempotency-store.contract.js';
import { describeScanCursorStoreContract } from '../../contracts-tests/scan-cursor-store.contract.js';
import { aBalance, addressOf, aWallet, T0 } from '../../contracts-tests/support/fixtures.js';
import { describeWalletRepositoryContract } from '../../contracts-tests/wallet-repository.contract.js';
import { describeWebhookDeliveryRepositoryContract } from '../../contracts-tests/webhook-delivery-repository.contract.js';
import { IDEMPOTENCY_WINDOW_MS } from '../../core/domain/model/idempotency.js';
import { ManualClock } from '../memory/manual-clock.js';
import { PgBalanceRepository } from './pg-balance-repository.js';
import { PgCommandRepository } from './pg-command-repository.js';
import { PgCashierTokenRepository } from './pg-cashier-token-repository.js';
import { PgCollectionTaskRepository } from './pg-collection-task-repository.js';
import { connectPostgres } from './pg-connection.js';
import { PgDepositRepository } from './pg-deposit-repository.js';
import { PgDeveloperConfigRepository } from './pg-developer-config-repository.js';
import { PgIdempotencyStore } from './pg-idempotency-store.js';
import { PgScanCursorStore } from './pg-scan-cursor-store.js';
import { PgUnitOfWork } from './pg-unit-of-work.js';
import { PgWalletRepository } from './pg-wallet-repository.js';
import { PgWebhookDeliveryRepository } from './pg-webhook-delivery-repository.js';
import { usePgTestStore } from './testing/pg-test-store.js';

/** Expensive property runs (each run empties the database): fewer than the suites' default of 50. */
const OPTIONS = { numRuns: 15, concurrency: 50 } as const;

describeWithPostgres('PostgreSQL store: wallets group', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'wallets');

  /** A fresh, empty store sharing this file's pool, on a clock the suites can move; nothing to close. */
  const fresh = async () => {
    await open().clear();
    const { pool } = open().connection;
    const clock = new ManualClock();
    return {
      clock, wallets: new PgWalletRepository(pool), balances: new PgBalanceRepository(pool), commands: new PgCommandRepository(pool),
      cashierTokens: new PgCashierTokenRepository(pool), idempotency: new PgIdempotencyStore(pool, clock),
      cursors: new PgScanCursorStore(pool), deliveries: new PgWebhookDeliveryRepository(pool), uow: new PgUnitOfWork(pool),
      tasks: new PgCollectionTaskRepository(pool), deposits: new PgDepositRepository(pool), developerConfigs: new PgDeveloperConfigRepository(pool),
    };
  };

  describeWalletRepositoryContract('postgres', fresh, OPTIONS);

  // Adapter-only: the suite cannot see statements. Balance views asked in one turn are one statement (pg-read-batch).
  it('balance views asked together are one statement, each caller answered its own address', async () => {
    const { wallets, balances } = await fresh();
    const { pool } = open().connection;
    let statements = 0;
    const counted = Object.create(pool) as typeof pool;
    counted.query = ((...args: Parameters<typeof pool.query>) => {
      statements += 1;
      return (pool.query as (...a: unknown[]) => unknown)(...args);
    }) as typeof pool.query;
    const batched = new PgBalanceRepository(counted);
    await wallets.insert(aWallet({ id: 1, userId: 1 }), { maxSubAddresses: -1 });
    await wallets.insert(aWallet({ id: 2, userId: 2 }), { maxSubAddresses: -1 });
    await balances.put(aBalance({ address: addressOf(2) }));
    const views = await Promise.all([1, 2, 3, 1].map((n) => batched.readView(addressOf(n))));
    expect(statements).toBe(1);
    expect(views.map((v) => v?.wallet.userId ?? null)).toEqual([1, 2, null, 1]);
    expect(views.map((v) => v?.snapshot ?? null)).toEqual([null, await balances.get(addressOf(2)), null, null]);
    expect(await batched.readView(addressOf(2))).toEqual(views[1]);
    expect(statements).toBe(2);
  });
  describeBalanceRepositoryContract('postgres', fresh, OPTIONS);
  describeCashierTokenRepositoryContract('postgres', fresh, OPTIONS);
  describeIdempotencyStoreContract('postgres', fresh, OPTIONS);
  describeScanCursorStoreContract('postgres', fresh, OPTIONS);
  describeWebhookDeliveryRepositoryContract('postgres', fresh, OPTIONS);

  // Adapter-only: the suite's race runs on one pool of one process; only a second pool (other server sessions, as a
  // second worker process has) shows that the quota rule holds between processes, not just between this pool's calls.
  it('sub-address inserts racing from two pools on one database create exactly the quota', async () => {
    const { wallets } = await fresh();
    const other = await connectPostgres(open().url, { migrate: false, poolSize: 10 });
    try {
      const second = new PgWalletRepository(other.pool);
      const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? wallets : second).insert(aWallet({ id: i + 1 }), { maxSubAddresses: 5 })));
      expect(outcomes.filter((o) => o === 'created')).toHaveLength(5);
      expect(outcomes.filter((o) => o === 'quota-exceeded')).toHaveLength(35);
      expect(await second.countSubs(1, 'TRON')).toBe(5);
    } finally {
      await other.close();
    }
  });

  // Adapter-only: the suite sees amounts only through the repository, which would round-trip any lossless encoding;
  // here the stored form itself is checked: exact decimal text that SQL reads as NUMERIC, and a JSON number refused.
  it('keeps balances beyond 2^64 as exact decimal strings that read back as NUMERIC, and refuses a JSON number', async () => {
    const { balances } = await fresh();
    const { pool } = open().connection;
    const huge = 2n ** 200n + 1n;
    const snapshot = aBalance({ items: [{ symbol: 'USDT', available: huge, updatedAt: T0 }, { symbol: 'TRX', available: 2n ** 64n + 7n, updatedAt: T0 }] });
    await balances.put(snapshot);
    const { rows } = await pool.query<{ usdt: string; trx: string }>(
      `SELECT (items->0->>'available')::numeric(78, 0)::text AS usdt, (items->1->>'available')::numeric(78, 0)::text AS trx
       FROM balance_snapshots WHERE address = $1`, [addressOf(1)],
    );
    expect(rows[0]).toEqual({ usdt: huge.toString(), trx: (2n ** 64n + 7n).toString() });
    expect((await balances.get(addressOf(1)))!.items.map((i) => i.available)).toEqual([huge, 2n ** 64n + 7n]);
    await expect(pool.query(
      `INSERT INTO balance_snapshots (address, items, refresh_source, updated_at) VALUES ($1, $2, 1, $3)`,
      [addressOf(2), JSON.stringify([{ symbol: 'TRX', available: 18446744073709551616, updatedAt: T0 }]), T0],
    )).rejects.toMatchObject({ constraint: 'balance_snapshots_amounts_are_decimal_strings' });
  });

  // Adapter-only: PostgreSQL has no TTL index; the suite cannot see whether expired records are ever deleted.
  it('purgeExpired deletes the records expired at now, keeps live ones, and a purged key starts afresh', async () => {
    const { idempotency, clock } = await fresh();
    const { pool } = open().connection;
    await idempotency.begin('s', 'old', 'aa'.repeat(32), IDEMPOTENCY_WINDOW_MS);
    clock.advance(IDEMPOTENCY_WINDOW_MS - 1);
    await idempotency.begin('s', 'young', 'aa'.repeat(32), IDEMPOTENCY_WINDOW_MS);
    clock.advance(1);
    expect(await idempotency.purgeExpired(clock.now())).toBe(1);
    const { rows } = await pool.query<{ key: string }>('SELECT idempotency_key AS key FROM idempotency_records');
    expect(rows.map((r) => r.key)).toEqual(['young']);
    expect(await idempotency.begin('s', 'old', 'bb'.repeat(32), IDEMPOTENCY_WINDOW_MS)).toEqual({ outcome: 'started' });
  });
});
