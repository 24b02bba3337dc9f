/**
 * An API process killed between a request's effect and the record of its answer, on PostgreSQL (the crash test's
 * 409 BIZ-COMMAND-LOCKED on a retried key): the retry with the same Idempotency-Key gets the original answer or runs
 * the request exactly once.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { TOKENS } from '../composition/tokens.js';
import { crashAndRetry } from './idempotency-crash.fixture.js';
import { fails, ok, userWithWallets } from './api-test-fixtures.js';
import type { HttpResult } from './test-harness.js';
import { postgresApi } from './postgres-api-harness.js';

describeWithPostgres('idempotency across a crash on PostgreSQL', (serverUrl) => {
  const api = postgresApi(serverUrl, 'idempotency_crash');

  for (const point of ['between the effect and the record of its answer', 'after the effect and the answer are committed'] as const) {
    it(`killed ${point}: the retry gets the original answer or runs exactly once`, async () => {
      await crashAndRetry(api.h, point);
    });
  }

  it('a transfer refused by its address lock inside the scope: 409 BIZ-COMMAND-LOCKED, recorded and replayed', async () => {
    const u = await userWithWallets(api.h);
    const transfer = (key: string, amount: string): Promise<HttpResult> => api.h.call('POST', '/api/transfers', {
      token: u.session, headers: { 'idempotency-key': key }, body: { from_address: u.main, to_address: u.sub, asset_symbol: 'TRX', amount },
    });
    ok(await transfer(randomUUID(), '5'), 201);
    const key = randomUUID();
    const refused = await transfer(key, '6');
    fails(refused, 409, 'BIZ-COMMAND-LOCKED');
    const replay = await transfer(key, '6');
    expect({ status: replay.status, text: replay.text, replayed: replay.headers.get('idempotent-replayed') })
      .toEqual({ status: 409, text: refused.text, replayed: 'true' });
  });

  for (const kind of ['transfer', 'stake'] as const) {
    it(`a ${kind} whose locking write loses a race inside the scope: 409 BIZ-COMMAND-LOCKED, recorded and replayed`, async () => {
      const u = await userWithWallets(api.h);
      const send = (key: string, amount: string): Promise<HttpResult> => (kind === 'transfer'
        ? api.h.call('POST', '/api/transfers', {
          token: u.session, headers: { 'idempotency-key': key }, body: { from_address: u.main, to_address: u.sub, asset_symbol: 'TRX', amount },
        })
        : api.h.call('POST', `/api/wallets/${u.main}/stake`, { token: u.session, headers: { 'idempotency-key': key }, body: { resource: 'ENERGY', amount } }));
      // Another request's command, written and not yet committed: the API's pre-check cannot see it, its insert waits.
      let release!: () => void;
      const held = new Promise<void>((resolve) => { release = resolve; });
      let written!: () => void;
      const isWritten = new Promise<void>((resolve) => { written = resolve; });
      const app = api.h.container.get(TOKENS.Application);
      const other = api.h.container.get(TOKENS.Stores).uow.atomically(async () => {
        await (kind === 'transfer'
          ? app.transfers.create(u.userId, { from_address: u.main, to_address: u.sub, asset_symbol: 'TRX', amount: '5' })
          : app.staking.stake(u.userId, u.main, { resource: 'ENERGY', amount: '1000000' }));
        written();
        await held;
      });
      await isWritten;
      const key = randomUUID();
      const pending = send(key, '2000000');
      for (let waited = 0; ; waited += 20) {
        const { rows } = await api.connection.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
        if (rows[0]!.n > 0) break;
        if (waited > 10_000) throw new Error('the API request never waited on the other insert');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      release();
      await other;
      const refused = await pending;
      fails(refused, 409, 'BIZ-COMMAND-LOCKED');
      const replay = await send(key, '2000000');
      expect({ status: replay.status, text: replay.text, replayed: replay.headers.get('idempotent-replayed') })
        .toEqual({ status: 409, text: refused.text, replayed: 'true' });
    });
  }
});
