import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../../contracts-tests/support/depth.js';
import type { CollectionTask } from '../../core/domain/model/collection-task.js';
import { COLLECTION_TASK_RECORD } from '../records/collection-task-record.js';
import { COMMAND_RECORD } from '../records/command-record.js';
import { DEPOSIT_RECORD } from '../records/deposit-record.js';
import { fieldColumns, keyParts } from '../records/record-descriptor.js';
import { ALLOW_LIST_ENTRY_RECORD } from '../records/withdrawal-policy-record.js';
import { command, lease, ms, optMs, task } from '../records/testing/record-arbitraries.js';
import { allowListEntry, deposit, DESCRIPTOR_CASES } from '../records/testing/descriptor-cases.js';
import type { Row } from './pg-support.js';
import { PgTable } from './pg-table.js';

// The row mapping a PgTable derives from a descriptor, checked without a server (the contract suites check it against
// PostgreSQL): domain -> row -> what the driver hands back -> domain is the identity for every record, and the row
// holds exactly the descriptor's columns.

/** What pg returns for a row it stored: JSON and JSONB parsed, everything else as sent (BIGINT parsed to numbers). */
function throughDriver(table: PgTable<unknown, never>, row: Row): Row {
  const parsed: Row = { ...row };
  for (const field of fieldColumns(table.descriptor)) {
    field.columns.forEach((column, i) => {
      const value = row[column];
      if (field.codecs[i] !== 'value' && typeof value === 'string') parsed[column] = JSON.parse(value);
    });
  }
  return parsed;
}

describe('PgTable: the row mapping of every descriptor', () => {
  for (const { descriptor, values } of DESCRIPTOR_CASES) {
    const table = new PgTable(descriptor) as unknown as PgTable<unknown, never>;

    it(`${descriptor.name}: domain -> row -> driver -> domain is the identity; the row is the descriptor's columns`, () => {
      const written = fieldColumns(descriptor).flatMap((f) => [...f.columns, ...f.copies]);
      fc.assert(fc.property(values, (value) => {
        const row = table.toRow(value);
        expect(Object.keys(row).sort()).toEqual([...written].sort());
        expect(Object.values(row)).not.toContain(undefined);
        expect(table.fromRow(throughDriver(table, row))).toEqual(value);
      }), { numRuns: runs(40) });
    });
  }

  it('reads only the columns it maps (never `*`), the key first', () => {
    const commands = new PgTable(COMMAND_RECORD);
    expect(commands.key).toBe('command_no');
    expect(commands.columns.split(', ')[0]).toBe('command_no');
    expect(commands.columns).toContain('lease_owner, lease_expires_at');
    // The reclaim claim's copies are written, never read back.
    expect(new PgTable(COLLECTION_TASK_RECORD).columns).not.toMatch(/reclaim_status|reclaim_next_run_at|reclaim_lease_expires_at/);
  });

  it('splits a lease over its two columns, and copies a reclaim\'s status, schedule and lease expiry for its claim', () => {
    const tasks = new PgTable(COLLECTION_TASK_RECORD);
    const reclaim = fc.record({ status: fc.constantFrom('pending' as const, 'done' as const), steps: fc.constant([]), nextRunAt: ms, lease, finishedAt: optMs });
    const withReclaim = fc.tuple(task, fc.option(reclaim, { nil: undefined })).map(([t, r]): CollectionTask => (r === undefined ? t : { ...t, reclaim: r }));
    fc.assert(fc.property(withReclaim, (value) => {
      expect(tasks.fromRow(throughDriver(tasks as unknown as PgTable<unknown, never>, tasks.toRow(value)))).toEqual(value);
      const row = tasks.toRow(value);
      expect([row['lease_owner'], row['lease_expires_at']]).toEqual(value.lease === null ? [null, null] : [value.lease.owner, value.lease.expiresAt]);
      expect(row['reclaim_status']).toBe(value.reclaim?.status ?? null);
      expect(row['reclaim_next_run_at']).toBe(value.reclaim?.nextRunAt ?? null);
      expect(row['reclaim_lease_expires_at']).toBe(value.reclaim?.lease?.expiresAt ?? null);
    }), { numRuns: runs(40) });
  });

  it('writes a command stored without a schedule as due at its creation', () => {
    const encode = (c: Parameters<typeof COMMAND_RECORD.encode>[0]) => ({ ...COMMAND_RECORD.encode(c), nextRunAt: undefined });
    const commands = new PgTable({ ...COMMAND_RECORD, encode } as unknown as typeof COMMAND_RECORD);
    fc.assert(fc.property(command, (value) => {
      expect(commands.toRow(value)['next_run_at']).toBe(value.createdAt);
    }), { numRuns: runs(20) });
  });

  it('a versioned replace matches the key, the fixed fields and the previous version, and never writes the fixed fields', () => {
    const deposits = new PgTable(DEPOSIT_RECORD);
    fc.assert(fc.property(deposit, (value) => {
      const { text, values } = deposits.replaceWrite(value).statement(3);
      const [set, where] = text.replace(/^UPDATE deposits SET /, '').split(' WHERE ');
      expect(where).toBe('deposit_id = $3 AND transfer_id = $4 AND network_code = $5 AND version = $6');
      expect(set).not.toMatch(/deposit_id|transfer_id|network_code/);
      expect(values.slice(0, 4)).toEqual([value.depositId, value.transferId, value.networkCode, value.version - 1]);
      expect(set!.split(', ')).toHaveLength(values.length - 4);
    }), { numRuns: runs(20) });
  });

  it('a key of several fields is matched column by column, in the primary key\'s order; a single key stays `= $1`', async () => {
    const entries = new PgTable(ALLOW_LIST_ENTRY_RECORD);
    expect(entries.keys).toEqual(['user_id', 'address']);
    expect(entries.key).toBe('user_id, address');
    expect(entries.keyMatch).toBe('user_id = $1 AND address = $2');
    expect(new PgTable(COMMAND_RECORD).keyMatch).toBe('command_no = $1');
    const sent: { text: string; values: readonly unknown[] }[] = [];
    const q = { query: async (config: { text: string; values: unknown[] }) => (sent.push(config), { rows: [], rowCount: 0 }) };
    fc.assert(fc.property(allowListEntry, (entry) => {
      expect(keyParts(ALLOW_LIST_ENTRY_RECORD, entry)).toEqual([entry.userId, entry.address]);
    }), { numRuns: runs(20) });
    await entries.get(q as never, { userId: 7, address: 'Tx' });
    await entries.delete(q as never, { address: 'Tx', userId: 7 });
    expect(sent.map((s) => [s.text, s.values])).toEqual([
      [`SELECT ${entries.columns} FROM allow_list_entries WHERE user_id = $1 AND address = $2`, [7, 'Tx']],
      ['DELETE FROM allow_list_entries WHERE user_id = $1 AND address = $2', [7, 'Tx']],
    ]);
    // A key missing a field is refused before any statement (it would match nothing, or the wrong rows).
    await expect(entries.get(q as never, { userId: 7 } as never)).rejects.toThrow(TypeError);
    expect(sent).toHaveLength(2);
  });
});
