import type { BalanceScanner, BalanceScannerOptions, ScanPass } from '../../../core/application/worker/balance-scanner.js';
import { ChainError } from '../../../core/domain/errors.js';
import type { ChainLevel } from '../../../core/ports/block-source.port.js';
import { TronBlockSource } from '../../../adapters/tron/tron-block-source.js';
import type { CallBudget, TronNodeEndpoint } from '../../../adapters/tron/tron-node-pool.js';
import type { RunningJob, WebhookJobLog } from './webhooks.js';

/** Options of the balance scan job. */
export interface BalanceScanJobOptions {
  /** Pause between passes once caught up; TRON makes a block every 3 s. */
  readonly intervalMs?: number;
  /** Longest wait after a failed pass, even when a node asks for more (default 5 min). */
  readonly maxRetryWaitMs?: number;
  readonly log?: WebhookJobLog;
  /** Called after each successful pass (metrics, tests). */
  readonly onPass?: (pass: ScanPass) => void;
  /** Wall clock, epoch ms, compared with block times to time the next pass (default Date.now). */
  readonly now?: () => number;
  /**
   * The chain's block interval (CHAIN_BLOCK_MS): when set, a caught-up scanner times its next pass to just after the
   * next block's slot (nextPassIn) instead of waiting `intervalMs`. 0 or unset: every `intervalMs`.
   */
  readonly slotMs?: number;
}

/** After a block's slot, how long the next pass waits for the block to reach the node (TRON's blocks propagate in well under a second). */
const SLOT_MARGIN_MS = 500;
/** A pass that found no new block looks again this soon (one head read): the slot's block is late. */
const LATE_BLOCK_RETRY_MS = 1_000;

/**
 * When the next pass of a caught-up scanner runs: just after the next block's slot (its newest block's time plus one
 * interval and a margin), so the workflows that follow their transactions from the scanner's blocks (issue #27) see
 * each block within a moment of its making, at the same two calls a block; a pass that found nothing new looks again
 * a second later. Chain times that do not fit the wall clock (a devnet on virtual time) fall back to the interval.
 */
export function nextPassIn(pass: Pick<ScanPass, 'to' | 'toTimestamp'>, slotMs: number, maxWaitMs: number, now: number): number {
  if (pass.to === null || pass.toTimestamp == null) return Math.min(maxWaitMs, slotMs, LATE_BLOCK_RETRY_MS);
  const margin = Math.min(SLOT_MARGIN_MS, slotMs / 2);
  const wait = pass.toTimestamp + slotMs + margin - now;
  return wait >= 0 && wait <= slotMs + margin ? Math.min(wait, maxWaitMs) : maxWaitMs;
}

/** The nodes the scanner reads (TRON_FULL_HOSTS, else TRON_FULL_HOST with TRON_SOLIDITY_HOST), TRON_API_KEY and a per-node budget. */
export interface BlockSourceConfig {
  readonly fullHost: string;
  readonly solidityHost?: string;
  readonly apiKey?: string;
  /** Several nodes in order of preference; when set, `fullHost`/`solidityHost` are not used. */
  readonly nodes?: readonly TronNodeEndpoint[];
  readonly budget?: CallBudget;
  readonly timeoutMs?: number;
}

/** The block source for the configured node(s). */
export function createBlockSource(config: BlockSourceConfig): TronBlockSource {
  return new TronBlockSource(config);
}

/** Parses BALANCE_SCAN_LEVEL (`head`, the default, or `solidified`); anything else is a configuration error. */
export function parseScanLevel(value: string | undefined): ChainLevel {
  if (value === undefined || value === '' || value === 'head') return 'head';
  if (value === 'solidified') return 'solidified';
  throw new Error(`BALANCE_SCAN_LEVEL must be "head" or "solidified", got "${value}"`);
}

/** Parses BALANCE_SCAN_START: `head` (the default) or the block number a new deployment starts scanning at. */
export function parseScanStart(value: string | undefined): 'head' | number {
  if (value === undefined || value === '' || value === 'head') return 'head';
  if (/^(0|[1-9][0-9]{0,14})$/.test(value)) return Number(value);
  throw new Error(`BALANCE_SCAN_START must be "head" or a block number, got "${value}"`);
}

/** The scanner's options from the environment (BALANCE_SCAN_LEVEL, BALANCE_SCAN_START); a bad value throws naming it. */
export function scannerOptionsFromEnv(env: Readonly<Record<string, string | undefined>>): BalanceScannerOptions {
  return { level: parseScanLevel(env['BALANCE_SCAN_LEVEL']), startAt: parseScanStart(env['BALANCE_SCAN_START']) };
}

/**
 * Runs scan passes one after another, never overlapping. A pass that stopped at its block limit is followed at once
 * by the next, so a scanner that fell behind catches up at full speed; once caught up it waits `intervalMs`. A failed
 * pass is logged and retried after the wait the nodes asked for (their Retry-After, when every node is cooling) or
 * the interval, whichever is longer.
 */
export function startBalanceScanJob(scanner: BalanceScanner, options: BalanceScanJobOptions = {}): RunningJob {
  const intervalMs = options.intervalMs ?? 3_000;
  const now = options.now ?? Date.now;
  const slotMs = options.slotMs ?? 0;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 300_000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const pause = (ms: number): Promise<void> => new Promise((resolve) => {
    wake = resolve;
    timer = setTimeout(resolve, ms);
  });
  const loop = async (): Promise<void> => {
    while (!stopped) {
      let wait = intervalMs;
      try {
        const pass = await scanner.scan();
        options.onPass?.(pass);
        // The worker's log sees what the scanner measured even when the scanner was built without one.
        if (pass.gap !== null) options.log?.warn({ gap: pass.gap, latest: pass.latest, lag: pass.lag }, 'balance scan: block missing below the node head, retried');
        if (pass.reorgs > 0) options.log?.warn({ reorgs: pass.reorgs, reverted: pass.reverted.map((d) => d.id), from: pass.from }, 'balance scan: reorg rolled back');
        if (pass.heldBy === undefined && pass.to !== null && pass.to < pass.latest && pass.gap === null) wait = 0;
        else if (pass.heldBy === undefined && slotMs > 0) wait = nextPassIn(pass, slotMs, intervalMs, now());
      } catch (error) {
        options.log?.error({ err: error, lag: scanner.lag() }, 'balance scan pass failed');
        const asked = error instanceof ChainError ? error.retryAfterMs ?? 0 : 0;
        wait = Math.min(Math.max(intervalMs, asked), maxRetryWaitMs);
      }
      if (!stopped) await pause(wait);
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
