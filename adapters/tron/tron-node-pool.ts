/**
 * Several TRON nodes behind one reader, for the deposit scanner: every operation runs on one node, in the
 * configured order (the first is the preferred one); a node that fails (unreachable, 5xx, 403/429 over quota, an
 * error body) is skipped for a backoff (its Retry-After when it sent one, else doubling from `baseMs` to `maxMs`)
 * and the operation is redone on the next node. Each node also has a call budget per window (a provider's daily
 * quota): a node whose budget is spent is skipped until its window ends, before the provider has to refuse.
 * No real time passes here: cool-downs are timestamps, and when every node is cooling the operation fails with a
 * transient ChainError carrying the wait until the first node is usable again.
 */
import { providers } from 'tronweb';
import { nodeRequester, type NodeRequester } from './node-http.js';
import { ChainError } from '../../core/domain/errors.js';
import { guarded, NodeRefusal } from './tron-errors.js';

/** One node: its /wallet endpoint, and /walletsolidity when served elsewhere (java-tron's 8091). */
export interface TronNodeEndpoint {
  readonly fullHost: string;
  readonly solidityHost?: string;
  /** Sent as TRON-PRO-API-KEY to this node. */
  readonly apiKey?: string;
}

/** Calls a node may take per window of `windowMs` (windows aligned to multiples of windowMs of the pool's clock). */
export interface CallBudget {
  readonly calls: number;
  readonly windowMs: number;
}

/** Options of {@link TronNodePool}. */
export interface TronNodePoolOptions {
  readonly nodes: readonly TronNodeEndpoint[];
  /** HTTP timeout per request (default 15 s). */
  readonly timeoutMs?: number;
  /** Per-node call budget; default none. */
  readonly budget?: CallBudget;
  /** Pause of a failing node: first `baseMs` (default 1 s), doubling up to `maxMs` (default 5 min). */
  readonly backoff?: { readonly baseMs: number; readonly maxMs: number };
  /** Clock of cool-downs and budget windows, epoch ms (default Date.now). */
  readonly now?: () => number;
  /** Told each time a node fails an operation, with the node's origin (no path, no credentials): for metrics. */
  readonly onNodeFailure?: (node: string) => void;
  /** Told each request sent to a node, with its path (`wallet/getblockbynum` …): for metrics (issue #27). */
  readonly onCall?: (path: string) => void;
}

/** Which of a node's endpoints a request goes to. */
export type NodeEndpoint = 'full' | 'solidity';

/** What an operation may do with the node it was given. */
export interface NodeCaller {
  /** The node's base URL (for messages). */
  readonly name: string;
  /** POSTs `body` to `path` (e.g. 'wallet/getnowblock'); `{"Error": …}` and transport failures are ChainErrors. */
  request<T>(endpoint: NodeEndpoint, path: string, body: Record<string, unknown>): Promise<T>;
}

/** A node's health and spending, for metrics. */
export interface NodeStatus {
  readonly name: string;
  /** Calls taken in the current budget window (all calls when there is no budget). */
  readonly calls: number;
  readonly consecutiveFailures: number;
  /** Epoch ms until which the node is skipped (0: usable). */
  readonly coolingUntil: number;
  readonly lastError: string | null;
}

type Provider = InstanceType<typeof providers.HttpProvider>;

class PoolNode implements NodeCaller {
  readonly name: string;
  private readonly full: NodeRequester;
  private readonly solidity: NodeRequester;
  failures = 0;
  until = 0;
  lastError: string | null = null;
  private windowStart = Number.NaN;
  used = 0;

  constructor(
    endpoint: TronNodeEndpoint, timeoutMs: number, private readonly budget: CallBudget | undefined, private readonly now: () => number,
    private readonly onCall: (path: string) => void,
  ) {
    const headers: Record<string, string> = endpoint.apiKey ? { 'TRON-PRO-API-KEY': endpoint.apiKey } : {};
    this.name = endpoint.fullHost;
    const solidityHost = endpoint.solidityHost ?? endpoint.fullHost;
    this.full = nodeRequester(new providers.HttpProvider(endpoint.fullHost, timeoutMs, '', '', headers), endpoint.fullHost, timeoutMs, headers);
    this.solidity = nodeRequester(new providers.HttpProvider(solidityHost, timeoutMs, '', '', headers), solidityHost, timeoutMs, headers);
  }

