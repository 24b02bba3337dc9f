/**
 * The scenario of issue #35 item 8's API-token audit, run on the memory store and on PostgreSQL: what a Developer API
 * token creates, disables or starts is audited, naming the token and carrying the request's origin.
 */
import { expect } from 'vitest';
import { fails, ok, signUp, userWithWallets } from './api-test-fixtures.js';
import type { ApiHarness } from './test-harness.js';

const TRX = 1_000_000n;

interface Entry { action: string; actor: { kind: string; id: string | null }; detail: Record<string, unknown> }
const byActionOf = (entries: Entry[], action: string): Record<string, unknown> => entries.find((e) => e.action === action)!.detail;


/** Wallets, payer tokens created and disabled, a collection: one entry each, naming the token. */
export async function tokenActionsAreAudited(h: ApiHarness): Promise<void> {
    const user = await userWithWallets(h);
    const token = { token: user.apiToken, headers: { 'user-agent': 'merchant-backend/1.0' } };
    const cashier = ok(await h.call('POST', '/api/cashier/tokens', { ...token, body: { address: user.sub, ttl_minutes: 60 } }), 201);
    ok(await h.call('DELETE', `/api/cashier/tokens/${cashier.token_no}`, { ...token, body: { reason: 'order cancelled' } }));
    fails(await h.call('DELETE', `/api/cashier/tokens/${cashier.token_no}`, token), 409, 'CASHIER-TOKEN-ALREADY-DISABLED');
    h.devnet.fund(user.sub, 20n * TRX);
    h.devnet.mine(1);
    ok(await h.call('POST', `/api/wallets/${user.sub}/balances/refresh`, { ...token, body: {} }));
    const task = ok(await h.call('POST', '/api/collections', { ...token, headers: { ...token.headers, 'idempotency-key': 'collect-1' }, body: { address: user.sub, asset_symbol: 'TRX' } }), 201);
    // Withdrawals take a session (POST /transfers is a session route): a token cannot ask for one.
    fails(await h.call('POST', '/api/transfers', { ...token, headers: { ...token.headers, 'idempotency-key': 'pay-1' }, body: {} }), 403, 'FORBIDDEN');
    const log = ok(await h.call('GET', '/api/audit-log?per_page=100', { token: user.session }));
    const entries = (log.items as Entry[]).filter((e) => e.actor.kind === 'api_token');
    const tokenId = String(user.apiTokenId);
    const summary = entries.map((e) => [e.action, e.actor.id, e.detail['user_agent']]).reverse();
    expect(summary).toEqual([
      ['wallet.created', tokenId, expect.any(String)],
      ['wallet.created', tokenId, expect.any(String)],
      ['cashier_token.created', tokenId, 'merchant-backend/1.0'],
      ['cashier_token.disabled', tokenId, 'merchant-backend/1.0'],
      ['collection.requested', tokenId, 'merchant-backend/1.0'],
    ]);
    const byAction = (action: string): Record<string, unknown> => byActionOf(entries, action);
    expect(byAction('cashier_token.created')).toMatchObject({ token_no: cashier.token_no, address: user.sub });
    expect(byAction('cashier_token.disabled')).toMatchObject({ token_no: cashier.token_no, reason: 'order cancelled' });
    expect(byAction('collection.requested')).toMatchObject({ task_no: task.task_no, address: user.sub, asset_symbol: 'TRX' });
    expect((log.items as Entry[]).filter((e) => e.action === 'wallet.created').map((e) => e.detail['address']).sort()).toEqual([user.main, user.sub].sort());
}

/** Two racing creates of one main address: one 201, one 409, and one wallet.created entry (the loser records nothing). */
export async function racingMainAddressesAuditOnce(h: ApiHarness): Promise<void> {
  const user = await signUp(h, {});
  const create = () => h.call('POST', '/api/wallets', { token: user.apiToken, body: { network_code: 'TRON', address_type: 1 } });
  const answers = await Promise.all([create(), create(), create()]);
  expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
  for (const a of answers.filter((x) => x.status === 409)) fails(a, 409, 'BIZ-MAIN-ADDRESS-ALREADY-EXISTS');
  const log = ok(await h.call('GET', '/api/audit-log?per_page=100', { token: user.session }));
  expect((log.items as Entry[]).filter((e) => e.action === 'wallet.created')).toHaveLength(1);
}
