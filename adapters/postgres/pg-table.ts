import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import {
  fieldColumns, isVersioned, keyColumns, keyParts, type FieldColumns, type IdKey, type KeyField, type KeyValue, type RecordDescriptor,
} from '../records/record-descriptor.js';
import { prepared } from './pg-prepared.js';
import {
  insertOnce, insertRow, insertStatement, json, jsonb, pageOf, storable, type Queryable, type Row, type Statement, type TogetherWrite,
} from './pg-support.js';

/**
 * A record's table, derived from its descriptor (issue #39 item 6): the row mapping (record <-> row, each field in its
 * column(s) with its column codec) and the plain statements every table repeats. A repository holds one and keeps its
 * own port methods and its special queries (claims, quotas, velocity); this is a value it uses, not a base class.
 * Reads name their columns (never `SELECT *`) and go as named statements (pg-prepared.ts): a get is one prepared
 * statement. A key of several fields (an allow-list entry's user and address) is matched column by column.
 */
export class PgTable<D, R extends object, K extends KeyField<R> = IdKey<R>> {
  /** The table's columns the mapping reads, comma-separated (for a repository's own SELECT or RETURNING). */
  readonly columns: string;
  /** The key's column, or its columns comma-separated (the primary key, as an ON CONFLICT target names it). */
  readonly key: string;
  /** The key's columns, in order. */
  readonly keys: readonly string[];
  /** `k1 = $1 AND k2 = $2 …`: the key matched from the first parameters. */
  readonly keyMatch: string;
  private readonly fields: readonly FieldColumns<R>[];
  private readonly getText: string;
  private readonly deleteText: string;
  /** The columns of the descriptor's fixed fields. */
  private readonly fixed: readonly string[];

  constructor(readonly descriptor: RecordDescriptor<D, R, K>) {
    this.fields = fieldColumns(descriptor);
    this.columns = this.fields.flatMap((f) => f.columns).join(', ');
    this.keys = keyColumns(descriptor);
    this.key = this.keys.join(', ');
    this.keyMatch = this.keys.map((c, i) => `${c} = $${i + 1}`).join(' AND ');
    this.fixed = this.fields.filter((f) => descriptor.fixed?.includes(f.field as keyof R) === true).flatMap((f) => f.columns);
    this.getText = `SELECT ${this.columns} FROM ${descriptor.table} WHERE ${this.keyMatch}`;
    this.deleteText = `DELETE FROM ${descriptor.table} WHERE ${this.keyMatch}`;
  }

  get table(): string {
    return this.descriptor.table;
  }

  /** Domain value -> row: the codec, then each field into its column(s) (JSONB and JSON encoded). */
  toRow(value: D): Row {
    const record = this.descriptor.encode(value);
    const row: Row = {};
    for (const field of this.fields) {
      const values = field.write(record);
      [...field.columns, ...field.copies].forEach((column, i) => {
        const v = values[i] ?? null;
        const codec = field.codecs[i];
        row[column] = codec === 'jsonb' ? jsonb(v) : codec === 'json' ? json(v) : v;
      });
    }
    return row;
  }

  /** Row (with at least `columns`) -> domain value: each field from its column(s), then the codec. */
  fromRow(row: Row): D {
    const record: Record<string, unknown> = {};
    for (const field of this.fields) {
      const value = field.read(field.columns.map((c) => row[c]));
      if (value !== undefined) record[field.field] = value;
    }
    return this.descriptor.decode(record as unknown as R);
  }

  /** The value stored under `key` (the id, or an object of the key's fields), or null. One named statement. */
  async get(q: Queryable, key: KeyValue<R, K>): Promise<D | null> {
    const { rows } = await prepared(q).query(this.getText, [...keyParts(this.descriptor, key)]);
    return rows.length === 0 ? null : this.fromRow(rows[0] as Row);
  }

  /** The values stored under `ids` (one statement, `= ANY($1)`), by key; a key not stored is absent. A one-column key only. */
  async getMany<I extends KeyValue<R, K> & (string | number)>(q: Queryable, ids: readonly I[]): Promise<Map<I, D>> {
    if (this.keys.length !== 1) throw new TypeError(`${this.descriptor.name}: getMany needs a one-column key`);
    const { rows } = await prepared(q).query(`SELECT ${this.columns} FROM ${this.table} WHERE ${this.key} = ANY($1)`, [ids]);
    return new Map((rows as Row[]).map((row) => [row[this.key] as I, this.fromRow(row)]));
  }

  /** DELETE of the value stored under `key`; true when one was there. One named statement. */
  async delete(q: Queryable, key: KeyValue<R, K>): Promise<boolean> {
    return (await prepared(q).query(this.deleteText, [...keyParts(this.descriptor, key)])).rowCount === 1;
  }

