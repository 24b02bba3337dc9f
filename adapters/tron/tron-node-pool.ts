/**
 * The one node pool of the TRON adapter (issue #39): several TRON nodes, in the configured order (the first is the
 * preferred one), with their pauses, call budgets and metrics, behind both the chain gateway (tron-node-client.ts)
 * and the deposit scanner's block source (tron-block-source.ts). A node that fails as a node (unreachable, no reply,
 * HTTP 5xx/401/403/408/425/429, a quota text) is paused (its Retry-After, else `baseMs` doubling per failure in a row
 * up to `maxMs`; failures of requests in flight together count once) and the work goes to the next node. Each node
 * may have a call budget per window (a provider's daily quota): a spent node is skipped until its window ends.
 * No real time passes here: pauses are timestamps of `now`.
 *
 * Two ways to use the nodes, for the two callers' needs:
 * - {@link NodePool.ask}, per request (the gateway): only a node's own failure fails over; an answer from java-tron
 *   is final from the first node only, a fallback's refusal is not (see its comment); when every node is paused the
 *   one whose pause ends first is asked anyway.
 * - {@link NodePool.run}, per operation on one node (the block source: a block and its receipts must come from one
 *   node): any ChainError moves the operation to the next node; when every node is paused or out of budget the
 *   operation fails transiently with the wait until the first one is usable again.
 */
import { providers } from 'tronweb';
import { nodeRequester, type NodeRequester } from './node-http.js';
import { ChainError } from '../../core/domain/errors.js';
import { FallbackRefusal, guarded, nodeFailure, NodeRefusal } from './tron-errors.js';

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

/** Options of {@link NodePool}: every option of node access, once. */
export interface NodePoolOptions {
  readonly nodes: readonly TronNodeEndpoint[];
  /** HTTP timeout per request (default 15 s). */
  readonly timeoutMs?: number;
  /** Per-node call budget; default none. */
  readonly budget?: CallBudget;
  /** Pause of a failing node: first `baseMs` (default 1 s), doubling up to `maxMs` (default 1 min). */
  readonly backoff?: { readonly baseMs: number; readonly maxMs: number };
  /** Clock of pauses and budget windows, epoch ms (default Date.now). */
  readonly now?: () => number;
  /** Told each time a node fails as a node, with the node's origin (no path, no credentials): for metrics. */
  readonly onNodeFailure?: (node: string) => void;
  /** Told each request sent to a node, with its path (`wallet/getblockbynum` …): for metrics (issue #27). */
  readonly onCall?: (path: string) => void;
}

/** Which of a node's endpoints a request goes to. */
export type NodeEndpoint = 'full' | 'solidity';

/** What an operation of {@link NodePool.run} may do with the node it was given. */
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
type Json = Record<string, unknown>;

/** One node of the pool: its endpoints, its pause and its budget. */
export class PoolNode {
  /** The full host as configured (for messages). */
  readonly name: string;
  /** The full host's origin (for metrics). */
  readonly origin: string;
  /** tronweb's providers of this node (the gateway hands the first node's to tronweb). */
  readonly fullProvider: Provider;
  readonly solidityProvider: Provider;
  private readonly full: NodeRequester;
  private readonly solidity: NodeRequester;
  failures = 0;
  until = 0;
  /** When it last failed (a failure of a request asked before that is the same burst). */
  failedAt = Number.NEGATIVE_INFINITY;
  lastError: string | null = null;
  private windowStart = Number.NaN;
  used = 0;

  constructor(
    endpoint: TronNodeEndpoint, timeoutMs: number, private readonly budget: CallBudget | undefined, private readonly now: () => number,
    private readonly onCall: (path: string) => void,
  ) {
    const headers: Record<string, string> = endpoint.apiKey ? { 'TRON-PRO-API-KEY': endpoint.apiKey } : {};
    this.name = endpoint.fullHost;
    this.origin = new URL(endpoint.fullHost).origin;
    const solidityHost = endpoint.solidityHost ?? endpoint.fullHost;
    this.fullProvider = new providers.HttpProvider(endpoint.fullHost, timeoutMs, '', '', headers);
    this.solidityProvider = new providers.HttpProvider(solidityHost, timeoutMs, '', '', headers);
    this.full = nodeRequester(this.fullProvider, endpoint.fullHost, timeoutMs, headers);
    this.solidity = nodeRequester(this.solidityProvider, solidityHost, timeoutMs, headers);
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

  /** When the node may be asked again (its pause or its budget window, whichever ends later). */
  freeAt(now: number): number {
    return Math.max(this.until, this.budgetFreeAt(now));
  }

  /**
   * One request, counted against the budget and told to onCall; the raw failure is thrown (a NodeRefusal for an
   * `{"Error": …}` body, and for a reply that is not an object unless `anyReply`).
   */
  async send<T>(endpoint: NodeEndpoint, path: string, body: Json, anyReply = false): Promise<T> {
    const now = this.now();
    const freeAt = this.budgetFreeAt(now);
    if (freeAt > 0) {
      throw new ChainError('CHAIN-NODE-UNAVAILABLE', `${this.name}: call budget spent until ${new Date(freeAt).toISOString()}`,
        { transient: true, retryAfterMs: freeAt - now, nodeCode: 'BUDGET_SPENT' });
    }
    this.used += 1;
    this.onCall(path);
    const reply = await (endpoint === 'full' ? this.full : this.solidity).request<unknown>(path, body);
    const isObject = reply !== null && typeof reply === 'object';
    if (!isObject && !anyReply) throw new NodeRefusal(`${path}: unexpected reply`);
    const error = isObject && !Array.isArray(reply) ? (reply as Json)['Error'] : undefined;
    // An error body is java-tron's answer, unless it is a provider's quota text (then nodeFailure fails it over).
    if (typeof error === 'string') throw new NodeRefusal(error);
    return reply as T;
  }
}

/** The nodes and their state; see the file comment. */
export class NodePool {
  readonly nodes: readonly PoolNode[];
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly now: () => number;
  private readonly onNodeFailure: (node: string) => void;

