/**
 * Issue #35 item 2: the requester cancels their own pending withdrawal (POST /commands/{commandNo}/cancel), by the
 * admin cancel's rule (nothing broadcast). Memory adapters and a ManualClock behind the real composition; no worker
 * runs, so a withdrawal stays PENDING until cancelled.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWallet, expectAnswersDocumented, expectDocumented, fails, ok, userWithWallets } from './api-test-fixtures.js';
import { startHarness, type ApiHarness } from './test-harness.js';

describe('POST /commands/{commandNo}/cancel', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('the requester cancels a pending withdrawal once; a stranger cannot see it; an API token cannot', async () => {
    const u = await userWithWallets(h, 'pro');
    const from = await createWallet(h, u, 2);
    const to = h.devnet.info().witnesses[0]!;
    ok(await h.call('PUT', '/api/policies/withdrawal', { token: u.session, body: { limits: { TRX: { max_count_1h: 1 } } } }));
    const body = { from_address: from, to_address: to, asset_symbol: 'TRX', amount: '1000000' };
    const accepted = ok(await h.call('POST', '/api/transfers', { token: u.session, body, headers: { 'idempotency-key': randomUUID() } }), 201);
    const stranger = await userWithWallets(h, 'pro');
    fails(await h.call('POST', `/api/commands/${accepted.command_no}/cancel`, { token: stranger.session }), 404, 'BIZ-COMMAND-NOT-FOUND');
    fails(await h.call('POST', `/api/commands/${accepted.command_no}/cancel`, { token: u.apiToken }), 403, 'FORBIDDEN');
    const cancelled = ok(await h.call('POST', `/api/commands/${accepted.command_no}/cancel`, { token: u.session }));
    expectDocumented(h, 'POST', '/api/commands/:commandNo/cancel', cancelled);
    expect(cancelled).toMatchObject({ command_no: accepted.command_no, status: 6 });
    fails(await h.call('POST', `/api/commands/${accepted.command_no}/cancel`, { token: u.session }), 409, 'BIZ-COMMAND-NOT-CANCELLABLE');
    // Nothing was sent and it no longer counts: the hour's one withdrawal is free again, the address unlocked.
    ok(await h.call('POST', '/api/transfers', { token: u.session, body, headers: { 'idempotency-key': randomUUID() } }), 201);
    const audit = ok(await h.call('GET', '/api/audit-log?per_page=100', { token: u.session })).items as { action: string; detail: Record<string, unknown>; actor: { kind: string } }[];
    expect(audit.filter((e) => e.action === 'withdrawal.cancelled').map((e) => [e.detail['command_no'], e.actor.kind])).toEqual([[accepted.command_no, 'user']]);
  });
});
