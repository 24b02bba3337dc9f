import type { ClientSession, Collection, Db, Document, Filter, Sort } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import {
  keyFields, keyParts, type IdKey, type KeyField, type KeyValue, type RecordDescriptor,
} from '../records/record-descriptor.js';
import { fromMongoDocument, isDuplicateKey, pageFrom, refuseBigints, toMongoDocument, type MongoDocument } from './mongo-support.js';

/**
 * A record's collection, derived from its descriptor (issue #39 item 6), as PgTable is its table: a document is the
 * shared record with `id` as `_id` (toMongoDocument), so the descriptor's codec and key are all MongoDB needs; its
 * column names are the relational store's. A repository holds one and keeps its port methods and what is special
 * (claims, quotas, velocity, lock slots); fields only MongoDB writes (`insertedSeq`, slots) come in as `extra`.
 * A record keyed by named fields keeps them in the document, beside the `_id` its descriptor's `documentId` makes of
 * them (the allow-list's `user\u0000address`, as stored before descriptors).
 */

/** A record's document: `id` as `_id`; or, keyed by named fields, the record beside the `_id` made of them. */
export type DocumentOf<R, K extends KeyField<R>> = [K] extends ['id'] ? MongoDocument<R & { id: unknown }> : R & { _id: string | number };

/** The `_id` of a key (the id, or an object of the key's fields, or a whole record). */
export function documentIdOf<D, R extends object, K extends KeyField<R>>(descriptor: RecordDescriptor<D, R, K>, key: unknown): string | number {
  if (descriptor.key === undefined) return keyParts(descriptor, key)[0] as string | number;
  if (descriptor.documentId === undefined) throw new TypeError(`${descriptor.name}: a key of named fields needs a documentId`);
  const parts = keyParts(descriptor, key);
  return descriptor.documentId(Object.fromEntries(keyFields(descriptor).map((f, i) => [f, parts[i]])) as Pick<R, K>);
}

/** Domain value -> document: the codec, the key as `_id`; a bigint anywhere is a mapper bug, refused (see refuseBigints). */
export function toDocument<D, R extends object, K extends KeyField<R>>(descriptor: RecordDescriptor<D, R, K>, value: D): DocumentOf<R, K> {
  const record = descriptor.encode(value);
  const doc = descriptor.key === undefined
    ? toMongoDocument(record as unknown as { id: string | number })
    : { _id: documentIdOf(descriptor, record), ...record };
  return refuseBigints(doc as DocumentOf<R, K>, descriptor.name);
}

/** Document -> domain value: `_id` as `id` (or dropped: the key's fields are in the document), then the codec. */
export function fromDocument<D, R extends object, K extends KeyField<R>>(descriptor: RecordDescriptor<D, R, K>, doc: { _id: unknown }): D {
  if (descriptor.key === undefined) return descriptor.decode(fromMongoDocument(doc) as unknown as R);
  const { _id, ...record } = doc;
  return descriptor.decode(record as unknown as R);
}

/**
 * The `$set` and the filter of a versioned replace: every field of the descriptor but the key and the fixed ones is
 * written where the key and the fixed fields match and the stored version is `version - 1`. A field the record leaves
 * out is written as null ($set keeps a field it is not given; the codecs read null as absent), so a replace replaces.
 * Fields only MongoDB writes are not the descriptor's and stay as they are. Pure.
 */
export function replaceOf<D, R extends object, K extends KeyField<R>>(
  descriptor: RecordDescriptor<D, R, K>, value: D,
): { filter: Document; set: Document } {
  const { _id, ...fields } = toDocument(descriptor, value) as Document;
  const record = fields as Record<string, unknown>;
  const key = keyFields(descriptor);
  for (const field of key) delete record[field];
  for (const field of Object.keys(descriptor.fields)) if (!key.includes(field) && record[field] === undefined) record[field] = null;
  const filter: Document = { _id };
  for (const field of descriptor.fixed ?? []) {
    filter[field as string] = record[field as string];
    delete record[field as string];
  }
  filter['version'] = (record['version'] as number) - 1;
  return { filter, set: record };
}

/** A document keyed by a record's `id` (a string or a number, never an ObjectId), its other fields left open. */
export interface KeyedDocument {
  _id: string | number;
  [field: string]: unknown;
}

/** `session` as the driver's options (inside a transaction), or none. */
function inSession(session: ClientSession | undefined): { session?: ClientSession } {
  return session === undefined ? {} : { session };
}

