import type pg from 'pg';
import type { OperatorStatusKind, OperatorStatusRecord, OperatorStatusStore } from '../../core/ports/operator-status-store.port.js';
import { guarded, jsonb } from './pg-support.js';

/** The operator status, one row per kind; a put is one upsert that replaces the row only when it is not newer. */
export class PgOperatorStatusStore implements OperatorStatusStore {
  constructor(private readonly pool: pg.Pool) {}

  put(kind: OperatorStatusKind, body: OperatorStatusRecord['body'], at: number): Promise<boolean> {
    return guarded('operator status put', async () => {
      const result = await this.pool.query(
        `INSERT INTO operator_status (kind, body, at) VALUES ($1, $2, $3)
         ON CONFLICT (kind) DO UPDATE SET body = excluded.body, at = excluded.at WHERE operator_status.at <= excluded.at`,
        [kind, jsonb(body), at],
      );
      return result.rowCount === 1;
    });
  }

  /** One statement: an insert that yields to an existing row (expected null), else an update guarded by jsonb equality. */
  replace(kind: OperatorStatusKind, body: OperatorStatusRecord['body'], at: number, expected: OperatorStatusRecord['body'] | null): Promise<boolean> {
    return guarded('operator status replace', async () => {
      const result = expected === null
        ? await this.pool.query('INSERT INTO operator_status (kind, body, at) VALUES ($1, $2, $3) ON CONFLICT (kind) DO NOTHING', [kind, jsonb(body), at])
        : await this.pool.query('UPDATE operator_status SET body = $2, at = $3 WHERE kind = $1 AND body = $4::jsonb', [kind, jsonb(body), at, jsonb(expected)]);
      return result.rowCount === 1;
    });
  }

  get(kind: OperatorStatusKind): Promise<OperatorStatusRecord | null> {
    return guarded('operator status get', async () => {
      const { rows } = await this.pool.query<{ body: OperatorStatusRecord['body']; at: string }>(
        'SELECT body, at FROM operator_status WHERE kind = $1', [kind],
      );
      const row = rows[0];
      return row === undefined ? null : { kind, body: row.body, at: Number(row.at) };
    });
  }
}
