import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { connectMongo, type MongoConnection } from '../../adapters/mongodb/mongo-connection.js';
import { COLLECTIONS } from '../../adapters/mongodb/collections.js';

/**
 * The real-MongoDB test harness. Order of preference: `MONGODB_URL`; else a `mongo:7` container started through
 * testcontainers as a single-node replica set (transactions need one) when a container runtime answers; else
 * "unavailable" with a reason, which the suites report as a loud SKIPPED (never a silent pass).
 * No vitest import here, so bench/ and scripts can use it too.
 */

/** The line every MongoDB suite prints when it cannot run. */
export const MONGO_SKIP_MESSAGE = 'SKIPPED: MongoDB suites — set MONGODB_URL or provide a container runtime for testcontainers (mongo:7)';

/** Where the MongoDB of a test file comes from, or why there is none. */
export type MongoTarget =
  | { readonly kind: 'env' | 'container'; readonly url: string; stop(): Promise<void> }
  | { readonly kind: 'unavailable'; readonly reason: string };

/** How long the container-runtime probe may take: a machine without one must not wait for it. */
const RUNTIME_PROBE_MS = 1_500;

/**
 * Finds a MongoDB for this test file (see the module comment). A MONGODB_URL that is set but does not answer throws:
 * the run asked for MongoDB, so a dead server fails it rather than turning every suite into a SKIPPED line. Every
 * other failure becomes a reason.
 */
export async function provisionMongo(): Promise<MongoTarget> {
  const reasons: string[] = [];
  const fromEnv = process.env['MONGODB_URL'];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    const problem = await unanswered(fromEnv);
    if (problem === null) return { kind: 'env', url: fromEnv, stop: async () => undefined };
    throw new Error(`MONGODB_URL is set but does not answer (${problem}): fix it or unset it to skip the MongoDB suites`);
  } else {
    reasons.push('MONGODB_URL not set');
  }
  const runtime = await probeContainerRuntime();
  if (runtime !== null) {
    reasons.push(`no container runtime (${runtime})`);
    return { kind: 'unavailable', reason: reasons.join('; ') };
  }
  try {
    return await startReplicaSetContainer();
  } catch (error) {
    reasons.push(`mongo:7 container failed (${firstLine(error)})`);
  }
  return { kind: 'unavailable', reason: reasons.join('; ') };
}

/** A database of its own for one test file on the target: indexes created, dropped (and closed) by `drop`. */
export interface MongoTestDatabase {
  /** The server's URL, for a second client (another process's view of the same database). */
  readonly url: string;
  readonly connection: MongoConnection;
  /** Empties every collection of the store, keeping the indexes: a fresh subject per test. */
  clear(): Promise<void>;
  /** Drops the database and closes the client. */
  drop(): Promise<void>;
}

/** Connects to `url` with a fresh database named after `label` plus a random suffix. */
export async function openTestDatabase(url: string, label: string): Promise<MongoTestDatabase> {
  const dbName = `test_${label.replace(/[^a-z0-9]/gi, '_').slice(0, 30)}_${randomBytes(4).toString('hex')}`;
  const connection = await connectMongo(url, { dbName, serverSelectionTimeoutMS: 5_000, appName: `custody-hub-test-${label}` });
  const collections = Object.values(COLLECTIONS);
  return {
    url,
    connection,
    clear: async () => {
      await Promise.all(collections.map((name) => connection.db.collection(name).deleteMany({})));
    },
    drop: async () => {
      try {
        await connection.db.dropDatabase();
      } finally {
        await connection.close();
      }
    },
  };
}

/** Null when the server behind `url` answers `hello` within 2 s, else why not. */
async function unanswered(url: string): Promise<string | null> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 2_000, connectTimeoutMS: 2_000 });
  try {
    await client.db('admin').command({ hello: 1 });
    return null;
  } catch (error) {
    return firstLine(error);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Null when testcontainers finds a container runtime within RUNTIME_PROBE_MS, else why not. */
async function probeContainerRuntime(): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${RUNTIME_PROBE_MS} ms`), RUNTIME_PROBE_MS);
    timer.unref();
  });
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    return await Promise.race([getContainerRuntimeClient().then(() => null, (error: unknown) => firstLine(error)), timeout]);
  } catch (error) {
    return firstLine(error);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `mongo:7` with `--replSet rs0`, initiated as a one-member set whose member name is the container's own
 * `localhost:27017`. The URL uses `directConnection=true`, so the driver talks to the mapped port and never tries the
 * member name from the host; transactions work on the primary that way.
 */
async function startReplicaSetContainer(): Promise<MongoTarget> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('mongo:7')
    .withCommand(['mongod', '--replSet', 'rs0', '--bind_ip_all'])
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
    .withStartupTimeout(120_000)
    .start();
  try {
    const initiate = "rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'localhost:27017' }] })";
    const result = await container.exec(['mongosh', '--quiet', '--eval', initiate]);
    if (result.exitCode !== 0) throw new Error(`rs.initiate failed: ${result.output.trim()}`);
    const url = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
    await waitForPrimary(url);
    return { kind: 'container', url, stop: async () => void (await container.stop()) };
  } catch (error) {
    await container.stop().catch(() => undefined);
    throw error;
  }
}

/** Polls `hello` until the member reports itself writable primary (a fresh replica set elects within seconds). */
async function waitForPrimary(url: string, timeoutMs = 30_000): Promise<void> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 2_000 });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const hello = await client.db('admin').command({ hello: 1 }).catch(() => null);
      if (hello?.['isWritablePrimary'] === true) return;
      if (Date.now() > deadline) throw new Error(`replica set not primary within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await client.close();
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
