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

/** A stored record keyed by its `id` (MongoDB's `_id`, the table's primary key): the default key. */
export interface KeyedRecord {
  id: string | number;
}

/** A field of the record that can be part of its key. */
export type KeyField<R> = keyof R & string;

/** The default key: the `id` field (never for a record without one). */
export type IdKey<R> = 'id' & KeyField<R>;

/**
 * A key's value as the stores take it: the `id` itself for the default key; for a key of named fields (one or
 * several: an allow-list entry's user and address) an object of those fields.
 */
export type KeyValue<R, K extends KeyField<R>> = [K] extends ['id'] ? R[K] : Pick<R, K>;

/** The descriptor of one record kind. `fields` must name every field of the record (a missing one is a compile error). */
export interface RecordDescriptor<D, R extends object, K extends KeyField<R> = IdKey<R>> {
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
  /**
   * The fields of the key, in the primary key's order; absent: `id` alone. A record keyed by named fields keeps them
   * in its MongoDB document too, beside the `_id` that `documentId` makes of them (required with `key`).
   */
  readonly key?: readonly K[];
  /** MongoDB's `_id` of a record keyed by named fields (a string joining them, as the collection already stores it). */
  readonly documentId?: (key: Pick<R, K>) => string | number;
  /** Fields a versioned replace matches and never writes (an identity beside the key: a deposit's transfer). */
  readonly fixed?: readonly (keyof R)[];
  /** Field -> where it lives in a table. A `version` field makes the record versioned. */
  readonly fields: { readonly [F in keyof Required<R>]: FieldSpec<R, R[F]> };
}

/** Declares a descriptor (the identity, for inference, the completeness check of `fields` and the collection's literal name). */
export function describeRecord<D, R extends object, K extends KeyField<R> = IdKey<R>, C extends string = string>(
  descriptor: RecordDescriptor<D, R, K> & { readonly collection: C },
): RecordDescriptor<D, R, K> & { readonly collection: C } {
  return descriptor;
}

/** Any descriptor, its types erased (for code that only reads its shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDescriptor = RecordDescriptor<any, any, any>;

/** Whether the record carries an optimistic version (replace only from `version - 1`; insert at version 1). */
export function isVersioned(descriptor: AnyDescriptor): boolean {
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
export function fieldColumns<D, R extends object, K extends KeyField<R>>(descriptor: RecordDescriptor<D, R, K>): readonly FieldColumns<R>[] {
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

/** The key's fields, in order: the descriptor's `key`, or `id` alone. */
export function keyFields(descriptor: AnyDescriptor): readonly string[] {
  const key = (descriptor.key as readonly string[] | undefined) ?? ['id'];
  const missing = key.filter((field) => !(field in descriptor.fields));
  if (key.length === 0 || missing.length > 0) throw new TypeError(`${descriptor.name}: the key needs fields it has (${missing.join(', ')})`);
  return key;
}

/** The key's columns, in order (each key field must live in one column). */
export function keyColumns(descriptor: AnyDescriptor): readonly string[] {
  return keyFields(descriptor).map((field) => {
    const spec = (descriptor.fields as Record<string, FieldSpec<unknown, unknown>>)[field]!;
    if (typeof spec === 'string') return spec;
    if ('column' in spec) return spec.column;
    throw new TypeError(`${descriptor.name}: the key field ${field} must live in one column`);
  });
}

/** The key fields' values in `keyFields` order, from a key value (KeyValue) or from a whole record. */
export function keyParts(descriptor: AnyDescriptor, key: unknown): readonly unknown[] {
  const fields = keyFields(descriptor);
  if (descriptor.key === undefined && (key === null || typeof key !== 'object')) return [key];
  const parts = fields.map((field) => (key as Record<string, unknown> | null)?.[field]);
  if (parts.some((part) => part === undefined || part === null)) throw new TypeError(`${descriptor.name}: a key needs ${fields.join(', ')}`);
  return parts;
}

/** A record's key as its KeyValue (the `id`, or an object of the key fields). */
export function keyOfRecord<R extends object, K extends KeyField<R>>(descriptor: RecordDescriptor<unknown, R, K>, record: R): KeyValue<R, K> {
  if (descriptor.key === undefined) return (record as unknown as KeyedRecord).id as KeyValue<R, K>;
  return Object.fromEntries(keyFields(descriptor).map((f) => [f, (record as Record<string, unknown>)[f]])) as KeyValue<R, K>;
}
