/**
 * POST /transfers refuses a withdrawal whose fees cannot be had (issue #34 item 3), before any command: a sub-address
 * that holds only USDT, under a main address with no stake, no rental and ENERGY_BURN off, is 422 BIZ-FEES-UNFUNDABLE
 * naming what is missing and the fixes, and nothing is recorded (no command, the address not locked). The same
 * request is accepted once the sub-address can pay its own fees, and a withdrawal from the main address is never
 * judged by it (unchanged: the worker checks its balance).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from './test-harness.js';
import { createWallet, expectAnswersDocumented, fails, ok, userWithWallets } from './api-test-fixtures.js';

const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });

describe('POST /transfers from a sub-address that cannot pay its fees', () => {
  let h: ApiHarness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('422 BIZ-FEES-UNFUNDABLE with the fix, no command; accepted once the sub-address pays its own fees', async () => {
    const u = await userWithWallets(h);
    const payer = await createWallet(h, u, 2, 'payer');
    h.devnet.fundToken(u.sub, 25_000_000);
    h.devnet.fund(u.main, 5_000_000);
    h.devnet.mine(1);
    const body = { from_address: u.sub, to_address: payer, asset_symbol: 'USDT', amount: '10000000' };
    const refused = await h.call('POST', '/api/transfers', { token: u.session, headers: key(), body });
    fails(refused, 422, 'BIZ-FEES-UNFUNDABLE');
    expect(refused.json.message).toContain(u.main);
    expect(refused.json.message).toMatch(/stake TRX for energy on the main address.*ENERGY_BURN/);
    expect(ok(await h.call('GET', '/api/commands?type=2', { token: u.apiToken })).items).toEqual([]);

    h.devnet.fund(u.sub, 60_000_000);
    h.devnet.mine(1);
    const accepted = ok(await h.call('POST', '/api/transfers', { token: u.session, headers: key(), body }), 201);
    expect(accepted.status).toBe(1);
  });

  it('a withdrawal from the main address is not judged by the fee plan', async () => {
    const u = await userWithWallets(h);
    const payer = await createWallet(h, u, 2, 'payer');
    const body = { from_address: u.main, to_address: payer, asset_symbol: 'USDT', amount: '1000000' };
    expect(ok(await h.call('POST', '/api/transfers', { token: u.session, headers: key(), body }), 201).status).toBe(1);
  });
});
