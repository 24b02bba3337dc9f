import { ChainError } from '../../domain/errors.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import type { Clock } from '../../ports/clock.port.js';
import { RetryBackoff } from './retry-backoff.js';
import type { RunnerHooks, RunnerLog, RunResult, StageOptions } from './stage-protocol.js';
import type { Visit } from './workflow.js';
import { describeRefusal } from './write-ahead.js';

/** After a block's time, how long a runner waits for it to reach the node before looking for a transaction in it. */
const NEXT_BLOCK_MARGIN_MS = 600;

/**
 * When a stage looks at a subject again, and when a step has run too long: just after the next block for a
 * transaction, after the retry backoff for a failure (the node's Retry-After when longer), and a step running longer
 * than stuckAfterMs flagged, once per stuckAfterMs per subject.
 */
export class StageTiming {
  private readonly backoff: RetryBackoff;
  /** Last stuck report per subject, so the log says it once per stuckAfterMs, not every poll. */
  private readonly stuckReported = new Map<string, number>();

  constructor(
    private readonly workflow: string,
    private readonly deps: { readonly clock: Clock; readonly chain: ChainGateway; readonly log?: RunnerLog; readonly hooks?: RunnerHooks },
    private readonly options: Pick<StageOptions, 'pollMs' | 'retryBaseMs' | 'retryMaxMs' | 'stuckAfterMs'>,
  ) {
    this.backoff = new RetryBackoff(options.retryBaseMs, options.retryMaxMs);
  }

  /**
   * When to look for a transaction sent now, or not in a block yet: just after the next block (the head's time plus
   * one poll interval, TRON's block time, plus a margin for the block to reach the node), not a whole poll interval
   * after now: a look a poll after a send made late in a slot waits most of a block for nothing, and one made early
   * may come before its block. A head whose time is not within a poll interval before now (the chain's clock is not
   * this one, as on a devnet with virtual time, or the head is overdue or unreadable) falls back to a poll from now.
   */
  async nextBlockLook(): Promise<number> {
    const now = this.deps.clock.now();
    const pollMs = this.options.pollMs;
    let head: number;
    try {
      head = (await this.deps.chain.head()).timestamp;
    } catch {
      return now + pollMs;
    }
    if (!(head <= now && now - head < pollMs)) return now + pollMs;
    return Math.max(now + NEXT_BLOCK_MARGIN_MS, head + pollMs + NEXT_BLOCK_MARGIN_MS);
  }

  /** How long a subject that failed waits before its next look: its backoff, or the node's Retry-After when longer. */
  retryDelay(key: string, error: unknown): number {
    const backoff = this.backoff.next(key);
    return error instanceof ChainError && error.retryAfterMs !== null ? Math.max(backoff, error.retryAfterMs) : backoff;
  }

  /** A stage's end: one that did not retry starts the subject's backoff over; a finished one also forgets its stuck report. */
  ended(key: string, outcome: RunResult<unknown>['outcome']): void {
    if (outcome !== 'retrying') this.backoff.reset(key);
    if (outcome === 'finished') this.stuckReported.delete(key);
  }

  /** A subject's workflow ended by its error path: its backoff starts over. */
  resetBackoff(key: string): void {
    this.backoff.reset(key);
  }

  /**
   * Logs (once per stuckAfterMs) a step that has been running too long (`visit`: the subject's visit now), with the
   * error that last retried it: an operator should look.
   */
  checkStuck(key: string, step: string, visit: Pick<Visit<unknown>, 'open' | 'startedAt'> | null, error?: unknown): void {
    const now = this.deps.clock.now();
    const forMs = now - (visit?.startedAt ?? now);
    if (forMs < this.options.stuckAfterMs) return;
    const last = this.stuckReported.get(key);
    if (last !== undefined && now - last < this.options.stuckAfterMs) return;
    if (this.stuckReported.size >= 10_000) this.stuckReported.delete(this.stuckReported.keys().next().value!);
    this.stuckReported.set(key, now);
    const record = visit?.open ?? null;
    this.deps.log?.warn({
      workflow: this.workflow, key, step, forMs, txid: record?.txid ?? null, refusal: record?.refusal ?? null,
      ...(error === undefined ? {} : { lastError: describeRefusal(error) }),
    }, 'workflow stuck');
    this.deps.hooks?.onStuck?.(this.workflow, key, step, forMs);
  }
}
