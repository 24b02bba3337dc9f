import type { Composition, CompositionOverrides } from '../composition/container.js';
import { openComposition } from '../composition/container.js';
import { ConfigError, loadConfig, type Env } from '../composition/config.js';
import { TOKENS } from '../composition/tokens.js';
import { startMetricsServer, type MetricsServer } from '../composition/metrics-server.js';
import { startApiServer } from './api-server.js';
import { withDevnetContract, type DevnetContractOptions } from '../composition/devnet-contract.js';
import { frontedApi } from '../dev/devnet-faucet-front.js';

/**
 * Where the API-only process listens unless API_HOST says otherwise: every interface, because a production API runs
 * in a container or behind a proxy that reaches it from outside loopback (the dev entry keeps 127.0.0.1).
 */
export const DEFAULT_API_HOST = '0.0.0.0';

/** A running API-only process: where it listens, and a stop that closes the server before the adapters. */
export interface StartedApi {
  /** `http://host:port` as bound (PORT=0 resolved to the port picked). */
  readonly url: string;
  /** `http://host:port/metrics` lives here (METRICS_PORT, apart from the public port); null when off. */
  readonly metricsUrl: string | null;
  readonly composition: Composition;
  stop(): Promise<void>;
}

/**
 * Composes the API from the environment (hosts/composition: STORE, LOCKS, CHAIN, KEY_ENCRYPTION_KEY, ADMIN_TOKEN, …;
 * production mode unless NODE_ENV=development) and serves it on PORT / API_HOST. No worker runs here: collections,
 * withdrawals and webhook deliveries belong to `npm run worker`. Configuration problems throw ConfigError before
 * anything listens. On CHAIN=devnet it waits for the devnet's USDT contract (options.onWait is told each failed try)
 * and serves the devnet faucet (`POST /dev/faucet`) in front of the API.
 */
export async function startApi(env: Env, overrides: CompositionOverrides = {}, options: DevnetContractOptions = {}): Promise<StartedApi> {
  const loaded = loadConfig(env, { mode: env['NODE_ENV'] === 'development' ? 'dev' : 'production', role: 'api' });
  if (loaded.metricsPort !== null && loaded.metricsPort !== 0 && loaded.metricsPort === loaded.port) {
    throw new ConfigError('METRICS_PORT', 'must differ from PORT (the metrics stay off the public port)');
  }
  const host = env['API_HOST']?.trim() || DEFAULT_API_HOST;
  if (/\s|\//.test(host)) throw new ConfigError('API_HOST', 'must be an IP address or a host name');
  // On the devnet, its own USDT contract, waited for (never mainnet's, which a devnet lacks).
  const config = await withDevnetContract(loaded, options);
  const composition = await openComposition(config, overrides);
  const listening = await frontedApi(composition).then((front) => startApiServer(front.h3, { port: config.port, host }))
    .catch(async (error: unknown) => {
      // A taken port must not leave the store connection open behind the error.
      await composition.close().catch(() => undefined);
      throw error;
    });
  let metrics: MetricsServer | null = null;
  if (config.metricsPort !== null) {
    metrics = await startMetricsServer(composition.container.get(TOKENS.Metrics), { port: config.metricsPort, host: config.metricsHost })
      .catch(async (error: unknown) => {
        await listening.close().catch(() => undefined);
        await composition.close().catch(() => undefined);
        throw error;
      });
  }
  return {
    url: listening.url,
    metricsUrl: metrics?.url ?? null,
    composition,
    // Requests in flight finish (keep-alive sockets are cut after a grace period) before the stores close under them.
    stop: async () => {
      await listening.close();
      await metrics?.close();
      await composition.close();
    },
  };
}
