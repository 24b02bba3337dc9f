import { expect, it } from 'vitest';
import { aDeposit } from '../../contracts-tests/deposit-repository.contract.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { aCashierToken, addressOf, aDeveloperConfig, aTask, aWallet, MINUTE, T0 } from '../../contracts-tests/support/fixtures.js';
import { CashierUseCases, type CashierDeps } from '../../core/application/cashier.service.js';
import type { CashierToken } from '../../core/domain/model/index.js';
import { formatIsoTime } from '../../core/domain/time.js';
import { createMemoryAdapters } from '../memory/create-memory-adapters.js';
import { ManualClock } from '../memory/manual-clock.js';
import { NodeSecretHasher } from '../node/node-secret-hasher.js';
import { PgCashierTokenRepository } from './pg-cashier-token-repository.js';
import { PgCollectionTaskRepository } from './pg-collection-task-repository.js';
import { PgDepositRepository } from './pg-deposit-repository.js';
import { PgDeveloperConfigRepository } from './pg-developer-config-repository.js';
import { PgUnitOfWork } from './pg-unit-of-work.js';
import { PgWalletRepository } from './pg-wallet-repository.js';
import { usePgTestStore } from './testing/pg-test-store.js';

const SECRET = `ct_${'a'.repeat(43)}`;
const hasher = new NodeSecretHasher();

/** The store parts the payer's session reads, and what they hold: a request, two of its deposits, a task. */
interface SessionStore {
  readonly wallets: Pick<PgWalletRepository, 'insert'>;
  readonly developerConfigs: Pick<PgDeveloperConfigRepository, 'save'>;
  readonly deposits: Pick<PgDepositRepository, 'insert'>;
  readonly cashierTokens: Pick<PgCashierTokenRepository, 'insert' | 'findByTokenNo'>;
  readonly uow: Pick<PgUnitOfWork, 'commit'>;
}

const token: CashierToken = aCashierToken({
  tokenHash: hasher.hashToken(SECRET), createdAt: T0,
  payment: {
    assetSymbol: 'USDT', amount: 25_000_000n, reference: 'order-1', description: null, deadline: T0 + 30 * MINUTE,
    status: 'awaiting', received: 0n, collect: null, watched: true,
  },
});

async function fill(store: SessionStore): Promise<void> {
  await store.wallets.insert(aWallet({ id: 1, label: 'till 1' }), { maxSubAddresses: -1 });
  await store.developerConfigs.save(aDeveloperConfig({ displayName: 'Shop', autoCollect: { USDT: { minAmount: 5n, maxFeeSun: 9n } } }));
  await store.uow.commit({ newTasks: [aTask({ taskNo: 'K1', startedAt: T0 + MINUTE })] });
  for (const [i, at] of [-1, 2, 3].entries()) {
    const txid = (i + 1).toString(16).padStart(64, '0');
    await store.deposits.insert(aDeposit({ depositId: `D${i}`, transferId: txid, txid, assetSymbol: 'USDT', amount: 10_000_000n, detectedAt: T0 + at * MINUTE }));
  }
  await store.cashierTokens.insert(token, T0);
}

describeWithPostgres('PostgreSQL: the payer session (GET /cashier/session) in one statement after authentication', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'cashier_session');

  it('one statement answers the session, slide included; the view is the memory store\'s', async () => {
    await open().clear();
    const { pool } = open().connection;
    let statements = 0;
    const counted = Object.create(pool) as typeof pool;
    counted.query = ((...args: Parameters<typeof pool.query>) => {
      statements += 1;
      return (pool.query as (...a: unknown[]) => unknown)(...args);
    }) as typeof pool.query;
    const pg = {
      wallets: new PgWalletRepository(pool), developerConfigs: new PgDeveloperConfigRepository(pool), deposits: new PgDepositRepository(pool),
      tasks: new PgCollectionTaskRepository(pool), cashierTokens: new PgCashierTokenRepository(counted), uow: new PgUnitOfWork(pool),
    };
    await fill(pg);
    const memory = createMemoryAdapters({ clock: new ManualClock() });
    await fill(memory);
    // GET /cashier/session touches only the token repository, the hasher and the clock of CashierDeps.
    const useCases = (cashierTokens: CashierDeps['cashierTokens'], clock: ManualClock) =>
      new CashierUseCases({ cashierTokens, hasher, clock } as Partial<CashierDeps> as CashierDeps);
    const pgClock = new ManualClock(T0 + 4 * MINUTE);
    const onPg = useCases(pg.cashierTokens, pgClock);
    const onMemory = useCases(memory.cashierTokens, new ManualClock(T0 + 4 * MINUTE));

    const ctx = await onPg.authenticateCashier(SECRET);
    expect(statements).toBe(1);
    const view = await onPg.session(ctx);
    expect(statements).toBe(2);
    expect(view).toEqual(await onMemory.session(await onMemory.authenticateCashier(SECRET)));
    expect(view.active_task?.task_no).toBe('K1');
    expect(view.payment?.transfers.map((t) => t.detected_at)).toEqual([formatIsoTime(T0 + 2 * MINUTE), formatIsoTime(T0 + 3 * MINUTE)]);
    // The slide (spec §5, DESIGN.md: max(current, now + ttl)) was written by that one statement.
    expect((await pg.cashierTokens.findByTokenNo(token.tokenNo))!.expiresAt).toBe(T0 + 64 * MINUTE);
    expect(view.expires_at).toBe(formatIsoTime(T0 + 64 * MINUTE));
  });
});
