import { DEFAULT_API_HOST } from '../api/start-api.js';
import { startApiServer, type RunningServer } from '../api/api-server.js';
import { redactMongoUrl } from '../../adapters/mongodb/index.js';
import { redactPostgresUrl } from '../../adapters/postgres/pg-connection.js';
import { ConfigError, DEFAULT_METRICS_PORT, loadConfig, type Env, type HostConfig } from '../composition/config.js';
import { openComposition, type Composition, type CompositionOverrides } from '../composition/container.js';
import { withDevnetContract, type DevnetContractOptions } from '../composition/devnet-contract.js';
import { frontedApi } from '../dev/devnet-faucet-front.js';
import type { DevnetFaucet } from '../dev/devnet-faucet.js';
import { startMetricsServer, type MetricsServer } from '../composition/metrics-server.js';
import { TOKENS } from '../composition/tokens.js';
import { startComposedWorker } from '../worker/compose-worker.js';
import { energySourcesReport } from './energy-sources.js';
import type { RunningWorker } from '../worker/index.js';
import { startMaintenance } from '../worker/maintenance.js';
import { operatorStatusOf } from '../worker/operator-status.js';
import { workerHealth } from '../worker/start-worker.js';

/** A running single-machine process: the API and the worker on one composition. */
export interface StartedServe {
  /** `http://host:port` of the API as bound (PORT=0 resolved; the API lives under /api). */
  readonly url: string;
  /** `http://host:port` of `/metrics` and the worker's `/healthz` (METRICS_PORT); null when off. */
  readonly metricsUrl: string | null;
  readonly composition: Composition;
  readonly worker: RunningWorker;
  /** The faucet in front of the API (`POST /dev/faucet`): on CHAIN=devnet only. */
  readonly faucet: DevnetFaucet | null;
  /** What runs where: the store, the chain and its node, the USDT contract, the faucet (see serveBanner). */
  readonly banner: string;
  /**
   * Stops accepting requests and lets those in flight finish while the worker stops its loops, waiting for its stage
   * in flight at most `deadlineMs` (default 20 s); then closes the store. Resolves `true` when everything finished in
   * time (a stage cut short is safe: its lease ends and the next start resumes it from the write-ahead record).
   */
  stop(deadlineMs?: number): Promise<boolean>;
}

/** `port` as the variable that asked for it: a taken port is a configuration problem, not a crash. */
async function listen<T>(variable: string, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') throw new ConfigError(variable, `port ${port} cannot be used (${code})`);
    throw error;
  }
}

/** How `npm run serve` waits for what it needs before it starts (the devnet on CHAIN=devnet). */
export type ServeOptions = DevnetContractOptions;

/** Where the store is, without its password. */
function storeOf(config: HostConfig): string {
  if (config.store === 'postgres') return `postgres ${redactPostgresUrl(config.databaseUrl ?? '')}`;
  if (config.store === 'mongodb') return `mongodb ${redactMongoUrl(config.mongodbUrl ?? '')}${config.mongodbDb === null ? '' : ` (database ${config.mongodbDb})`}`;
  return 'memory (nothing survives a restart)';
}

/**
 * The line `npm run serve` logs once it listens: the API's URL, the store (without its password), the chain and the
 * node it reads, the USDT contract in force, and on CHAIN=devnet the faucet.
 */
export function serveBanner(config: HostConfig, url: string, faucet: boolean): string {
  return `serve listening ${url} (API and worker in one process); store ${storeOf(config)}; chain ${config.chain} at ${config.tronFullHost}; `
    + `USDT contract ${config.usdtContract}${faucet ? `; faucet POST ${url}/dev/faucet (devnet only)` : ''}`;
}

