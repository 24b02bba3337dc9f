import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { accessSync, chownSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { MIGRATIONS_DIR, migratePostgres } from '../../adapters/postgres/pg-migrations.js';

/**
 * The real-PostgreSQL test harness. Order of preference: `DATABASE_URL` (a server the run was pointed at); else a
 * throwaway cluster of Debian's `postgresql-15` binaries, made with initdb in a temporary directory and started on a
 * free loopback port (as the `postgres` system user when this process is root, because initdb refuses root); else
 * "unavailable" with a reason, which the suites report as a loud SKIPPED (CI installs the package, so it never skips
 * there). No vitest import here, so bench/ and scripts can use it too.
 */

/** A cluster this harness started: stopped (cleanly or as a crash) and started again on the same port and data. */
export interface PostgresServer {
  /** Superuser URL of the `postgres` database (trust authentication on loopback). */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** PID of the postmaster; undefined while stopped. */
  readonly pid: number | undefined;
  /**
   * Stops the server with `pg_ctl stop -m <mode>`: `fast` is a clean shutdown, `immediate` aborts every process
   * without a checkpoint (the next start runs crash recovery from the WAL).
   */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data directory, resolving once it accepts connections. */
  start(): Promise<void>;
  /** Stops it (fast) and deletes its data directory. */
  destroy(): Promise<void>;
}

/** Where the shared PostgreSQL of a test run comes from, or why there is none. */
export type PostgresTarget =
  | { readonly kind: 'binary' | 'env'; readonly url: string; stop(): Promise<void> }
  | { readonly kind: 'unavailable'; readonly reason: string };

/** The directory holding initdb, pg_ctl and postgres, or null when PostgreSQL is not installed. */
export function findPostgresBinaries(): string | null {
  const candidates: string[] = [];
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    // pg_config is in libpq-dev, not always installed: look where Debian puts the server.
  }
  try {
    const versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  } catch {
    // Not a Debian layout.
  }
  for (const dir of candidates) {
    try {
      for (const tool of ['initdb', 'pg_ctl', 'postgres']) accessSync(join(dir, tool), constants.X_OK);
      return dir;
    } catch {
      continue;
    }
  }
  return null;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL tool as the `postgres` user when we are root (initdb and postgres refuse root). */
function asPostgres(binary: string, args: readonly string[]): { command: string; args: string[] } {
  return isRoot ? { command: 'runuser', args: ['-u', 'postgres', '--', binary, ...args] } : { command: binary, args: [...args] };
}

function run(binary: string, args: readonly string[]): string {
  const { command, args: full } = asPostgres(binary, args);
  return execFileSync(command, full, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Children still running, killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Makes and starts a throwaway cluster on a free loopback port. fsync is off: the harness proves crash recovery by
 * killing PostgreSQL's processes (`pg_ctl stop -m immediate`, SIGKILL), which the kernel's page cache survives; only
 * a power loss would need it.
 */
export async function startPostgresServer(options: { readonly bin?: string } = {}): Promise<PostgresServer> {
  const bin = options.bin ?? findPostgresBinaries();
  if (bin === null) throw new Error('PostgreSQL is not installed (no initdb/pg_ctl/postgres found)');
  installExitHook();
  const dataDir = mkdtempSync(join(tmpdir(), 'custody-pg-'));
  if (isRoot) chownSync(dataDir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()));
  run(join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  let child: ChildProcess | undefined = await spawnReady(bin, dataDir, port);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = async (mode: 'fast' | 'immediate' = 'fast'): Promise<void> => {
    if (child === undefined || !isRunning(child)) return;
    const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
    try {
      run(join(bin, 'pg_ctl'), ['stop', '-D', dataDir, '-m', mode, '-w']);
    } catch {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }
    await exited;
    child = undefined;
  };
  return {
    url, port, dataDir,
    get pid() {
      return child !== undefined && isRunning(child) ? child.pid : undefined;
    },
    stop,
    start: async () => {
      if (child !== undefined && isRunning(child)) throw new Error(`postgres on ${port} is still running`);
      child = await spawnReady(bin, dataDir, port);
    },
    destroy: async () => {
      await stop('fast');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Finds the run's shared PostgreSQL (see the module comment). Never throws: failures become a reason. */
export async function provisionPostgres(): Promise<PostgresTarget> {
  const fromEnv = process.env['DATABASE_URL'];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    const problem = await unanswered(fromEnv);
    if (problem === null) return { kind: 'env', url: fromEnv, stop: async () => undefined };
    // The run asked for this server: a dead one fails it rather than turning every suite into a SKIPPED line.
    throw new Error(`DATABASE_URL is set but does not answer (${problem}): fix it or unset it to use a throwaway cluster`);
  }
  const bin = findPostgresBinaries();
  if (bin === null) return { kind: 'unavailable', reason: 'DATABASE_URL not set and PostgreSQL is not installed (apt-get install postgresql)' };
  try {
    const server = await startPostgresServer({ bin });
    return { kind: 'binary', url: server.url, stop: () => server.destroy() };
  } catch (error) {
    return { kind: 'unavailable', reason: `a throwaway PostgreSQL cluster failed to start (${firstLine(error)})` };
  }
}

/** A database of its own for one test file or process group, on the given server. */
export interface PostgresTestDatabase {
  readonly url: string;
  readonly name: string;
  /** Drops the database (closing other sessions on it first). */
  drop(): Promise<void>;
}

/** Creates an empty database named after `label` plus a random suffix on the server at `serverUrl`. */
export function createTestDatabase(serverUrl: string, label: string): Promise<PostgresTestDatabase> {
  return databaseOf(serverUrl, label, null);
}

/** A database named after `label`, empty or (`template`) a copy of that database. */
async function databaseOf(serverUrl: string, label: string, template: string | null): Promise<PostgresTestDatabase> {
  const name = `custody_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${name}${template === null ? '' : ` TEMPLATE ${template}`}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/**
 * Like {@link createTestDatabase}, with every migration already applied: a copy (`CREATE DATABASE … TEMPLATE`) of a
 * template database migrated once per server and migration set, so a suite that only needs the schema does not run
 * the migrations again (about half a second of the server's and the client's time per database). The template's name
 * carries a hash of the migration files, so a changed migration gets a new one; the first caller makes it under an
 * advisory lock while the others wait. Suites that test the migrations themselves use createTestDatabase.
 */
export async function createMigratedTestDatabase(serverUrl: string, label: string): Promise<PostgresTestDatabase> {
  return databaseOf(serverUrl, label, await migratedTemplate(serverUrl));
}

const templates = new Map<string, Promise<string>>();

function migratedTemplate(serverUrl: string): Promise<string> {
  let made = templates.get(serverUrl);
  if (made === undefined) {
    made = makeTemplate(serverUrl);
    made.catch(() => templates.delete(serverUrl));
    templates.set(serverUrl, made);
  }
  return made;
}

async function makeTemplate(serverUrl: string): Promise<string> {
  const hash = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS_DIR).sort()) hash.update(file).update(readFileSync(join(MIGRATIONS_DIR, file)));
  const name = `custody_template_${hash.digest('hex').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    // One maker across the run's worker processes; the others find the template made when they get the lock.
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) {
      const building = `${name}_building`;
      await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${building}`);
      const url = new URL(serverUrl);
      url.pathname = `/${building}`;
      const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
      try {
        await migratePostgres(pool);
      } finally {
        await pool.end();
      }
      // Renamed only once migrated and closed: a template is never seen half made, nor with a session on it.
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    }
    return name;
  } finally {
    await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [name]).catch(() => undefined);
    await admin.end();
  }
}

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Null when a session can be opened at `url` within 3 s; otherwise why not. */
async function unanswered(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return firstLine(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function spawnReady(bin: string, dataDir: string, port: number): Promise<ChildProcess> {
  const settings = [
    '-D', dataDir, '-p', String(port), '-k', dataDir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off',
    '-c', 'full_page_writes=off', '-c', 'max_connections=300', '-c', 'shared_buffers=64MB', '-c', 'log_min_messages=fatal',
  ];
  const { command, args } = asPostgres(join(bin, 'postgres'), settings);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  child.once('exit', () => running.delete(child));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (!isRunning(child)) throw new Error(`postgres on port ${port} exited: ${stderr.trim().slice(-500)}`);
    if ((await unanswered(`postgres://postgres@127.0.0.1:${port}/postgres`)) === null) return child;
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`postgres on port ${port} did not accept connections within 30 s`);
}

function isRunning(child: ChildProcess): boolean {
  return child.pid !== undefined && child.exitCode === null && child.signalCode === null;
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    // runuser forwards the signal to the postmaster, which ends its backends.
    for (const child of running) if (child.pid !== undefined) try { process.kill(child.pid, 'SIGQUIT'); } catch { /* gone */ }
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
