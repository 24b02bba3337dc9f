/**
 * One API node as its own process, for the multi-process cluster test: the production composition from the
 * environment (STORE, MONGODB_URL, LOCKS, REDIS_URL, CHAIN, …; PORT=0 picks a free port), served on loopback.
 * Prints `api listening <url>` once it accepts requests; verification codes go to stdout (ConsoleMailer).
 * CLUSTER_REDIS_PREFIX (test-only) puts the lock and rate-limit keys under their own prefix, so a run sharing one
 * Redis with other suites never counts their hits nor sees their locks. SIGTERM closes it.
 */
import { ConsoleMailer } from '../../adapters/node/index.js';
import { createRedisClient, RedisAddressLock, RedisRateLimiter } from '../../adapters/redis/index.js';
import { startApiServer } from '../api/api-server.js';
import { loadConfig } from '../composition/config.js';
import { openComposition } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';

// The test reads verification codes from this process's stdout: a production configuration with the console mailer
// given explicitly (a production API otherwise sends them by SMTP_URL and never prints them).
const config = loadConfig({ SMTP_URL: 'smtp://127.0.0.1:1', MAIL_FROM: 'cluster@custody.test', ...process.env }, { mode: 'production' });
const composition = await openComposition(config, { mailer: new ConsoleMailer() });
const prefix = process.env['CLUSTER_REDIS_PREFIX'];
const client = prefix !== undefined && config.redisUrl !== null ? createRedisClient(config.redisUrl) : null;
if (client !== null) {
  composition.container.rebind(TOKENS.AddressLock).toConstantValue(new RedisAddressLock(client, { keyPrefix: prefix }));
  composition.container.rebind(TOKENS.RateLimiter).toConstantValue(new RedisRateLimiter(client, { keyPrefix: prefix }));
}
const server = await startApiServer(composition.container.get(TOKENS.ApiHost).h3, { port: config.port });
process.stdout.write(`api listening ${server.url}\n`);

process.once('SIGTERM', () => {
  void server.close()
    .then(() => composition.close())
    .then(() => client?.quit())
    .finally(() => process.exit(0));
});
