import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { fieldColumns, isVersioned, keyOfRecord } from '../records/record-descriptor.js';
import { DESCRIPTOR_CASES } from '../records/testing/descriptor-cases.js';
import { PgTable } from './pg-table.js';
import { usePgTestStore } from './testing/pg-test-store.js';

// Adapter-only: the descriptors against the migrated schema itself. The contract suites check each repository's
// behaviour; this checks that what every descriptor declares is the table the migrations made (a misspelt or missing
// column fails here, named), and that PgTable's plain operations keep a value exactly on a real server.

describeWithPostgres('PostgreSQL store: the record descriptors against the schema', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'descriptors');

  it('every descriptor writes only columns its table has, and every column that needs a value (NOT NULL, no default)', async () => {
    const { pool } = open().connection;
    for (const { descriptor } of DESCRIPTOR_CASES) {
      const { rows } = await pool.query<{ column_name: string; required: boolean }>(
        `SELECT column_name, (is_nullable = 'NO' AND column_default IS NULL AND is_identity = 'NO') AS required
           FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`, [descriptor.table],
      );
      const written = fieldColumns(descriptor).flatMap((f) => [...f.columns, ...f.copies]);
      const existing = rows.map((r) => r.column_name);
      expect(existing.length, descriptor.table).toBeGreaterThan(0);
      expect(written.filter((c) => !existing.includes(c)), `${descriptor.name}: columns the table lacks`).toEqual([]);
      expect(rows.filter((r) => r.required && !written.includes(r.column_name)).map((r) => r.column_name), `${descriptor.name}: required columns not written`).toEqual([]);
    }
  });

  it('a get is one named statement: parsed and planned once per connection, then only bound (the API\'s hot reads)', async () => {
    const client = await open().connection.pool.connect();
    try {
      for (const { descriptor, values } of DESCRIPTOR_CASES) {
        const table = new PgTable(descriptor);
        const text = `SELECT ${table.columns} FROM ${descriptor.table} WHERE ${table.keys.map((c, i) => `${c} = $${i + 1}`).join(' AND ')}`;
        for (const value of fc.sample(values, 2)) await table.get(client, keyOfRecord(descriptor, descriptor.encode(value)));
        const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1', [text]);
        expect(rows[0]!.n, descriptor.name).toBe(1);
      }
    } finally {
      client.release();
    }
  });

  for (const { descriptor, values } of DESCRIPTOR_CASES) {
    it(`${descriptor.name}: insert, get, then a delete, or a versioned replace and a stale one, keep the value exactly`, async () => {
      const table = new PgTable(descriptor);
      const { pool } = open().connection;
      await fc.assert(fc.asyncProperty(values, async (value) => {
        await pool.query(`TRUNCATE ${descriptor.table}`);
        await table.insert(pool, value);
        const id = keyOfRecord(descriptor, descriptor.encode(value));
        expect(await table.get(pool, id)).toEqual(value);
        // audit_entries is append-only: its trigger refuses a DELETE.
        if (!isVersioned(descriptor) && descriptor.table !== 'audit_entries') {
          expect(await table.delete(pool, id)).toBe(true);
          expect(await table.get(pool, id)).toBeNull();
          expect(await table.delete(pool, id)).toBe(false);
        }
        if (!isVersioned(descriptor)) return;
        const version = (value as { version: number }).version;
        const next = { ...(value as object), version: version + 1 };
        expect(await table.replace(pool, next)).toBe(true);
        expect(await table.get(pool, id)).toEqual(next);
        expect(await table.replace(pool, next)).toBe(false);
      }), { numRuns: 8 });
    });
  }
});