  /** Epoch ms at which the budget allows a call again (0 when it allows one now). */
  budgetFreeAt(now: number): number {
    if (this.budget === undefined) return 0;
    const start = Math.floor(now / this.budget.windowMs) * this.budget.windowMs;
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.used = 0;
    }
    return this.used < this.budget.calls ? 0 : start + this.budget.windowMs;
  }

  request<T>(endpoint: NodeEndpoint, path: string, body: Record<string, unknown>): Promise<T> {
    const now = this.now();
    const freeAt = this.budgetFreeAt(now);
    if (freeAt > 0) {
      return Promise.reject(new ChainError('CHAIN-NODE-UNAVAILABLE', `${this.name}: call budget spent until ${new Date(freeAt).toISOString()}`,
        { transient: true, retryAfterMs: freeAt - now, nodeCode: 'BUDGET_SPENT' }));
    }
    this.used += 1;
    this.onCall(path);
    return guarded('node-read', path, async () => {
      const reply = await (endpoint === 'full' ? this.full : this.solidity).request<unknown>(path, body);
      if (reply === null || typeof reply !== 'object') throw new NodeRefusal(`${path}: unexpected reply`);
      const error = Array.isArray(reply) ? undefined : (reply as Record<string, unknown>)['Error'];
      if (typeof error === 'string') throw new NodeRefusal(error);
      return reply as T;
    });
  }
}

/** The nodes and their state; see the file comment. */
export class TronNodePool {
  private readonly nodes: PoolNode[];
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly now: () => number;
  private readonly onNodeFailure: (node: string) => void;

  constructor(options: TronNodePoolOptions) {
    if (options.nodes.length === 0) throw new RangeError('a node pool needs at least one node');
    this.now = options.now ?? Date.now;
    this.baseMs = options.backoff?.baseMs ?? 1_000;
    this.maxMs = options.backoff?.maxMs ?? 300_000;
    const onCall = options.onCall ?? (() => undefined);
    this.nodes = options.nodes.map((n) => new PoolNode(n, options.timeoutMs ?? 15_000, options.budget, this.now, onCall));
    this.onNodeFailure = options.onNodeFailure ?? (() => undefined);
  }

  /**
   * Runs `op` on the first usable node, redoing it on the next after a ChainError (any other error is a bug and
   * propagates). Fails with the last node's error, or with a transient "every node is cooling" error whose
   * retryAfterMs is the wait for the first node to be usable again.
   */
  async run<T>(what: string, op: (node: NodeCaller) => Promise<T>): Promise<T> {
    let last: ChainError | null = null;
    let nextUsable = Number.POSITIVE_INFINITY;
    for (const node of this.nodes) {
      const now = this.now();
      const freeAt = Math.max(node.until, node.budgetFreeAt(now));
      if (freeAt > now) {
        nextUsable = Math.min(nextUsable, freeAt);
        continue;
      }
      try {
        const result = await op(node).catch((error: unknown) => {
          // A kept-alive socket the node closed while idle fails the first request on it: that is not the node
          // failing, so the operation is tried again at once, once, on a fresh connection.
          if (!isStaleSocket(error)) throw error;
          return op(node);
        });
        node.failures = 0;
        return result;
      } catch (error) {
        if (!(error instanceof ChainError)) throw error;
        last = error;
        node.failures += 1;
        node.lastError = error.message;
        const pause = error.retryAfterMs ?? Math.min(this.maxMs, this.baseMs * 2 ** Math.min(node.failures - 1, 30));
        node.until = this.now() + pause;
        this.onNodeFailure(new URL(node.name).origin);
        nextUsable = Math.min(nextUsable, node.until);
      }
    }
    const wait = Number.isFinite(nextUsable) ? Math.max(0, nextUsable - this.now()) : this.baseMs;
    const why = last === null ? 'every node is cooling down or out of budget' : `every node failed, last: ${last.message}`;
    throw new ChainError('CHAIN-NODE-UNAVAILABLE', `${what}: ${why}`, { transient: true, retryAfterMs: wait, cause: last ?? undefined, nodeCode: last?.nodeCode ?? null });
  }

  /** Per-node health and spending, in the configured order. */
  status(): NodeStatus[] {
    const now = this.now();
    return this.nodes.map((n) => {
      n.budgetFreeAt(now);
      return { name: n.name, calls: n.used, consecutiveFailures: n.failures, coolingUntil: n.until > now ? n.until : 0, lastError: n.lastError };
    });
  }
}

function isStaleSocket(error: unknown): boolean {
  return error instanceof ChainError && error.nodeCode === null && (error.cause as { code?: unknown } | undefined)?.code === 'ECONNRESET';
}
