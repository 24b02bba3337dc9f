import { setTimeout as sleep } from 'node:timers/promises';
import { MAINNET_USDT_CONTRACT } from '../../core/domain/model/asset.js';
import { ConfigError, type HostConfig } from './config.js';

/** Told each time the devnet did not answer, before the next try. */
export interface DevnetWait {
  readonly url: string;
  /** 1 for the first failed try. */
  readonly attempt: number;
  /** Since the first try. */
  readonly waitedMs: number;
  /** Why this try failed (connection refused, a timeout, an HTTP status). */
  readonly reason: string;
}

/** Options of {@link withDevnetContract}. */
export interface DevnetContractOptions {
  /** Pause between tries (default 2 s). */
  readonly retryMs?: number;
  /** Called after each failed try: `npm run serve` logs it. */
  readonly onWait?: (wait: DevnetWait) => void;
  /** Ends the wait (a signal while waiting): rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

const BASE58_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

/**
 * CHAIN=devnet without USDT_CONTRACT: waits until the devnet at TRON_FULL_HOST answers its `/sim/info`, then returns
 * the configuration with the devnet's own USDT contract. Mainnet's contract does not exist on a devnet, so this never
 * falls back to it: it waits (telling `onWait` each time) for as long as the devnet is unreachable. A node that
 * answers but is no devnet (no `/sim/info`) is a ConfigError naming CHAIN. Any other configuration is returned as is.
 */
export async function withDevnetContract(config: HostConfig, options: DevnetContractOptions = {}): Promise<HostConfig> {
  if (config.chain !== 'devnet' || config.usdtContract !== MAINNET_USDT_CONTRACT) return config;
  const url = config.tronFullHost.replace(/\/+$/, '');
  const started = Date.now();
  for (let attempt = 1; ; attempt += 1) {
    options.signal?.throwIfAborted();
    let reason: string;
    try {
      const response = await fetch(`${url}/sim/info`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 404) {
        throw new ConfigError('CHAIN', `is devnet but the node at ${url} is no devnet (it has no /sim/info): set CHAIN=tronweb for a real node`);
      }
      if (response.ok) {
        const usdt = ((await response.json()) as { usdt?: { base58?: unknown } }).usdt?.base58;
        if (typeof usdt === 'string' && BASE58_ADDRESS.test(usdt)) return { ...config, usdtContract: usdt };
        reason = '/sim/info names no USDT contract';
      } else reason = `HTTP ${response.status}`;
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      reason = cause ?? (error as Error).message;
    }
    options.onWait?.({ url, attempt, waitedMs: Date.now() - started, reason });
    await sleep(options.retryMs ?? 2_000, undefined, options.signal === undefined ? {} : { signal: options.signal })
      .catch((error: unknown) => { throw options.signal?.aborted === true ? options.signal.reason : error; });
  }
}
