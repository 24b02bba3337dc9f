import { expect, it } from 'vitest';
import { describeCollectionTaskRepositoryContract } from '../../contracts-tests/collection-task-repository.contract.js';
import { describeCommandRepositoryContract } from '../../contracts-tests/command-repository.contract.js';
import { describeEventOutboxContract } from '../../contracts-tests/event-outbox.contract.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { aCommand, addressOf, aTask, T0 } from '../../contracts-tests/support/fixtures.js';
import { describeUnitOfWorkContract } from '../../contracts-tests/unit-of-work.contract.js';
import { createMemoryAdapters } from '../memory/create-memory-adapters.js';
import { ManualClock } from '../memory/manual-clock.js';
import { PgCollectionTaskRepository } from './pg-collection-task-repository.js';
import { PgCommandRepository } from './pg-command-repository.js';
import { PgDepositRepository } from './pg-deposit-repository.js';
import { PgEventOutbox } from './pg-event-outbox.js';
import { PgUnitOfWork } from './pg-unit-of-work.js';
import { usePgTestStore } from './testing/pg-test-store.js';

/** Expensive property runs (each run empties the database): fewer than the suites' default of 50. */
const OPTIONS = { numRuns: 15, concurrency: 50 } as const;

describeWithPostgres('PostgreSQL store: commands, tasks, outbox and the unit of work', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'workflows');

  const fresh = async () => {
    await open().clear();
    const { pool } = open().connection;
    return {
      clock: new ManualClock(), commands: new PgCommandRepository(pool), tasks: new PgCollectionTaskRepository(pool),
      outbox: new PgEventOutbox(pool), uow: new PgUnitOfWork(pool), deposits: new PgDepositRepository(pool),
    };
  };

  describeCommandRepositoryContract('postgres', fresh, OPTIONS);
  describeCollectionTaskRepositoryContract('postgres', fresh, OPTIONS);
  describeEventOutboxContract('postgres', fresh, OPTIONS);
  describeUnitOfWorkContract('postgres', fresh, { ...OPTIONS, reference: () => createMemoryAdapters({ clock: new ManualClock() }) });

  // Adapter-only: the stored representation, which no shared suite can see.
  it('stores money as NUMERIC, exact beyond 2^64, and the lock marker only while the command holds the lock', async () => {
    const { commands, uow } = await fresh();
    const pool = open().connection.pool;
    await commands.insert(aCommand({ lockedAmount: 2n ** 80n + 1n }), { locking: true });
    const raw = await pool.query(`SELECT locked_amount::text AS amount, pg_typeof(locked_amount)::text AS type, locked_address FROM commands`);
    expect(raw.rows).toEqual([{ amount: (2n ** 80n + 1n).toString(), type: 'numeric', locked_address: addressOf(1) }]);
    await uow.commit({ commands: [aCommand({ lockedAmount: 2n ** 80n + 1n, status: 3, finishedAt: T0 + 1, version: 2 })] });
    expect((await pool.query('SELECT locked_address FROM commands')).rows).toEqual([{ locked_address: null }]);
    await uow.commit({ newTasks: [aTask({ sweptAmount: 10n ** 30n })] });
    expect((await pool.query('SELECT swept_amount::text AS s FROM collection_tasks')).rows).toEqual([{ s: (10n ** 30n).toString() }]);
  });

  // Adapter-only: PostgreSQL refuses U+0000 (TEXT, JSONB) and lone surrogates (JSONB); free text from a node must not
  // turn a workflow's write into a permanent store error.
  it('stores free text with U+0000 or a lone surrogate, each read back as U+FFFD', async () => {
    const { commands, uow } = await fresh();
    await commands.insert(aCommand(), { locking: true });
    const refusal = `BANDWIDTH_ERROR: bad\u0000byte and a cut pair \uD83D`;
    await uow.commit({ commands: [aCommand({
      status: 2, lastError: refusal, version: 2,
      transaction: { txid: 'ab'.repeat(32), signedJson: '{}', expiresAt: T0 + 1, broadcastAt: T0, refusal },
    })] });
    const stored = (await commands.get('C0001'))!;
    expect(stored.lastError).toBe('BANDWIDTH_ERROR: bad\uFFFDbyte and a cut pair \uFFFD');
    expect(stored.transaction!.refusal).toBe(stored.lastError);
    expect(stored.version).toBe(2);
  });
});
