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