/** The plain operations of one collection, from its descriptor. */
export class MongoTable<D, R extends object, K extends KeyField<R> = IdKey<R>> {
  /** The collection, typed loosely: filters are written by the repositories, over the record's field names. */
  readonly collection: Collection<KeyedDocument>;

  constructor(db: Db, readonly descriptor: RecordDescriptor<D, R, K>) {
    this.collection = db.collection(descriptor.collection);
    if (descriptor.key !== undefined && descriptor.documentId === undefined) throw new TypeError(`${descriptor.name}: a key of named fields needs a documentId`);
  }

  /** The collection typed as its documents, for a repository's own queries and updates (claims, slots). */
  typed<T extends Document>(): Collection<T> {
    return this.collection as unknown as Collection<T>;
  }

  toDocument(value: D): DocumentOf<R, K> {
    return toDocument(this.descriptor, value);
  }

  /** The `_id` of a key (the id, or an object of the key's fields). */
  idOf(key: KeyValue<R, K>): string | number {
    return documentIdOf(this.descriptor, key);
  }

  fromDocument(doc: Document): D {
    return fromDocument(this.descriptor, doc as { _id: unknown });
  }

  /** The value stored under `key` (the id, or an object of the key's fields), or null. */
  async get(key: KeyValue<R, K>, session?: ClientSession): Promise<D | null> {
    const doc = await this.collection.findOne({ _id: this.idOf(key) }, inSession(session));
    return doc === null ? null : this.fromDocument(doc);
  }

  /** deleteOne of the value stored under `key`; true when one was there. */
  async delete(key: KeyValue<R, K>, session?: ClientSession): Promise<boolean> {
    return (await this.collection.deleteOne({ _id: this.idOf(key) }, inSession(session))).deletedCount === 1;
  }

  /** The values matching `filter`, in `sort` when given, at most `limit` when given. */
  async find(filter: Filter<KeyedDocument>, sort?: Sort, limit?: number, session?: ClientSession): Promise<D[]> {
    let cursor = this.collection.find(filter, inSession(session));
    if (sort !== undefined) cursor = cursor.sort(sort);
    if (limit !== undefined) cursor = cursor.limit(limit);
    return (await cursor.toArray()).map((doc) => this.fromDocument(doc));
  }

  /** The first value matching `filter` in `sort`, or null. */
  async first(filter: Filter<KeyedDocument>, sort?: Sort, session?: ClientSession): Promise<D | null> {
    const [found] = await this.find(filter, sort, 1, session);
    return found ?? null;
  }

  /** insertOne; a duplicate key is thrown for the caller to classify. `extra` adds fields only MongoDB keeps. */
  async insert(value: D, extra: Document = {}, session?: ClientSession): Promise<void> {
    await this.collection.insertOne({ ...(this.toDocument(value) as KeyedDocument), ...extra }, inSession(session));
  }

  /** insertOne unless a unique index refuses it; true when written. */
  async insertOnce(value: D, extra: Document = {}, session?: ClientSession): Promise<boolean> {
    try {
      await this.insert(value, extra, session);
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  /** The versioned replace (see replaceOf); false when another writer moved it or it is gone. */
  async replace(value: D, session?: ClientSession): Promise<boolean> {
    const { filter, set } = replaceOf(this.descriptor, value);
    const result = await this.collection.updateOne(filter as Filter<KeyedDocument>, { $set: set }, inSession(session));
    return result.matchedCount === 1;
  }

  /**
   * The save of a versioned record: version 1 inserts (with `extra`), a later version replaces the one before it;
   * either losing a race is a ConcurrencyConflict naming the record.
   */
  async save(value: D, extra: Document = {}, session?: ClientSession): Promise<void> {
    const record = this.descriptor.encode(value) as { version?: number };
    const written = record.version === 1 ? await this.insertOnce(value, extra, session) : await this.replace(value, session);
    if (!written) throw new ConcurrencyConflict(this.descriptor.name, String(documentIdOf(this.descriptor, record)));
  }

  /** Offset/limit slice of the values matching `filter` in `sort`, plus their total. */
  page(filter: Filter<KeyedDocument>, sort: Sort, page: PageRequest): Promise<Page<D>> {
    return pageFrom(
      () => this.collection.countDocuments(filter),
      async (skip, limit) => (await this.collection.find(filter).sort(sort).skip(skip).limit(limit).toArray()).map((doc) => this.fromDocument(doc)),
      page,
    );
  }
}

/** The MongoTable of a descriptor's type (`MongoTableOf<typeof ACCOUNT_RECORD>`). */
export type MongoTableOf<T> = T extends RecordDescriptor<infer D, infer R, infer K> ? MongoTable<D, R, K> : never;
