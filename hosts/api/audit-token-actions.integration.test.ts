/**
 * What a Developer API token does is audited (issue #35 item 8) on PostgreSQL: each entry lands in the same
 * transaction as its write (a savepoint keeps a refused insert from spoiling it), naming the token.
 */
import { it } from 'vitest';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { racingMainAddressesAuditOnce, tokenActionsAreAudited } from './audit-token-actions.scenario.js';
import { postgresApi } from './postgres-api-harness.js';

describeWithPostgres('API token actions in the audit trail on PostgreSQL (issue #35 item 8)', (serverUrl) => {
  const api = postgresApi(serverUrl, 'token_audit');

  it('wallets, payer tokens created and disabled, collections each record one entry naming the token', () => tokenActionsAreAudited(api.h));
  it('racing main addresses: one created, the others 409, one entry', () => racingMainAddressesAuditOnce(api.h));
});
