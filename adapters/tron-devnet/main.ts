/**
 * `npm run devnet`: runs the TRON devnet on DEVNET_PORT (default 8090) producing a block every DEVNET_BLOCK_MS
 * (default 3,000; 0 = manual mode). DEVNET_SOLIDITY_PORT (optional) serves /walletsolidity/* on its own port and
 * stops the full node serving it, as java-tron's 8090/8091. Virtual time starts at the wall clock so tronweb's
 * Date.now()-based defaults make sense. Ctrl-C closes it.
 */
import { startDevnet } from './index.js';

function intFromEnv(name: string, fallback: number, max: number): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isSafeInteger(n) || n < 0 || n > max) {
    process.stderr.write(`${name} must be an integer between 0 and ${max}, got ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return n;
}

const port = intFromEnv('DEVNET_PORT', 8090, 65_535);
const blockMs = intFromEnv('DEVNET_BLOCK_MS', 3_000, 3_600_000);
const solidityPort = process.env['DEVNET_SOLIDITY_PORT'] ? intFromEnv('DEVNET_SOLIDITY_PORT', 0, 65_535) : undefined;
const devnet = await startDevnet({
  port,
  ...(solidityPort === undefined ? {} : { solidityPort, fullServesSolidity: false }),
  host: process.env['DEVNET_HOST'] ?? '127.0.0.1',
  blockMs,
  seed: process.env['DEVNET_SEED'] ?? 'tron-devnet',
  genesisTime: Math.floor(Date.now() / 3_000) * 3_000,
}).catch((e: unknown) => {
  // The usual cause is another devnet (or java-tron) already on the port: say so instead of a stack trace.
  process.stderr.write(`devnet could not listen on port ${port}: ${(e as Error).message}\n`);
  process.exit(1);
});
const info = devnet.info();
process.stdout.write(
  `TRON devnet listening on ${devnet.url} (block every ${blockMs || 'manual'} ms)\n` +
    (devnet.solidityUrl === devnet.url ? '' : `  solidity node (/walletsolidity/*): ${devnet.solidityUrl}\n`) +
    `  USDT (TRC20) contract: ${info.usdt.base58} (${info.usdt.hex})\n` +
    `  faucet: curl -XPOST ${devnet.url}/sim/fund -d '{"address":"T...","amount_sun":100000000}'\n`,
);
const stop = (): void => {
  void devnet.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