/**
 * `npm run serve`: the API (PORT, API_HOST) and the worker (its loops and maintenance jobs) in one process on one
 * composition, for a deployment on a single machine. Role `all`, production unless NODE_ENV=development; the memory
 * locks are enough here (one process is the only one taking them), but the store must be durable (STORE=postgres or
 * mongodb) unless ALLOW_EPHEMERAL=true. Metrics and the worker's `/healthz` on METRICS_PORT (default 9464, like
 * `npm run api` and `npm run worker`). Configuration problems throw ConfigError before anything listens. On
 * CHAIN=devnet it first waits for the devnet (`options.onWait` is told each failed try) and reads its USDT contract,
 * and serves the devnet faucet in front of the API (`POST /dev/faucet`).
 */
export async function startServe(env: Env, overrides: CompositionOverrides = {}, options: ServeOptions = {}): Promise<StartedServe> {
  const metricsDefault = (env['METRICS_PORT']?.trim() ?? '') === '' ? { METRICS_PORT: String(DEFAULT_METRICS_PORT) } : {};
  const loaded = loadConfig({ ...env, ...metricsDefault }, {
    mode: env['NODE_ENV'] === 'development' ? 'dev' : 'production', role: 'all', durable: true,
  });
  if (loaded.metricsPort !== null && loaded.metricsPort !== 0 && loaded.metricsPort === loaded.port) {
    throw new ConfigError('METRICS_PORT', 'must differ from PORT (the metrics stay off the public port)');
  }
  const host = env['API_HOST']?.trim() || DEFAULT_API_HOST;
  if (/\s|\//.test(host)) throw new ConfigError('API_HOST', 'must be an IP address or a host name');
  // On the devnet, its own USDT contract, read before anything starts (never mainnet's, which a devnet lacks).
  const config = await withDevnetContract(loaded, options);
  const composition = await openComposition(config, overrides);
  const c = composition.container;
  let api: RunningServer | null = null;
  let worker: RunningWorker | null = null;
  let maintenance: { stop(): Promise<void> } | null = null;
  let metrics: MetricsServer | null = null;
  let faucet: DevnetFaucet | null = null;
  try {
    const front = await frontedApi(composition);
    faucet = front.faucet;
    // The API first: a port that cannot be used stops the start before any background work has begun.
    api = await listen('PORT', config.port, () => startApiServer(front.h3, { port: config.port, host }));
    if (config.metricsPort !== null) {
      const port = config.metricsPort;
      metrics = await listen('METRICS_PORT', port, () => startMetricsServer(c.get(TOKENS.Metrics), {
        port, host: config.metricsHost, health: workerHealth(c.get(TOKENS.Metrics), Date.now(), 120_000),
      }));
    }
    worker = startComposedWorker(composition, env);
    maintenance = startMaintenance(c.get(TOKENS.Metrics), c.get(TOKENS.Logger), c.get(TOKENS.Application).accounts, operatorStatusOf(composition));
    // What each energy source can do for a sweep (issue #34), once the node answers; never holds the start.
    const logger = c.get(TOKENS.Logger);
    void energySourcesReport(config, c.get(TOKENS.Chain)).then((r) => logger.info(r.fields, r.message), () => undefined);
  } catch (error) {
    await worker?.stop().catch(() => undefined);
    await metrics?.close().catch(() => undefined);
    await api?.close().catch(() => undefined);
    await composition.close().catch(() => undefined);
    throw error;
  }
  const [server, running, jobs, metricsServer] = [api, worker, maintenance, metrics];
  return {
    url: server.url, metricsUrl: metricsServer?.url ?? null, composition, worker: running, faucet,
    banner: serveBanner(c.get(TOKENS.Config), server.url, faucet !== null),
    async stop(deadlineMs = 20_000) {
      await jobs.stop();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), deadlineMs); });
      // Both halves wind down at once, within one deadline; the store closes only under neither.
      const [, finished] = await Promise.all([server.close(), Promise.race([running.stop().then(() => true as const), deadline])]);
      clearTimeout(timer);
      await metricsServer?.close();
      if (finished) await composition.close();
      return finished;
    },
  };
}
