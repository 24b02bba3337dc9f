import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type PostgresTestDatabase } from '../../contracts-tests/harness/postgres.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { prepared, statementName } from './pg-prepared.js';

describeWithPostgres('PostgreSQL named statements (pg-prepared)', (serverUrl) => {
  let database: PostgresTestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase(serverUrl, 'prepared');
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query('CREATE TABLE t (id INT PRIMARY KEY, v TEXT, version INT NOT NULL)');
    await client.query("INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 1)");
  });
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  it('sends a text as one named statement per connection, with the answers of an unnamed one', async () => {
    const text = 'UPDATE t SET v = $3, version = version + 1 WHERE id = $1 AND version = $2 RETURNING *';
    const q = prepared(client);
    const first = await q.query(text, [1, 1, 'x']);
    const again = await q.query(text, [1, 2, 'y']);
    const stale = await q.query(text, [2, 5, 'z']);
    expect([first.rowCount, again.rowCount, stale.rowCount]).toEqual([1, 1, 0]);
    expect(again.rows).toEqual([{ id: 1, v: 'y', version: 3 }]);
    const { rows } = await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
    expect(rows.map((r) => r.name)).toEqual([statementName(text)]);
    // A config object passes through unnamed; another text gets another name.
    await q.query({ text: 'SELECT 1' } as never);
    expect(statementName('SELECT 2')).not.toBe(statementName(text));
    expect((await client.query('SELECT count(*)::int AS n FROM pg_prepared_statements')).rows[0]).toEqual({ n: 1 });
  });
});
