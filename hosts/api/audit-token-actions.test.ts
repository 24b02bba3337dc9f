/**
 * What a Developer API token does is audited (issue #35 item 8), on the memory store: the addresses it creates, the
 * payer tokens it creates and disables and the collections it starts, each entry naming the token as its actor and
 * carrying the request's origin (audit-token-actions.scenario.ts; the same on PostgreSQL in the integration test).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { racingMainAddressesAuditOnce, tokenActionsAreAudited } from './audit-token-actions.scenario.js';
import { startHarness, type ApiHarness } from './test-harness.js';

let h: ApiHarness;

beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('API token actions in the audit trail (issue #35 item 8)', () => {
  it('wallets, payer tokens created and disabled, collections each record one entry naming the token', () => tokenActionsAreAudited(h));
  it('racing main addresses: one created, one entry', () => racingMainAddressesAuditOnce(h));
});
