/**
 * Refunds of a payment request racing on PostgreSQL (issue #36 item 4): each refund is recorded on the request in the
 * commit that creates its command, under the token's version, and judged again on the stored request when that
 * version moved; so refunds sent at once from different addresses never give back more than the request received.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import type { Deposit } from '../../core/domain/model/deposit.js';
import { TOKENS } from '../composition/tokens.js';
import { createWallet, ok, userWithWallets } from './api-test-fixtures.js';
import { postgresApi } from './postgres-api-harness.js';

describeWithPostgres('refunds racing on PostgreSQL (issue #36 item 4)', (serverUrl) => {
  const api = postgresApi(serverUrl, 'refunds');

  it('six refunds of 10 sent at once against 25 received: two are accepted, the others refused, and the request lists the two', async () => {
    const user = await userWithWallets(api.h);
    const token = ok(await api.h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub, amount: '25000000', asset_symbol: 'USDT' } }), 201);
    const txid = randomBytes(32).toString('hex');
    const deposit: Deposit = {
      depositId: randomUUID(), transferId: txid, userId: user.userId, address: user.sub, networkCode: 'TRON', assetSymbol: 'USDT', amount: 25_000_000n,
      fromAddress: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', txid, blockNumber: 100, status: 'confirmed', detectedAt: api.h.clock.now(), confirmedAt: api.h.clock.now(), version: 1,
    };
    await api.h.container.get(TOKENS.Stores).deposits.insert(deposit);
    const froms = [user.main];
    for (let i = 0; i < 5; i++) froms.push(await createWallet(api.h, user, 2));
    const answers = await Promise.all(froms.map((from) => api.h.call('POST', '/api/transfers', {
      token: user.session, headers: { 'idempotency-key': randomUUID() },
      body: { from_address: from, to_address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', asset_symbol: 'USDT', amount: '10000000', refund_of: token.token_no },
    })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 422, 422, 422, 422]);
    for (const refused of answers.filter((a) => a.status === 422)) expect(refused.json.code).toBe('REFUND-EXCEEDS-RECEIVED');
    const accepted = answers.filter((a) => a.status === 201).map((a) => a.json.data.command_no as string).sort();
    const payment = ok(await api.h.call('GET', `/api/cashier/tokens/${token.token_no}`, { token: user.apiToken })).payment;
    expect(payment.refunds.map((r: { command_no: string }) => r.command_no).sort()).toEqual(accepted);
    const { rows } = await api.connection.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM commands WHERE type = 2 AND user_id = $1`, [user.userId]);
    expect(rows[0]!.n).toBe(2);
  });
});
