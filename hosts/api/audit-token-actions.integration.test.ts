/**
 * What a Developer API token does is audited (issue #35 item 8) on PostgreSQL: each entry lands in the same
 * transaction as its write (a savepoint keeps a refused insert from spoiling it), naming the token.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, it } from 'vitest';
import { connectPostgres, type PostgresConnection } from '../../adapters/postgres/index.js';
import { createTestDatabase, type PostgresTestDatabase } from '../../contracts-tests/harness/postgres.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { racingMainAddressesAuditOnce, tokenActionsAreAudited } from './audit-token-actions.scenario.js';
import { startHarness, type ApiHarness } from './test-harness.js';

describeWithPostgres('API token actions in the audit trail on PostgreSQL (issue #35 item 8)', (serverUrl) => {
  let database: PostgresTestDatabase;
  let connection: PostgresConnection;
  let h: ApiHarness;

  beforeAll(async () => {
    database = await createTestDatabase(serverUrl, 'token_audit');
    connection = await connectPostgres(database.url, { migrate: true });
    h = await startHarness({ postgres: connection, env: { STORE: 'postgres', DATABASE_URL: database.url, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await connection?.close();
    await database?.drop();
  });

  it('wallets, payer tokens created and disabled, collections each record one entry naming the token', () => tokenActionsAreAudited(h));
  it('racing main addresses: one created, the others 409, one entry', () => racingMainAddressesAuditOnce(h));
});