  /** The values matching `where` (parameters `$1…`), in `order` when given, at most `limit` when given. */
  async select(q: Queryable, where: string, params: readonly unknown[], order?: string, limit?: number): Promise<D[]> {
    const ordered = order === undefined ? '' : ` ORDER BY ${order}`;
    const limited = limit === undefined ? '' : ` LIMIT $${params.length + 1}`;
    const values = limit === undefined ? [...params] : [...params, limit];
    const { rows } = await q.query(`SELECT ${this.columns} FROM ${this.table} WHERE ${where}${ordered}${limited}`, values);
    return (rows as Row[]).map((row) => this.fromRow(row));
  }

  /** The first value matching `where` in `order`, or null. */
  async first(q: Queryable, where: string, params: readonly unknown[], order?: string): Promise<D | null> {
    const [found] = await this.select(q, where, params, order, 1);
    return found ?? null;
  }

  /** INSERT; a unique violation is thrown for the caller to classify. `extra` adds columns only this store keeps. */
  insert(q: Queryable, value: D, extra: Row = {}): Promise<void> {
    return insertRow(q, this.table, { ...this.toRow(value), ...extra });
  }

  /** insert as one write of a combined statement (writeTogether). */
  insertWrite(value: D, extra: Row = {}): TogetherWrite {
    const row = { ...this.toRow(value), ...extra };
    return { statement: (from) => insertStatement(this.table, row, from) };
  }

  /** INSERT unless it breaks a unique constraint (`conflict`, default any); true when written. */
  insertOnce(q: Queryable, value: D, conflict = '', extra: Row = {}): Promise<boolean> {
    return insertOnce(q, this.table, { ...this.toRow(value), ...extra }, conflict);
  }

  /** The versioned replace: written only over the stored `version - 1`; false when another writer moved it or it is gone. */
  async replace(q: Queryable, value: D, extra: Row = {}): Promise<boolean> {
    const { text, values } = this.replaceStatement(this.versionedRow(value, extra), 1);
    return (await q.query(text, values)).rowCount === 1;
  }

  /** replace as one write of a combined statement (writeTogether); a lost race undoes the whole statement. */
  replaceWrite(value: D, extra: Row = {}): TogetherWrite {
    const row = this.versionedRow(value, extra);
    return {
      statement: (from) => this.replaceStatement(row, from),
      replaces: { entity: this.descriptor.name, id: this.keyText(row) },
    };
  }

  /**
   * The save of a versioned record: version 1 inserts (under the key's uniqueness), a later version replaces the one
   * before it; either losing a race is a ConcurrencyConflict naming the record.
   */
  async save(q: Queryable, value: D): Promise<void> {
    const row = this.versionedRow(value, {});
    const written = row.version === 1 ? await insertOnce(q, this.table, row, `(${this.key})`) : await this.replace(q, value);
    if (!written) throw new ConcurrencyConflict(this.descriptor.name, this.keyText(row));
  }

  /** Offset/limit slice of the values matching `where` in `order`, plus their total (two named statements). */
  page(q: Queryable, from: { where: string; order: string; params: readonly unknown[] }, page: PageRequest): Promise<Page<D>> {
    return pageOf(q, { table: this.table, columns: this.columns, ...from }, (row) => this.fromRow(row), page);
  }

  /**
   * The versioned replace's UPDATE, parameters from `$from`: every column is written where the key and the fixed
   * fields' columns match (matched, never written: a replace cannot move a record to another identity) and the stored
   * version is `version - 1`.
   */
  private replaceStatement(row: Row & { version: number }, from: number): Statement {
    const matched = [...this.keys, ...this.fixed];
    const written = Object.keys(row).filter((c) => !matched.includes(c));
    const where = matched.map((c, i) => `${c} = $${from + i}`).join(' AND ');
    return {
      text: `UPDATE ${this.table} SET ${written.map((c, i) => `${c} = $${from + matched.length + 1 + i}`).join(', ')} `
        + `WHERE ${where} AND version = $${from + matched.length}`,
      values: [...matched.map((c) => row[c]), row.version - 1, ...written.map((c) => storable(row[c]))],
    };
  }

  /** A row's key as a ConcurrencyConflict names it: the key's value, or its columns' values joined by '/'. */
  private keyText(row: Row): string {
    return this.keys.map((c) => String(row[c])).join('/');
  }

  private versionedRow(value: D, extra: Row): Row & { version: number } {
    if (!isVersioned(this.descriptor)) {
      throw new TypeError(`${this.descriptor.name} is not versioned`);
    }
    return { ...this.toRow(value), ...extra } as Row & { version: number };
  }
}
