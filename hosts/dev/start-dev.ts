import type { Logger } from 'pino';
import type { Clock } from '../../core/ports/clock.port.js';
import type { SecretHasher } from '../../core/ports/secret-hasher.port.js';
import { ConsoleMailer, type LineWriter } from '../../adapters/node/index.js';
import { startDevnet, type Devnet } from '../../adapters/tron-devnet/index.js';
import { startApiServer, type RunningServer } from '../api/api-server.js';
import { ConfigError, integer, loadConfig, type Env, type HostConfig } from '../composition/config.js';
import { openComposition, type Composition } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';
import { devFront } from './dev-front.js';
import { DevMailbox } from './dev-mailbox.js';
import { DevnetFaucet } from './devnet-faucet.js';
import { startDevWorker, type DevWorker } from './dev-worker.js';
import { FaucetWalletRepository } from './faucet-wallet-repository.js';
import { renderQuickstart } from './quickstart.js';

/** Options of {@link startDev}; everything defaults to what `npm start` uses. */
export interface DevOptions {
  /** The environment (default process.env): PORT, DEVNET_PORT, DEVNET_BLOCK_MS and the composition's variables. */
  readonly env?: Env;
  /** Where the banner, the quickstart, warnings and verification codes go (default stdout). */
  readonly writeLine?: LineWriter;
  /** The request logger (default: JSON lines on stdout). */
  readonly logger?: Logger;
  /** Password hashing (tests pass a cheap cost). */
  readonly hasher?: SecretHasher;
  /** Replaces the system clock (tests move a ManualClock with the devnet's blocks). */
  readonly clock?: Clock;
  /** No worker timers: background work runs only on `worker.tick()` (tests drive it block by block). */
  readonly manualWorker?: boolean;
}

/** A running dev process. */
export interface DevProcess {
  /** API base URL (`http://127.0.0.1:<port>`; the API lives under /api). */
  readonly url: string;
  readonly devnet: Devnet;
  /** Pays TRX/USDT with real devnet transactions (also `POST /dev/faucet`). */
  readonly faucet: DevnetFaucet;
  readonly adminToken: string;
  readonly composition: Composition;
  readonly worker: DevWorker;
  /** Everything printed at start: the banner and the quickstart. */
  readonly banner: string;
  /** Graceful shutdown: worker, HTTP server, store connections, devnet. Safe to call twice. */
  stop(): Promise<void>;
}

const stdoutLine: LineWriter = (line) => { process.stdout.write(`${line}\n`); };

/** The composition variables with the dev defaults: the in-process devnet, its rental simulations, one confirmation. */
function devEnvironment(env: Env, devnet: { url: string; usdtAddress: string } | null): Env {
  if ((env['CHAIN']?.trim() ?? '') !== '' && env['CHAIN']?.trim() !== 'devnet') {
    throw new ConfigError('CHAIN', 'must be devnet (or unset) for npm start, which always runs its own in-process devnet');
  }
  return {
    // The workflows' per-block reads follow the devnet's own interval (0, manual blocks: off).
    ENERGY_PROVIDER: 'rental', CHAIN_CONFIRMATIONS: '1', CHAIN_BLOCK_MS: String(blockMsOf(env)), ...env, CHAIN: 'devnet',
    // Placeholders while only validating; the devnet's own values once it runs.
    TRON_FULL_HOST: devnet?.url ?? 'http://127.0.0.1:8090', USDT_CONTRACT: devnet?.usdtAddress ?? 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  };
}

/** DEVNET_BLOCK_MS as npm start reads it (3,000 unset; validated again where the devnet starts). */
function blockMsOf(env: Env): number {
  const raw = env['DEVNET_BLOCK_MS']?.trim() ?? '';
  const value = raw === '' ? 3_000 : Number(raw);
  return Number.isSafeInteger(value) && value >= 0 && value <= 60_000 ? value : 3_000;
}

async function listen<T>(variable: string, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') throw new ConfigError(variable, `port ${port} cannot be used (${code}); pick another or 0 for any free port`);
    throw error;
  }
}

