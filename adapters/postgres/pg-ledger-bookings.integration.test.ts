import { expect, it } from 'vitest';
import { DepositRecorder, type DepositObservation } from '../../core/application/worker/deposit-recorder.js';
import type { LedgerTransaction } from '../../core/domain/ledger.js';
import type { Ledger } from '../../core/ports/ledger.port.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { addressOf } from '../../contracts-tests/support/fixtures.js';
import { ManualClock } from '../memory/manual-clock.js';
import { createPostgresAdapters } from './create-postgres-adapters.js';
import { usePgTestStore } from './testing/pg-test-store.js';

const transferId = (n: number) => `${n.toString(16).padStart(64, '0')}:log:0`;
const seen = (n: number): DepositObservation => ({
  kind: 'seen', block: 10, userId: 7, assetSymbol: 'USDT',
  transfer: { id: transferId(n), txid: transferId(n).slice(0, 64), contract: addressOf(900), internal: false, from: addressOf(500), to: addressOf(1), amount: BigInt(n) * 1_000_000n },
});
const solidified = (n: number): DepositObservation => ({ kind: 'solidified', transferId: transferId(n) });
const ALL = { offset: 0, limit: 1000 };

/**
 * Where the process dies: its connection is terminated by the server (as when the process is killed), inside the
 * confirmation's atomic scope, before the booking or after it; PostgreSQL rolls the open transaction back.
 */
type CrashPoint = 'before booking' | 'after booking';

describeWithPostgres('PostgreSQL store: a deposit\'s confirmation and its booking, across crashes (issue #36)', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'ledger_bookings');

  const fresh = async (crash?: CrashPoint) => {
    await open().clear();
    const clock = new ManualClock();
    const stores = createPostgresAdapters({ connection: open().connection, clock });
    const { pool } = open().connection;
    const die = () => pool.query('SELECT pg_terminate_backend(pg_backend_pid())');
    const crashing: Ledger = {
      entries: (...args) => stores.ledger.entries(...args),
      balancesAt: (...args) => stores.ledger.balancesAt(...args),
      usersWithBooks: (...args) => stores.ledger.usersWithBooks(...args),
      post: async (tx: LedgerTransaction) => {
        if (crash === 'before booking') await die();
        const posted = await stores.ledger.post(tx);
        if (crash === 'after booking') await die();
        return posted;
      },
    };
    const recorder = (ledger: Ledger) => new DepositRecorder({
      deposits: stores.deposits, uow: stores.uow, developerConfigs: stores.developerConfigs, clock, ids: stores.ids, ledger,
    }, 'TRON');
    return { stores, crashing: recorder(crashing), honest: () => recorder(stores.ledger) };
  };

  for (const crash of ['before booking', 'after booking'] as const) {
    it(`a crash ${crash} (inside the confirmation's scope) leaves neither; the redone pass confirms and books once`, async () => {
      const { stores, crashing, honest } = await fresh(crash);
      await honest().record([seen(2)], 10);
      await expect(crashing.record([solidified(2)], 30)).rejects.toThrow();
      expect(await stores.deposits.findByTransfer('TRON', transferId(2))).toMatchObject({ status: 'pending' });
      expect((await stores.ledger.entries(7, {}, ALL)).total).toBe(0);
      // The scanner's checkpoint was not saved: the next pass redoes the observations, here twice (a second scanner).
      await honest().record([seen(2), solidified(2)], 30);
      await honest().record([seen(2), solidified(2)], 30);
      const deposit = (await stores.deposits.findByTransfer('TRON', transferId(2)))!;
      expect(deposit.status).toBe('confirmed');
      const { items } = await stores.ledger.entries(7, {}, ALL);
      expect(items.map((e) => [e.cause.id, e.account.kind, e.amount])).toEqual([
        [deposit.depositId, 'external_in', -2_000_000n], [deposit.depositId, 'custodial', 2_000_000n],
      ]);
    });
  }

  it('20 scanners confirming one deposit at once: it is confirmed and booked exactly once', async () => {
    const { stores, honest } = await fresh();
    await honest().record([seen(5)], 10);
    await Promise.allSettled(Array.from({ length: 20 }, () => honest().record([solidified(5)], 30)));
    expect(await stores.deposits.findByTransfer('TRON', transferId(5))).toMatchObject({ status: 'confirmed' });
    const { items } = await stores.ledger.entries(7, {}, ALL);
    expect(items.map((e) => e.amount)).toEqual([-5_000_000n, 5_000_000n]);
  });
});
