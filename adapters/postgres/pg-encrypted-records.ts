import type pg from 'pg';
import type { EncryptedEnvelope } from '../../core/domain/model/common.js';
import type { EncryptedRecord, EncryptedRecordStore, RecordCursor } from '../../core/ports/encrypted-record-store.port.js';

/**
 * Where each kind of secret lives: table, key, the envelope's expression and how to write it, and the aad its owner
 * binds it to. The TOTP secret sits inside `accounts.two_factor` (migration 0012).
 */
const SOURCES = {
  'wallet-key': { table: 'wallet_addresses', key: 'id', column: 'encrypted_key', set: 'encrypted_key = $2::jsonb', aad: (row: SecretRow) => row.address! },
  'webhook-secret': { table: 'developer_configs', key: 'user_id', column: 'secret', set: 'secret = $2::jsonb', aad: (row: SecretRow) => `webhook-secret:${row.id}` },
  'totp-secret': {
    table: 'accounts', key: 'id', column: "two_factor->'secret'", set: "two_factor = jsonb_set(two_factor, '{secret}', $2::jsonb)",
    aad: (row: SecretRow) => `totp:${row.id}`,
  },
} as const;
const KINDS = ['wallet-key', 'webhook-secret', 'totp-secret'] as const;

interface SecretRow {
  readonly id: number;
  readonly address: string | null;
  readonly envelope: EncryptedEnvelope;
}

/**
 * The EncryptedRecordStore port on PostgreSQL (keys:rotate; contract: contracts-tests/encrypted-record-store.contract.ts).
 * Lists `wallet_addresses.encrypted_key`, `developer_configs.secret`, then `accounts.two_factor`'s secret by key; a replace is one UPDATE
 * whose condition is the old envelope's key id, iv and ciphertext (compare-and-set), and it bumps the row's version:
 * a save that read the row before the re-wrap then fails its version check instead of writing the old envelope back.
 */
export class PgEncryptedRecords implements EncryptedRecordStore {
  constructor(private readonly pool: pg.Pool) {}

  async list(after: RecordCursor | null, limit: number): Promise<EncryptedRecord[]> {
    const out: EncryptedRecord[] = [];
    for (const kind of KINDS) {
      if (after !== null && KINDS.indexOf(kind) < KINDS.indexOf(after.kind)) continue;
      const source = SOURCES[kind];
      const from = after !== null && after.kind === kind ? Number(after.id) : -1;
      const { rows } = await this.pool.query<SecretRow>(
        `SELECT ${source.key} AS id, ${kind === 'wallet-key' ? 'address' : 'NULL::text AS address'}, ${source.column} AS envelope
         FROM ${source.table} WHERE ${source.column} IS NOT NULL AND jsonb_typeof(${source.column}) = 'object' AND ${source.key} > $1
         ORDER BY ${source.key} LIMIT $2`,
        [from, limit - out.length],
      );
      for (const row of rows) {
        const { keyId, iv, ciphertext, tag } = row.envelope;
        out.push({ kind, id: String(row.id), aad: source.aad(row), envelope: { keyId, iv, ciphertext, tag } });
      }
      if (out.length >= limit) break;
    }
    return out;
  }

  async replace(record: EncryptedRecord, next: EncryptedEnvelope): Promise<boolean> {
    const { table, key, column, set } = SOURCES[record.kind];
    const result = await this.pool.query(
      `UPDATE ${table} SET ${set}, version = version + 1
       WHERE ${key} = $1 AND ${column}->>'keyId' = $3 AND ${column}->>'iv' = $4 AND ${column}->>'ciphertext' = $5`,
      [Number(record.id), JSON.stringify({ keyId: next.keyId, iv: next.iv, ciphertext: next.ciphertext, tag: next.tag }),
        record.envelope.keyId, record.envelope.iv, record.envelope.ciphertext],
    );
    return result.rowCount === 1;
  }
}
