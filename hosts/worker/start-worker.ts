import { ConfigError, type Env } from '../composition/config.js';
import { loadConfig } from '../composition/config.js';
import { openComposition, type Composition, type CompositionOverrides } from '../composition/container.js';
import { withDevnetContract, type DevnetContractOptions } from '../composition/devnet-contract.js';
import { startMetricsServer, type HealthReport, type MetricsServer } from '../composition/metrics-server.js';
import type { CustodyMetrics } from '../composition/metrics.js';
import { TOKENS } from '../composition/tokens.js';
import { startComposedWorker } from './compose-worker.js';
import type { RunningWorker } from './index.js';
import { startMaintenance } from './maintenance.js';
import { operatorStatusOf } from './operator-status.js';

/** A running worker process: its metrics server (null when METRICS_PORT is off) and a stop within a deadline. */
export interface StartedWorker {
  readonly composition: Composition;
  readonly worker: RunningWorker;
  /** `http://host:port` of `/metrics` and `/healthz`, or null. */
  readonly metricsUrl: string | null;
  /**
   * Stops the loops and waits for the stage in flight, at most `deadlineMs` (default 20 s, under Docker's 30 s
   * grace when set so); a stage cut short is safe: its lease ends and another worker resumes it from the write-ahead record.
   * Resolves `true` when everything finished in time.
   */
  stop(deadlineMs?: number): Promise<boolean>;
}

/**
 * The worker is healthy while its loop completes ticks (the last one at most `staleMs` ago, or it started recently)
 * and its balance scanner has not stopped for a node on another chain (issue #34).
 */
export function workerHealth(metrics: CustodyMetrics, startedAt: number, staleMs: number, now: () => number = Date.now): () => HealthReport {
  return () => {
    const last = metrics.lastTickAt ?? startedAt;
    const ago = now() - last;
    // A scanner stopped for a node on another chain than the store's credits nothing: unhealthy until a restart.
    const chainMismatch = metrics.scannerChainMismatch() ?? null;
    return { ok: ago <= staleMs && chainMismatch === null, lastTickAgoMs: ago, ...(chainMismatch === null ? {} : { chainMismatch }) };
  };
}

/**
 * Composes the worker from the environment (role `worker`: no ADMIN_TOKEN, no PORT; production unless
 * NODE_ENV=development), starts its loops, and serves `/metrics` and `/healthz` on METRICS_PORT. Configuration
 * problems throw ConfigError before anything runs. On CHAIN=devnet it first waits for the devnet's USDT contract
 * (`options.onWait` is told each failed try).
 */
export async function startWorkerProcess(env: Env, overrides: CompositionOverrides = {}, options: DevnetContractOptions = {}): Promise<StartedWorker> {
  // On the devnet, its own USDT contract, waited for (never mainnet's, which a devnet lacks).
  const config = await withDevnetContract(loadConfig(env, { mode: env['NODE_ENV'] === 'development' ? 'dev' : 'production', role: 'worker' }), options);
  const composition = await openComposition(config, overrides);
  let worker: RunningWorker;
  let server: MetricsServer | null = null;
  let maintenance: { stop(): Promise<void> } | null = null;
  try {
    worker = startComposedWorker(composition, env);
    maintenance = startMaintenance(
      composition.container.get(TOKENS.Metrics), composition.container.get(TOKENS.Logger), composition.container.get(TOKENS.Application).accounts,
      operatorStatusOf(composition),
    );
    if (config.metricsPort !== null) {
      const metrics = composition.container.get(TOKENS.Metrics);
      server = await startMetricsServer(metrics, {
        port: config.metricsPort, host: config.metricsHost, health: workerHealth(metrics, Date.now(), 120_000),
      });
    }
  } catch (error) {
    await maintenance?.stop().catch(() => undefined);
    await composition.close().catch(() => undefined);
    throw error instanceof Error && error.message.includes('EADDRINUSE') ? new ConfigError('METRICS_PORT', 'is already in use') : error;
  }
  const running = worker;
  return {
    composition, worker: running, metricsUrl: server?.url ?? null,
    async stop(deadlineMs = 20_000) {
      await maintenance?.stop();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), deadlineMs); });
      const finished = await Promise.race([running.stop().then(() => true as const), deadline]);
      clearTimeout(timer);
      await server?.close();
      if (finished) await composition.close();
      return finished;
    },
  };
}
