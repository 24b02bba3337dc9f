import type { BalanceScanner, ScanPass } from '../../../core/application/worker/balance-scanner.js';
import type { ChainLevel } from '../../../core/ports/block-source.port.js';
import { TronBlockSource } from '../../../adapters/tron/tron-block-source.js';
import type { RunningJob, WebhookJobLog } from './webhooks.js';

/** Options of the balance scan job. */
export interface BalanceScanJobOptions {
  /** Pause between passes; TRON makes a block every 3 s. */
  readonly intervalMs?: number;
  readonly log?: WebhookJobLog;
  /** Called after each successful pass (metrics, tests). */
  readonly onPass?: (pass: ScanPass) => void;
}

/** Configuration read by the worker host for the scanner (TRON_FULL_HOST, TRON_API_KEY, BALANCE_SCAN_LEVEL). */
export interface BlockSourceConfig {
  readonly fullHost: string;
  readonly solidityHost?: string;
  readonly apiKey?: string;
}

/** The block source for the configured node. */
export function createBlockSource(config: BlockSourceConfig): TronBlockSource {
  return new TronBlockSource(config);
}

/** Parses BALANCE_SCAN_LEVEL (`head`, the default, or `solidified`); anything else is a configuration error. */
export function parseScanLevel(value: string | undefined): ChainLevel {
  if (value === undefined || value === '' || value === 'head') return 'head';
  if (value === 'solidified') return 'solidified';
  throw new Error(`BALANCE_SCAN_LEVEL must be "head" or "solidified", got "${value}"`);
}

/**
 * Runs scan passes one after another, never overlapping (the cursor is advanced block by block, so two passes
 * in one process would only duplicate work). A failed pass is logged and retried after the interval; a pass that
 * stopped at its block limit is followed at once by the next, so a scanner that fell behind catches up quickly.
 */
export function startBalanceScanJob(scanner: BalanceScanner, options: BalanceScanJobOptions = {}): RunningJob {
  const intervalMs = options.intervalMs ?? 3_000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const pause = (ms: number): Promise<void> => new Promise((resolve) => {
    wake = resolve;
    timer = setTimeout(resolve, ms);
  });
  const loop = async (): Promise<void> => {
    while (!stopped) {
      let caughtUp = true;
      try {
        const pass = await scanner.scan();
        options.onPass?.(pass);
        caughtUp = pass.to === null || pass.to >= pass.latest;
      } catch (error) {
        options.log?.error({ err: error }, 'balance scan pass failed');
      }
      if (!stopped) await pause(caughtUp ? intervalMs : 0);
    }
  };
  const running = loop();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
      await running;
    },
  };
}
