import { readFile } from 'node:fs/promises';
import { connectMongo, MongoWalletKeys } from '../../adapters/mongodb/index.js';
import { connectPostgres, PgWalletKeys } from '../../adapters/postgres/index.js';
import { ConfigError, type loadConfig } from '../composition/config.js';
import type { WalletKeyStore } from '../../core/ports/wallet-key-store.port.js';
import { KeyBackupError } from './key-backup.js';

/** The persistent store's wallets, and how to close the connection (as keys:rotate opens its store). */
export async function openWalletKeys(config: ReturnType<typeof loadConfig>, tool: string): Promise<{ store: WalletKeyStore; close(): Promise<void> }> {
  if (config.store === 'postgres') {
    const connection = await connectPostgres(config.databaseUrl!, { poolSize: 2 });
    return { store: new PgWalletKeys(connection.pool), close: () => connection.close() };
  }
  if (config.store === 'mongodb') {
    const connection = await connectMongo(config.mongodbUrl!, config.mongodbDb === null ? {} : { dbName: config.mongodbDb });
    return { store: new MongoWalletKeys(connection.db, connection.transactions ? connection.client : null), close: () => connection.close() };
  }
  throw new ConfigError('STORE', `must be postgres or mongodb: ${tool} works on a persistent store`);
}

/** The values of every `--name value` (or `--name=value`) in argv. */
export function argValues(argv: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === `--${name}` && i + 1 < argv.length) values.push(argv[(i += 1)]!);
    else if (arg.startsWith(`--${name}=`)) values.push(arg.slice(name.length + 3));
  }
  return values;
}

/** Whether a bare `--name` flag is present. */
export function hasFlag(argv: readonly string[], name: string): boolean {
  return argv.includes(`--${name}`);
}

/** A file's text, or a KeyBackupError naming the file and the errno (never its content). */
export async function readInput(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new KeyBackupError(`cannot read the ${what} ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Anything that looks like key material (a 64-hex private key, an age identity) is cut out of a message. */
export function scrubbed(message: string): string {
  return message.replace(/[0-9a-fA-F]{64}/g, '[redacted]').replace(/AGE-SECRET-KEY-[0-9A-Z-]+/g, '[redacted]')
    .replace(/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, '[redacted]');
}

/** Prints the failure (never key material) and sets the exit code: 2 configuration, 1 anything else. */
export function fail(tool: string, error: unknown): void {
  if (error instanceof ConfigError) {
    process.stderr.write(`${scrubbed(error.message)}\n`);
    process.exitCode = 2;
    return;
  }
  const message = error instanceof KeyBackupError ? error.message : `${(error as Error)?.name ?? 'Error'}: ${(error as Error)?.message ?? String(error)}`;
  process.stderr.write(`${tool} failed: ${scrubbed(message)}\n`);
  process.exitCode = 1;
}
