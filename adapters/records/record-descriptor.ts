/**
 * One descriptor per stored record (issue #39 item 6): what the record is called, where each store keeps it, its key,
 * whether it is versioned, its codec (the shared domain <-> record pair of this folder) and, for a relational store,
 * the column each field lives in. The stores derive their row or document mapping and their plain operations (get,
 * insert-once, versioned replace, page) from it; only what is special (claims, velocity, quotas, the ledger's
 * balance-after) stays hand-written in the repositories. A descriptor is data: no driver, no SQL, no query.
 */

/** How a field's value is kept in its column: as it is, as JSONB (nested values), or as JSON text (kept verbatim). */
export type ColumnCodec = 'value' | 'jsonb' | 'json';

/** A field kept in one column. */
export interface ColumnSpec<R, V> {
  readonly column: string;
  /** Default 'value'. */
  readonly codec?: ColumnCodec;
  /** What the column holds when the record leaves the field out (undefined or null); default null. */
  readonly absent?: (record: R) => unknown;
  /** Columns written beside it from the field and never read back: copies of parts a claim filters on. */
  readonly copies?: Readonly<Record<string, (value: V | undefined) => unknown>>;
}

/** A field kept in several columns (a command's lease: owner and expiry, each filtered on by a claim). */
export interface SplitSpec<V> {
  readonly columns: readonly string[];
  /** Each column's codec, in `columns`' order (a missing one: 'value'). */
  readonly codecs?: readonly ColumnCodec[];
  /** The field's value (undefined when the record leaves it out) -> one value per column, in `columns`' order. */
  split(value: V | undefined): readonly unknown[];
  /** The columns' values, in `columns`' order -> the field's value (undefined: the record leaves the field out). */
  join(values: readonly unknown[]): V | undefined;
}

/** Where a field lives: a column name (kept as it is), a column with its codec, or several columns. */
export type FieldSpec<R, V> = string | ColumnSpec<R, V> | SplitSpec<V>;

/** A stored record: a plain value with an `id` (MongoDB's `_id`, the table's primary key). */
export interface KeyedRecord {
  id: string | number;
}

/** The descriptor of one record kind. `fields` must name every field of the record (a missing one is a compile error). */
export interface RecordDescriptor<D, R extends KeyedRecord> {
  /** The entity as a ConcurrencyConflict names it ('account', 'developer config'). */
  readonly name: string;
  /** The PostgreSQL table. */
  readonly table: string;
  /** The MongoDB collection. */
  readonly collection: string;
  /** Domain value -> record (the shared codec). */
  readonly encode: (value: D) => R;
  /** Record -> domain value (the shared codec). */
  readonly decode: (record: R) => D;
  /** Fields a versioned replace matches and never writes (an identity beside the key: a deposit's transfer). */
  readonly fixed?: readonly (keyof R)[];
  /** Field -> where it lives in a table. `id` is the key; a `version` field makes the record versioned. */
  readonly fields: { readonly [F in keyof Required<R>]: FieldSpec<R, R[F]> };
}

/** Declares a descriptor (the identity, for inference and the completeness check of `fields`). */
export function describeRecord<D, R extends KeyedRecord>(descriptor: RecordDescriptor<D, R>): RecordDescriptor<D, R> {
  return descriptor;
}

/** Whether the record carries an optimistic version (replace only from `version - 1`; insert at version 1). */
export function isVersioned<D, R extends KeyedRecord>(descriptor: RecordDescriptor<D, R>): boolean {
  return 'version' in descriptor.fields;
}

/** A field's spec in its normal form: a list of columns, how to write them from the record, how to read them back. */
export interface FieldColumns<R> {
  readonly field: string;
  /** The columns the field is read from and written to. */
  readonly columns: readonly string[];
  /** One per column. */
  readonly codecs: readonly ColumnCodec[];
  /** Columns only written (ColumnSpec.copies), after `columns`, kept as they are. */
  readonly copies: readonly string[];
  /** The values of `columns`, then of `copies`. */
  write(record: R): readonly unknown[];
  read(values: readonly unknown[]): unknown;
}

/** The fields of a descriptor in their normal form, in declaration order (`id` first by convention). */
export function fieldColumns<D, R extends KeyedRecord>(descriptor: RecordDescriptor<D, R>): readonly FieldColumns<R>[] {
  return Object.entries(descriptor.fields as Record<string, FieldSpec<R, unknown>>).map(([field, spec]) => {
    const value = (record: R): unknown => (record as unknown as Record<string, unknown>)[field];
    if (typeof spec === 'string') {
      return { field, columns: [spec], codecs: ['value'], copies: [], write: (r: R) => [value(r) ?? null], read: ([v]: readonly unknown[]) => v };
    }
    if ('columns' in spec) {
      return {
        field, columns: spec.columns, codecs: spec.columns.map((_, i) => spec.codecs?.[i] ?? 'value'), copies: [],
        write: (r: R) => spec.split(value(r) as never), read: (vs: readonly unknown[]) => spec.join(vs),
      };
    }
    const absent = spec.absent ?? (() => null);
    const copies = Object.entries(spec.copies ?? {});
    return {
      field, columns: [spec.column], codecs: [spec.codec ?? 'value'], copies: copies.map(([column]) => column),
      write: (r: R) => [value(r) ?? absent(r), ...copies.map(([, of]) => of(value(r) ?? undefined) ?? null)],
      read: ([v]: readonly unknown[]) => v,
    };
  });
}

/** The key's column (the `id` field's, which must be one column). */
export function keyColumn<D, R extends KeyedRecord>(descriptor: RecordDescriptor<D, R>): string {
  const spec = descriptor.fields.id as FieldSpec<R, unknown>;
  if (typeof spec === 'string') return spec;
  if ('column' in spec) return spec.column;
  throw new TypeError(`${descriptor.name}: the id must live in one column`);
}