  constructor(options: NodePoolOptions) {
    if (options.nodes.length === 0) throw new RangeError('a node pool needs at least one node');
    this.now = options.now ?? Date.now;
    this.baseMs = options.backoff?.baseMs ?? 1_000;
    this.maxMs = options.backoff?.maxMs ?? 60_000;
    const onCall = options.onCall ?? (() => undefined);
    this.nodes = options.nodes.map((n) => new PoolNode(n, options.timeoutMs ?? 15_000, options.budget, this.now, onCall));
    this.onNodeFailure = options.onNodeFailure ?? (() => undefined);
  }

  /** The preferred node. */
  get first(): PoolNode {
    return this.nodes[0]!;
  }

  /**
   * Runs one request on the first node not paused, in the configured order; a node that fails as a node
   * (`nodeFailure`) is paused and the request goes to the next. An answer from java-tron (a refusal, any other
   * `{"Error": …}` body, HTTP 404) is final from the first configured node only. From a fallback only a success is
   * taken (for a broadcast, `final` says which replies are): its refusal may come from a node behind or a
   * misconfigured one, so the caller sees the first node's failure instead (or, when that node was paused and not
   * asked, a transient error) and retries later, as it would have without fallbacks. When every node is paused the one
   * whose pause ends first is asked anyway, so a single node behaves as if there were no pausing. Nodes may disagree
   * (one behind another): the workflows' rules already read a node behind as "not yet", never as "absent"
   * (decisions 82, 83).
   */
  async ask<T>(request: (node: PoolNode) => Promise<T>, final: (reply: T) => boolean = () => true): Promise<T> {
    const now = this.now();
    const ready = this.nodes.filter((n) => n.freeAt(now) <= now);
    const order = ready.length > 0 ? ready : [this.nodes.reduce((a, b) => (b.freeAt(now) < a.freeAt(now) ? b : a))];
    let failure: unknown;
    for (const node of order) {
      const asked = this.now();
      let reply: T;
      try {
        reply = await request(node);
      } catch (error) {
        const asNode = nodeFailure(error, this.now());
        if (asNode === null) throw node === this.first ? error : this.notFinal(node, failure, error);
        this.pause(node, asked, asNode.retryAfterMs, error);
        failure = error;
        continue;
      }
      // A success keeps a pause another request set meanwhile (a 429's Retry-After stands).
      node.failures = 0;
      if (node !== this.first && !final(reply)) throw this.notFinal(node, failure, reply);
      return reply;
    }
    throw failure;
  }

  /**
   * Runs `op` on the first usable node, redoing it on the next after a ChainError (any other error is a bug and
   * propagates). Fails with a transient ChainError: the last node's error as its cause, or "every node is cooling"
   * with retryAfterMs the wait for the first node to be usable again.
   */
  async run<T>(what: string, op: (node: NodeCaller) => Promise<T>): Promise<T> {
    let last: ChainError | null = null;
    let nextUsable = Number.POSITIVE_INFINITY;
    for (const node of this.nodes) {
      const now = this.now();
      const freeAt = node.freeAt(now);
      if (freeAt > now) {
        nextUsable = Math.min(nextUsable, freeAt);
        continue;
      }
      const caller: NodeCaller = {
        name: node.name,
        request: <R>(endpoint: NodeEndpoint, path: string, body: Json) => guarded('node-read', path, () => node.send<R>(endpoint, path, body)),
      };
      const asked = this.now();
      try {
        const result = await op(caller).catch((error: unknown) => {
          // A kept-alive socket the node closed while idle fails the first request on it: that is not the node
          // failing, so the operation is tried again at once, once, on a fresh connection.
          if (!isStaleSocket(error)) throw error;
          return op(caller);
        });
        node.failures = 0;
        return result;
      } catch (error) {
        if (!(error instanceof ChainError)) throw error;
        last = error;
        this.pause(node, asked, error.retryAfterMs, error);
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

  /**
   * What the caller sees when a fallback refuses: the first node's failure in this request, else (the first node was
   * paused, not asked) a transient ChainError until the first node's pause ends.
   */
  private notFinal(node: PoolNode, failure: unknown, answer: unknown): unknown {
    if (failure !== undefined) return failure;
    const said = answer instanceof Error ? answer.message : JSON.stringify(answer);
    return new FallbackRefusal(`${node.origin} refused (${said}) while the first node is paused; a fallback's refusal is not final`,
      Math.max(0, this.first.until - this.now()));
  }

  /**
   * Pauses a node that failed work asked at `asked`: its Retry-After, else `baseMs` doubling per failure in a row up
   * to `maxMs`. Failures of requests that were in flight together count once (a burst is one failure, not ten).
   */
  private pause(node: PoolNode, asked: number, retryAfterMs: number | null | undefined, error: unknown): void {
    const burst = node.failedAt > asked;
    if (!burst) node.failures += 1;
    node.failedAt = this.now();
    node.lastError = error instanceof Error ? error.message : String(error);
    const pause = retryAfterMs ?? Math.min(this.baseMs * 2 ** Math.min(node.failures - 1, 30), this.maxMs);
    node.until = Math.max(node.until, this.now() + pause);
    this.onNodeFailure(node.origin);
  }
}

function isStaleSocket(error: unknown): boolean {
  return error instanceof ChainError && error.nodeCode === null && (error.cause as { code?: unknown } | undefined)?.code === 'ECONNRESET';
}
