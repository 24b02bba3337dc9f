import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deposit } from '../../core/domain/model/deposit.js';
import { TOKENS } from '../composition/tokens.js';
import { createWallet, expectAnswersDocumented, expectDocumented, fails, ISO_TIME, ok, userWithWallets } from './api-test-fixtures.js';
import { startHarness, type ApiHarness } from './test-harness.js';

type User = Awaited<ReturnType<typeof userWithWallets>>;
const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });

/** Issue #36 item 4 over real HTTP: POST /transfers with refund_of, its refusals in the envelope, and the refunds under the payment. */
describe('refunds of a payment request (extension)', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  /** A payment request of 25 USDT on the user's sub-address; `paid` confirms that much arriving now, as the scanner would. */
  const request = async (user: User, paid: bigint): Promise<string> => {
    const token = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub, amount: '25000000', asset_symbol: 'USDT' } }), 201);
    if (paid > 0n) {
      const txid = randomUUID().replaceAll('-', '').padEnd(64, '0');
      const deposit: Deposit = {
        depositId: randomUUID(), transferId: txid, userId: user.userId, address: user.sub, networkCode: 'TRON', assetSymbol: 'USDT', amount: paid,
        fromAddress: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', txid, blockNumber: 100, status: 'confirmed', detectedAt: h.clock.now(),
        confirmedAt: h.clock.now(), version: 1,
      };
      await h.container.get(TOKENS.Stores).deposits.insert(deposit);
    }
    return token.token_no;
  };
  const refund = (user: User, from: string, amount: string, refundOf: unknown, asset = 'USDT') => h.call('POST', '/api/transfers', {
    token: user.session, headers: key(), body: { from_address: from, to_address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', asset_symbol: asset, amount, refund_of: refundOf },
  });
  const paymentOf = async (user: User, tokenNo: string) => ok(await h.call('GET', `/api/cashier/tokens/${tokenNo}`, { token: user.apiToken })).payment;

  it('refuses, in the envelope, an unknown token, another account\'s, an unpaid request, another asset and more than received', async () => {
    const [user, other] = [await userWithWallets(h), await userWithWallets(h)];
    const unpaid = await request(user, 0n);
    const theirs = await request(other, 25_000_000n);
    const refused = async (result: Awaited<ReturnType<typeof refund>>, code: string, says: string) => {
      fails(result, 422, code);
      expect(result.json.message).toContain(says);
    };
    await refused(await refund(user, user.main, '1', 'CT-none'), 'REFUND-PAYMENT-NOT-FOUND', 'refund_of');
    await refused(await refund(user, user.main, '1', theirs), 'REFUND-PAYMENT-NOT-FOUND', 'refund_of');
    await refused(await refund(user, user.main, '1', unpaid), 'REFUND-PAYMENT-UNPAID', 'received 0');
    await refused(await refund(user, user.main, '1', ''), 'VALIDATION-ERROR', 'refund_of');
    await refused(await refund(user, user.main, '1', 7), 'VALIDATION-ERROR', 'refund_of');
    // Paid 10 of 25: at most 10 goes back, in USDT only.
    const tokenNo = await request({ ...user, sub: await createWallet(h, user, 2) }, 10_000_000n);
    await refused(await refund(user, user.main, '1', tokenNo, 'TRX'), 'VALIDATION-ERROR', 'asset_symbol');
    await refused(await refund(user, user.main, '10000001', tokenNo), 'REFUND-EXCEEDS-RECEIVED', 'at most 10000000 is left to refund');
    // Nothing was recorded by a refusal.
    expect((await paymentOf(user, tokenNo)).refunds).toBeUndefined();
    expect(ok(await h.call('GET', '/api/commands', { token: user.apiToken })).items).toEqual([]);
  });

  it('accepted refunds are listed under the payment with their status; their total never passes what was received', async () => {
    const user = await userWithWallets(h);
    const tokenNo = await request(user, 25_000_000n);
    const first = ok(await refund(user, user.main, '10000000', tokenNo), 201);
    const payment = await paymentOf(user, tokenNo);
    expect(payment.refunds).toEqual([{ command_no: first.command_no, amount: '10000000', status: 1, requested_at: expect.stringMatching(ISO_TIME) }]);
    expectDocumented(h, 'GET', '/api/cashier/tokens/:tokenNo', ok(await h.call('GET', `/api/cashier/tokens/${tokenNo}`, { token: user.apiToken })));
    // The command names the payment it refunds, and so does GET /commands/{no} (extension, issue #36).
    const { commands } = h.container.get(TOKENS.Stores);
    expect((await commands.get(first.command_no))!.params['refund_of']).toBe(tokenNo);
    const view = ok(await h.call('GET', `/api/commands/${first.command_no}`, { token: user.apiToken }));
    expect(view).toMatchObject({ command_no: first.command_no, amount: '10000000', to_address: expect.any(String), refund_of: tokenNo });
    expectDocumented(h, 'GET', '/api/commands/:commandNo', view);

    // Two refunds of 15 at once from two addresses: 15 is left, so exactly one is accepted.
    const [a, b] = [await createWallet(h, user, 2), await createWallet(h, user, 2)];
    const racing = await Promise.all([refund(user, a, '15000000', tokenNo), refund(user, b, '15000000', tokenNo)]);
    expect(racing.map((r) => r.status).sort()).toEqual([201, 422]);
    fails(racing.find((r) => r.status === 422)!, 422, 'REFUND-EXCEEDS-RECEIVED');
    await expect(refund(user, user.sub, '1', tokenNo)).resolves.toMatchObject({ status: 422 });

    // A refund that failed gave nothing back: its amount may be refunded again.
    const stored = (await commands.get(first.command_no))!;
    await commands.update({ ...stored, status: 4, startedAt: h.clock.now(), finishedAt: h.clock.now(), version: stored.version + 1 });
    const again = ok(await refund(user, user.sub, '10000000', tokenNo), 201);
    const after = await paymentOf(user, tokenNo);
    expect(after.refunds.map((r: { command_no: string; status: number }) => [r.command_no, r.status]))
      .toEqual([[first.command_no, 4], [racing.find((r) => r.status === 201)!.json.data.command_no, 1], [again.command_no, 1]]);
    fails(await refund(user, user.main, '1', tokenNo), 422, 'REFUND-EXCEEDS-RECEIVED');
  });
});
