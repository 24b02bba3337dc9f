/**
 * A process that requests one withdrawal on a PostgreSQL store and, with KILL_AT set, SIGKILLs itself inside the
 * request's atomic scope (decision 144): `action` after the command's write, before its audit append; `entry` after
 * the append, before the commit. For pg-audit-crash.integration.test.ts. Prints `dying at <point>` just before the
 * kill and `done <command_no>` when the request returned.
 * Environment: DATABASE_URL, DEVNET_URL, DEVNET_USDT, USER_ID, FROM_ADDRESS, TO_ADDRESS, KILL_AT (action|entry|none).
 */
import { connectPostgres } from '../../adapters/postgres/pg-connection.js';
import { buildPgTestApplication, hookedAuditLog } from './pg-test-application.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};
const killAt = env('KILL_AT');
const die = (): void => {
  process.stdout.write(`dying at ${killAt}\n`);
  process.kill(process.pid, 'SIGKILL');
};

const connection = await connectPostgres(env('DATABASE_URL'), { migrate: false, poolSize: 2 });
const { app } = buildPgTestApplication(connection, { url: env('DEVNET_URL'), usdtAddress: env('DEVNET_USDT') }, (log) => hookedAuditLog(log, {
  ...(killAt === 'action' ? { beforeAppend: die } : {}),
  ...(killAt === 'entry' ? { afterAppend: die } : {}),
}));
const accepted = await app.transfers.create(Number(env('USER_ID')), {
  from_address: env('FROM_ADDRESS'), to_address: env('TO_ADDRESS'), asset_symbol: 'TRX', amount: '1000000',
});
process.stdout.write(`done ${accepted.command_no}\n`);
await connection.close();
