import { MongoClient, type Db, type MongoClientOptions } from 'mongodb';
import { InfrastructureError, StoreError } from '../../core/domain/errors.js';
import { ensureIndexes } from './mongo-indexes.js';

/** Database used when neither the options nor the URL's path name one. */
export const DEFAULT_DATABASE = 'custody_hub';

/** An open connection: the client, the database the adapters use, and whether multi-document transactions work. */
export interface MongoConnection {
  readonly client: MongoClient;
  readonly db: Db;
  /**
   * True on a replica set member or mongos. False only when `allowStandalone` let a standalone server through: the
   * adapters then run without transactions (see createMongoAdapters for what that gives up).
   */
  readonly transactions: boolean;
  close(): Promise<void>;
}

/** Options of connectMongo; the defaults fail fast and refuse a server that cannot keep the unit of work atomic. */
export interface ConnectMongoOptions {
  /** Overrides the database named in the URL path (default: the path, else `custody_hub`). */
  readonly dbName?: string;
  /** How long the start-up probe waits for a usable server before giving up (ms). Default 2000. */
  readonly serverSelectionTimeoutMS?: number;
  /**
   * How long each later operation may wait for a primary (ms): long enough to ride out an election (~12 s) so a
   * failover delays writes instead of failing them. Default 30000.
   */
  readonly operationServerSelectionTimeoutMS?: number;
  /** Accept a standalone server (development only: no transactions). Default false. */
  readonly allowStandalone?: boolean;
  /** Create the store's indexes after connecting (idempotent). Default true. */
  readonly ensureIndexes?: boolean;
  /** Shown in the server's logs and currentOp. Default `custody-hub`. */
  readonly appName?: string;
}

/** The URL with any password replaced, so that it can appear in an error message or a log line. */
export function redactMongoUrl(url: string): string {
  return url.replace(/^(mongodb(?:\+srv)?:\/\/)([^@/]*)@/, (_match, scheme: string, credentials: string) =>
    `${scheme}${credentials.includes(':') ? `${credentials.split(':')[0]}:***` : credentials}@`);
}

function databaseFromUrl(url: string): string | null {
  const path = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]*)/.exec(url)?.[1];
  return path === undefined || path === '' ? null : decodeURIComponent(path);
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

/**
 * The durability every write of the store relies on (a write-ahead record that a failover rolls back could pay a
 * withdrawal twice): majority, journaled writes and reads from the primary. Fixed on the client, and a MONGODB_URL
 * that asks for less is refused rather than silently overridden. (The read concern stays the server's default: a
 * majority read concern was not verified here against the store's read-after-write paths.)
 */
export const REQUIRED_DURABILITY = {
  writeConcern: { w: 'majority', journal: true },
  readPreference: 'primary',
} as const satisfies Pick<MongoClientOptions, 'writeConcern' | 'readPreference'>;

/** Each URL option that would weaken REQUIRED_DURABILITY, with what it must be instead. */
export function weakeningOptions(url: string): string[] {
  const query = url.includes('?') ? new URLSearchParams(url.slice(url.indexOf('?') + 1)) : new URLSearchParams();
  const problems: string[] = [];
  for (const [rawName, value] of query) {
    const name = rawName.toLowerCase();
    if (name === 'w' && value !== 'majority') problems.push(`w=${value} (must be majority)`);
    if ((name === 'journal' || name === 'j') && value.toLowerCase() !== 'true') problems.push(`${rawName}=${value} (must be true)`);
    if (name === 'readpreference' && value.toLowerCase() !== 'primary') problems.push(`readPreference=${value} (must be primary)`);
    if (name === 'readconcernlevel' && !['majority', 'linearizable'].includes(value.toLowerCase())) problems.push(`readConcernLevel=${value} (must be majority)`);
    if (name === 'wtimeoutms' || name === 'wtimeout') problems.push(`${rawName} (a write timing out before majority is acknowledged is ambiguous)`);
  }
  return problems;
}

/** The client options connectMongo uses: the fixed durability, the lifetime selection timeout, the app name. */
export function mongoClientOptions(options: ConnectMongoOptions = {}): MongoClientOptions {
  return {
    ...REQUIRED_DURABILITY,
    serverSelectionTimeoutMS: options.operationServerSelectionTimeoutMS ?? 30_000,
    connectTimeoutMS: 10_000,
    appName: options.appName ?? 'custody-hub',
  };
}

/**
 * Connects to MONGODB_URL, checks the server answers within `serverSelectionTimeoutMS`, finds out whether it runs
 * transactions (replica set or mongos) and creates the indexes. Every failure is an InfrastructureError whose message
 * names MONGODB_URL (with the password redacted), never a driver error and never a hang.
 */
export async function connectMongo(url: string | null | undefined, options: ConnectMongoOptions = {}): Promise<MongoConnection> {
  if (url === null || url === undefined || url.trim() === '') {
    throw new StoreError('SERVICE-UNAVAILABLE', 'MONGODB_URL is not set: the MongoDB store needs a connection string', {
      transient: false,
    });
  }
  const shown = redactMongoUrl(url);
  const timeout = options.serverSelectionTimeoutMS ?? 2_000;
  const weakened = weakeningOptions(url);
  if (weakened.length > 0) {
    throw new StoreError('SERVICE-UNAVAILABLE', `MONGODB_URL ${shown} weakens the store's durability: ${weakened.join(', ')}`, { transient: false });
  }
  let client: MongoClient;
  try {
    client = new MongoClient(url, mongoClientOptions(options));
  } catch (error) {
    throw new StoreError('SERVICE-UNAVAILABLE', `MONGODB_URL ${shown} is not a valid connection string: ${reasonOf(error)}`, {
      transient: false, cause: error,
    });
  }
  const db = client.db(options.dbName ?? databaseFromUrl(url) ?? DEFAULT_DATABASE);
  let step = 'is unreachable';
  try {
    // The start-up probe fails fast; later operations wait up to the lifetime selection timeout.
    let timer: NodeJS.Timeout | undefined;
    const hello = await Promise.race([
      db.admin().command({ hello: 1 }),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no server answered within ${timeout} ms`)), timeout);
      }),
    ]).finally(() => clearTimeout(timer));
    step = `answered but refused to create the store's indexes in database ${db.databaseName}`;
    const transactions = typeof hello['setName'] === 'string' || hello['msg'] === 'isdbgrid';
    if (!transactions && options.allowStandalone !== true) {
      throw new StoreError(
        'SERVICE-UNAVAILABLE',
        `MONGODB_URL ${shown} is a standalone server: the store needs transactions, so run a replica set ` +
          '(mongod --replSet rs0, then rs.initiate()); allowStandalone accepts it for development only',
        { transient: false },
      );
    }
    if (options.ensureIndexes !== false) await ensureIndexes(db);
    return { client, db, transactions, close: () => client.close() };
  } catch (error) {
    await client.close().catch(() => undefined);
    if (error instanceof InfrastructureError) throw error;
    throw new StoreError('SERVICE-UNAVAILABLE', `MongoDB at MONGODB_URL ${shown} ${step}: ${reasonOf(error)}`, {
      transient: true, cause: error,
    });
  }
}
