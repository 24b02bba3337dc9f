import { MongoClient, type Db } from 'mongodb';
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
  /** How long to wait for a usable server before giving up (ms). Default 2000. */
  readonly serverSelectionTimeoutMS?: number;
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
  let client: MongoClient;
  try {
    client = new MongoClient(url, {
      serverSelectionTimeoutMS: timeout,
      connectTimeoutMS: timeout,
      appName: options.appName ?? 'custody-hub',
    });
  } catch (error) {
    throw new StoreError('SERVICE-UNAVAILABLE', `MONGODB_URL ${shown} is not a valid connection string: ${reasonOf(error)}`, {
      transient: false, cause: error,
    });
  }
  const db = client.db(options.dbName ?? databaseFromUrl(url) ?? DEFAULT_DATABASE);
  let step = 'is unreachable';
  try {
    const hello = await db.admin().command({ hello: 1 });
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
