/**
 * `npm run devnet`: runs the TRON devnet on DEVNET_PORT (default 8090) producing a block every DEVNET_BLOCK_MS
 * (default 3,000; 0 = manual mode). Virtual time starts at the wall clock so tronweb's Date.now()-based defaults
 * make sense. Ctrl-C closes it.
 */
import { startDevnet } from './index.js';

const port = Number(process.env['DEVNET_PORT'] ?? 8090);
const blockMs = Number(process.env['DEVNET_BLOCK_MS'] ?? 3_000);
const devnet = await startDevnet({
  port,
  host: process.env['DEVNET_HOST'] ?? '127.0.0.1',
  blockMs,
  seed: process.env['DEVNET_SEED'] ?? 'tron-devnet',
  genesisTime: Math.floor(Date.now() / 3_000) * 3_000,
});
const info = devnet.info();
process.stdout.write(
  `TRON devnet listening on ${devnet.url} (block every ${blockMs || 'manual'} ms)\n` +
    `  USDT (TRC20) contract: ${info.usdt.base58} (${info.usdt.hex})\n` +
    `  faucet: curl -XPOST ${devnet.url}/sim/fund -d '{"address":"T...","amount_sun":100000000}'\n`,
);
const stop = (): void => {
  void devnet.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