function bannerLines(config: HostConfig, env: Env, url: string, devnet: Devnet, composition: Composition, worker: DevWorker): string[] {
  const lines = [
    `Custody Hub (dev) listening on ${url}  (API under ${url}/api, OpenAPI at ${url}/api/openapi.json)`,
    `  TRON devnet: ${devnet.url} (a block every ${devnet.blockMs || 'manual'} ms; USDT contract ${devnet.usdtAddress})`,
    `  faucet: POST ${url}/dev/faucet {"address","asset_symbol":"TRX"|"USDT","amount"} pays with a real devnet transaction`,
    `  store: ${config.store}, locks: ${config.locks}, energy: self-delegation, else ${config.energyProvider === 'rental' ? `rental from ${config.rentalProviders.map((p) => `${p.kind} at ${p.url}`).join(', ')}` : 'none'}, confirmations: ${config.chainConfirmations}`,
    `  ${worker.description}`,
    `  verification codes are printed here as "verification code for <email>: <code>" (and answered by GET ${url}/dev/verification-code?email=)`,
  ];
  if (config.adminToken === null) lines.push(`  admin token (generated; set ADMIN_TOKEN to keep one): ${composition.adminToken}`);
  if (composition.ephemeralKey) lines.push('  WARNING: KEY_ENCRYPTION_KEY is unset: private keys are encrypted under a key that exists only in this run');
  if (config.webhookAllowLocal) lines.push('  WARNING: WEBHOOK_ALLOW_LOCAL is on: webhooks may go to plain http on loopback/private hosts (never in production)');
  for (const ignored of ['TRON_FULL_HOST', 'USDT_CONTRACT']) {
    if ((env[ignored]?.trim() ?? '') !== '') lines.push(`  note: ${ignored} is ignored by npm start (the in-process devnet is used)`);
  }
  return lines;
}

/**
 * `npm start`: the in-process devnet (DEVNET_PORT, default 8090; a block every DEVNET_BLOCK_MS, default 3,000), the
 * composition on it (memory adapters unless STORE/LOCKS say otherwise; energy rented from the devnet's simulated
 * TronSave and itrx; new main addresses funded with TRX by the devnet faucet), the API on PORT (default 3000) with the
 * payment faucet beside it (`POST /dev/faucet`, real transactions) and the worker (hosts/worker). Configuration is
 * validated before anything listens; a failure is a ConfigError naming the variable.
 */
export async function startDev(options: DevOptions = {}): Promise<DevProcess> {
  const env = options.env ?? process.env;
  const writeLine = options.writeLine ?? stdoutLine;
  loadConfig(devEnvironment(env, null), { mode: 'dev' });
  const devnetPort = integer(env, 'DEVNET_PORT', 8090, 65_535, 'a TCP port');
  const blockMs = integer(env, 'DEVNET_BLOCK_MS', 3_000, 3_600_000, 'milliseconds between blocks');
  const devnet = await listen('DEVNET_PORT', devnetPort, () => startDevnet({
    port: devnetPort, blockMs, seed: env['DEVNET_SEED'] ?? 'custody-hub-dev',
    // Virtual time starts at the wall clock: the API's clock and tronweb's expirations agree with the chain's.
    genesisTime: Math.floor(Date.now() / 3_000) * 3_000,
  }));
  let composition: Composition | null = null;
  let server: RunningServer | null = null;
  let worker: DevWorker | null = null;
  const stop = async (): Promise<void> => {
    const [w, s, c] = [worker, server, composition];
    worker = null; server = null; composition = null;
    await w?.stop();
    await s?.close();
    await c?.close();
    await devnet.close().catch(() => undefined);
  };
  try {
    const config = loadConfig(devEnvironment(env, devnet), { mode: 'dev' });
    const mailbox = new DevMailbox(new ConsoleMailer(writeLine));
    const composed = await openComposition(config, {
      mailer: mailbox,
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ...(options.hasher === undefined ? {} : { hasher: options.hasher }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    composition = composed;
    // A new main address gets its TRX by a real faucet transfer (the books see it come in), once the faucet is open.
    let opened: DevnetFaucet | null = null;
    const mainFunding = { fund: (address: string, sun: bigint) => (opened === null ? devnet.fund(address, sun) : opened.send(address, 'TRX', sun)) };
    composed.container.onActivation(TOKENS.Stores, (_ctx, stores) => ({ ...stores, wallets: new FaucetWalletRepository(stores.wallets, mainFunding) }));
    const faucet = await DevnetFaucet.open(composed.container.get(TOKENS.CoreDeps).chain, devnet, devnet.usdtAddress);
    opened = faucet;
    const h3 = devFront(composed.container.get(TOKENS.ApiHost).h3, { faucet, mailbox, logger: composed.container.get(TOKENS.Logger) });
    const running = await listen('PORT', config.port, () => startApiServer(h3, { port: config.port }));
    server = running;
    const started = startDevWorker(composed, env, { manual: options.manualWorker === true });
    worker = started;
    const banner = [...bannerLines(config, env, running.url, devnet, composed, started), '', renderQuickstart(running.url, devnet.url, devnet.blockMs)].join('\n');
    for (const line of banner.split('\n')) writeLine(line);
    return { url: running.url, devnet, faucet, adminToken: composed.adminToken, composition: composed, worker: started, banner, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
