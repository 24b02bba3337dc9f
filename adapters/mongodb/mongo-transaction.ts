import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClientSession, Collection, Db, Document, MongoClient } from 'mongodb';

/** An atomic scope (UnitOfWork.atomically, decision 144): the transaction's session, for every collection of `db`. */
interface AtomicScope {
  readonly client: MongoClient;
  readonly db: Db;
  readonly session: ClientSession;
}

const scopes = new AsyncLocalStorage<AtomicScope>();

/** Carries a business outcome out of a transaction callback; throwing it makes the driver abort the transaction. */
class TransactionOutcome<O> extends Error {
  constructor(readonly outcome: O) {
    super('transaction aborted with a business outcome');
  }
}

/**
 * Runs `work` in a multi-document transaction (replica set or mongos; see connectMongo). `withTransaction` retries
 * the whole callback on transient errors (write conflicts between concurrent transactions), so `work` must only issue
 * writes derived from its inputs. Calling `abort(outcome)` rolls back every write made so far and makes the call
 * resolve to `outcome`; any other error rolls back and propagates.
 *
 * With `client` null (a standalone server accepted by connectMongo's `allowStandalone`) `work` runs once without a
 * session: every write still applies its own conditions, but nothing is rolled back — callers that must undo a write
 * on `abort` do so themselves (see MongoWalletRepository).
 */
export async function inTransaction<T, O = never>(
  client: MongoClient | null,
  work: (session: ClientSession | undefined, abort: (outcome: O) => never) => Promise<T>,
): Promise<T | O> {
  const abort = (outcome: O): never => {
    throw new TransactionOutcome(outcome);
  };
  try {
    if (client === null) return await work(undefined, abort);
    // Inside an atomic scope of this client: the scope's transaction (MongoDB has no nested transactions; an abort
    // here throws out of the scope, which rolls back all of it unless the caller catches the outcome).
    const scope = scopes.getStore();
    if (scope !== undefined && scope.client === client) return await work(scope.session, abort);
    return await client.withSession((session) =>
      session.withTransaction(() => work(session, abort), {
        readConcern: { level: 'snapshot' },
        writeConcern: { w: 'majority' },
        readPreference: 'primary',
      }),
    );
  } catch (error) {
    if (error instanceof TransactionOutcome) return error.outcome as O;
    throw error;
  }
}

/**
 * Runs `work` in one transaction whose session every collection of `db` (as returned by scopedDb) uses while it runs,
 * so repositories join it without passing a session. A nested call joins the outer transaction.
 */
export async function inAtomicScope<T>(client: MongoClient, db: Db, work: () => Promise<T>): Promise<T> {
  const outer = scopes.getStore();
  if (outer !== undefined && outer.db === db) return work();
  return inTransaction<T>(client, (session) => scopes.run({ client, db, session: session! }, work));
}

/** Where each Collection method that takes a session has its options argument. */
const OPTIONS_AT: Readonly<Record<string, number>> = {
  insertOne: 1, insertMany: 1, bulkWrite: 1, deleteOne: 1, deleteMany: 1, findOne: 1, find: 1, findOneAndDelete: 1,
  countDocuments: 1, aggregate: 1, updateOne: 2, updateMany: 2, replaceOne: 2, findOneAndUpdate: 2, findOneAndReplace: 2,
  distinct: 2,
};

/**
 * The arguments of a Collection method call with the scope's session in its options, unless they name a session
 * already or the method takes none; missing leading arguments (a filter) become `{}`.
 */
export function withSessionArgument(method: string, args: readonly unknown[], session: ClientSession): unknown[] {
  const at = OPTIONS_AT[method];
  if (at === undefined) return [...args];
  const next = [...args];
  while (next.length < at) next.push({});
  const options = (next[at] ?? {}) as Record<string, unknown>;
  if (options['session'] === undefined) next[at] = { ...options, session };
  return next;
}

/**
 * `db` whose collections take the session of the atomic scope they are called in (inAtomicScope on this same
 * object); outside a scope they are the plain collections.
 */
export function scopedDb(db: Db): Db {
  const scoped: Db = new Proxy(db, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      if (property !== 'collection') return (value as (...a: unknown[]) => unknown).bind(target);
      return (name: string, options?: unknown) => scopedCollection(target.collection<Document>(name, options as never));
    },
  });
  const scopedCollection = (collection: Collection<Document>): Collection<Document> => new Proxy(collection, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      const method = value as (...a: unknown[]) => unknown;
      return (...args: unknown[]) => {
        const scope = scopes.getStore();
        return method.apply(target, scope !== undefined && scope.db === scoped ? withSessionArgument(String(property), args, scope.session) : args);
      };
    },
  });
  return scoped;
}
