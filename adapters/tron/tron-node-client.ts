import { AsyncLocalStorage } from 'node:async_hooks';
/**
 * The HTTP side of the TRON adapter: one tronweb HttpProvider per endpoint a deployment may split (the full node's
 * /wallet, the solidity node's /walletsolidity, a data provider's pro tier), requests whose `{"Error": …}` replies
 * become refusals, and block headers read into the few fields the gateway uses. Failures leave here as ChainErrors.
 */
import { providers } from 'tronweb';
import { ChainError } from '../../core/domain/errors.js';
import { guarded, NodeRefusal, type CallKind } from './tron-errors.js';
import { NodePool, type TronNodeEndpoint } from './tron-node-pool.js';
import { nodeRequester, type NodeRequester } from './node-http.js';

/** Where a request goes. */
export type Endpoint = 'full' | 'solidity' | 'pro';

/** The fields of a block the gateway uses (TaPoS needs the id, expiry and confirmations the rest). */
export interface BlockRef {
  readonly number: number;
  readonly timestamp: number;
  readonly id: string;
}

/** Endpoints and credentials of {@link TronNodeClient}. */
export interface TronNodeClientOptions {
  readonly fullHost: string;
  /** Base URL of /walletsolidity/* (default: the full host). */
  readonly solidityHost?: string;
  /** Sent as TRON-PRO-API-KEY to the full and solidity endpoints. */
  readonly apiKey?: string;
  /** Sent as TRON-PRO-API-KEY to the pro-tier endpoint, which exists only with it. */
  readonly proTierKey?: string;
  /** Base URL of the pro-tier endpoint (default: the full host). */
  readonly proTierHost?: string;
  readonly timeoutMs: number;
  /**
   * Nodes asked, in this order, when the ones before them fail as nodes (unreachable, no reply, HTTP 5xx/403/429):
   * see {@link TronNodeClient.onNode}. Each with its own solidity URL (default: its full URL); the API key is shared.
   */
  readonly fallbackNodes?: readonly { readonly fullHost: string; readonly solidityHost?: string }[];
  /** The clock of the failed nodes' pauses, epoch ms (default Date.now). */
  readonly now?: () => number;
  /** Told each request a node failed as a node, with the node's origin (no path, no credentials): for metrics. */
  readonly onNodeFailure?: (node: string) => void;
  /** Told each request sent to a node, with its path (`wallet/getaccount` …): for metrics (issue #27). */
  readonly onCall?: (path: string) => void;
  /**
   * Per-block reads (issue #27): the head and the solidified head are read at most once per this many ms (of `now`),
   * and a state read of SHARED_READS is made once per head block, shared by every caller until a newer block is
   * known. 0 (default): heads are read on every ask and state reads are shared only in flight and in a moment.
   * One TRON block (3,000) is the natural value: an answer that old is what a node a block behind gives.
   */
  readonly blockCacheMs?: number;
  /** The newest block known elsewhere in the process (the scanner's): a newer one than the cached head ends it. */
  readonly tip?: () => number | null;
}

/** The head block as last read, when, and the state reads made at it (see TronNodeClientOptions.blockCacheMs). */
interface BlockView {
  readonly head: BlockRef;
  at: number;
  readonly reads: Map<string, Promise<unknown>>;
}

type Json = Record<string, unknown>;

/** A broadcast reply that settles the question: accepted, or already known to the node. */
function isAccepted(reply: unknown): boolean {
  const answer = (reply !== null && typeof reply === 'object' ? reply : {}) as { result?: unknown; code?: unknown };
  return answer.result === true || answer.code === 'DUP_TRANSACTION_ERROR';
}

/**
 * Reads whose identical concurrent requests share one flight: state reads a sweep makes several times in one step
 * (the sub's account for its existence, its balance and its resources) and that many sweeps make of the same main
 * address at once. Never a broadcast or a transaction build, and never the per-transaction lookups
 * (gettransactioninfobyid, gettransactionfrompending): each transaction is followed by its own step, so sharing would
 * save nothing, and what they answer decides whether money is sent again.
 */
const SHARED_READS: ReadonlySet<string> = new Set([
  'wallet/getaccount', 'wallet/getaccountresource', 'wallet/getcandelegatedmaxsize', 'wallet/getchainparameters',
  'wallet/triggerconstantcontract', 'wallet/getdelegatedresourceaccountindexv2', 'wallet/getcontractinfo',
]);

interface BlockJson { blockID?: string; block_header?: { raw_data?: { number?: number; timestamp?: number; parentHash?: string } } }
type Provider = InstanceType<typeof providers.HttpProvider>;

/** The fields of a block reply the gateway uses, or null when the reply holds no block. */
function blockRefOf(block: BlockJson): BlockRef | null {
  const raw = block.block_header?.raw_data;
  if (typeof block.blockID !== 'string' || !/^[0-9a-f]{64}$/i.test(block.blockID) || typeof raw?.timestamp !== 'number') return null;
  return { number: raw.number ?? 0, timestamp: raw.timestamp, id: block.blockID.toLowerCase() };
}

/** Requests to a TRON node's HTTP API. Construct freely: nothing is sent until a method is called. */
export class TronNodeClient {
  /** The full node's provider (tronweb's `fullNode`). */
  readonly full: Provider;
  /** The solidity node's provider (tronweb's `solidityNode`). */
  readonly solidity: Provider;
  private readonly pro: NodeRequester | undefined;
  private readonly inFlight = new Map<string, Promise<unknown>>();
  /** The configured node first, then the fallbacks (the one pool of node access). */
  private readonly pool: NodePool;
  /** Told each pro-tier request (the pool tells its own). */
  private readonly onCall: (path: string) => void;
  private readonly now: () => number;
  /** The reads of the moment being run (withMoment), by endpoint, path and body. */
  private readonly moments = new AsyncLocalStorage<Map<string, Promise<unknown>>>();
  private readonly blockCacheMs: number;
  private readonly tip: () => number | null;
  private view: BlockView | null = null;
  private solid: { readonly block: BlockRef; readonly at: number } | null = null;

  constructor(options: TronNodeClientOptions) {
    const key = options.apiKey ? { apiKey: options.apiKey } : {};
    const endpoint = (fullHost: string, solidityHost: string | undefined): TronNodeEndpoint =>
      ({ fullHost, ...(solidityHost === undefined ? {} : { solidityHost }), ...key });
    this.now = options.now ?? Date.now;
    this.pool = new NodePool({
      nodes: [endpoint(options.fullHost, options.solidityHost), ...(options.fallbackNodes ?? []).map((n) => endpoint(n.fullHost, n.solidityHost))],
      timeoutMs: options.timeoutMs, now: this.now,
      ...(options.onNodeFailure === undefined ? {} : { onNodeFailure: options.onNodeFailure }),
      ...(options.onCall === undefined ? {} : { onCall: options.onCall }),
    });
    this.onCall = options.onCall ?? (() => undefined);
    this.full = this.pool.first.fullProvider;
    this.solidity = this.pool.first.solidityProvider;
    this.blockCacheMs = Math.max(0, options.blockCacheMs ?? 0);
    this.tip = options.tip ?? (() => null);
    if (options.proTierKey) {
      const proHeaders = { 'TRON-PRO-API-KEY': options.proTierKey };
      const pro = new providers.HttpProvider(options.proTierHost ?? options.fullHost, options.timeoutMs, '', '', proHeaders);
      this.pro = nodeRequester(pro, options.proTierHost ?? options.fullHost, options.timeoutMs, proHeaders);
    } else {
      this.pro = undefined;
    }
  }

  /** Whether a pro-tier endpoint is configured. */
  get hasProTier(): boolean {
    return this.pro !== undefined;
  }

  /** A request whose failures become ChainErrors (`what` names the operation in the message). */
  call<T>(kind: CallKind, what: string, endpoint: Endpoint, path: string, body: Json): Promise<T> {
    return guarded(kind, what, () => this.request<T>(endpoint, path, body));
  }

  /**
   * A request that throws the raw failure (a NodeRefusal for `{"Error": …}` or a non-object reply), for callers that
   * decide themselves. A read of SHARED_READS asked while the identical read (same endpoint, path and body) is in
   * flight joins it, as head reads do (see {@link shared}): its answer is at most one round trip older than a fresh one,
   * what a node a moment behind would answer, and each new request starts only after the last one ended. Joined
   * callers get the same reply object: replies are read, never changed.
   */
  request<T>(endpoint: Endpoint, path: string, body: Json): Promise<T> {
    if (!SHARED_READS.has(path)) return this.send<T>(endpoint, path, body);
    const key = `${endpoint} ${path} ${JSON.stringify(body)}`;
    // Per block: the head first (one read a block for every caller), then the read made once at that head. Not what
    // the main address can still delegate: every sweep of the block spends it, so each asks (pool included).
    if (this.blockCacheMs > 0 && path !== 'wallet/getcandelegatedmaxsize') return this.atHead(key, () => this.send<T>(endpoint, path, body));
    const moment = this.moments.getStore();
    if (moment === undefined) return this.shared(key, () => this.send<T>(endpoint, path, body));
    const known = moment.get(key);
    if (known !== undefined) return known as Promise<T>;
    const read = this.shared(key, () => this.send<T>(endpoint, path, body));
    moment.set(key, read);
    // A failed read is asked again, not remembered.
    read.catch(() => moment.delete(key));
    return read;
  }

  /** `read` made once at the current head block (read first when the cached one is not fresh). */
  private async atHead<T>(key: string, read: () => Promise<T>): Promise<T> {
    let view = this.freshView();
    if (view === null) {
      await this.head('node-read');
      // The head read failing propagates; a view replaced meanwhile by a newer head is as good.
      view = this.view;
      if (view === null) return this.shared(key, read);
    }
    return this.remembered(view.reads, key, () => this.shared(key, read));
  }

  /** A read remembered in `reads` under `key` (a failed one is forgotten, so it is asked again). */
  private remembered<T>(reads: Map<string, Promise<unknown>>, key: string, read: () => Promise<T>): Promise<T> {
    const known = reads.get(key);
    if (known !== undefined) return known as Promise<T>;
    const asked = read();
    reads.set(key, asked);
    asked.catch(() => reads.delete(key));
    return asked;
  }

  /** The cached head block's view while it is fresh: younger than blockCacheMs, and no newer block known. */
  private freshView(): BlockView | null {
    const view = this.view;
    if (view === null || this.blockCacheMs === 0) return null;
    if (this.now() - view.at >= this.blockCacheMs || (this.tip() ?? -1) > view.head.number) return null;
    return view;
  }

  /**
   * A block newer than the cached head exists (a transaction was found in it): the cached head and every state read
   * made at it are dropped, so nothing read before that block is taken for its state.
   */
  observeBlock(number: number): void {
    if (this.view !== null && number > this.view.head.number) this.view = null;
  }

  /**
   * Runs `fn` as one moment's view of the chain: inside it, a SHARED_READS read (an account, its resources, a dry
   * run, the chain parameters) asked again is answered with the first answer instead of a new request. A workflow
   * stage is such a moment: its reads are milliseconds apart, and an answer that much older is what a node a moment
   * behind would give, which the workflows allow (decisions 82, 83). The head, blocks, transactions and broadcasts
   * are never remembered.
   */
  withMoment<T>(fn: () => Promise<T>): Promise<T> {
    return this.moments.getStore() === undefined ? this.moments.run(new Map(), fn) : fn();
  }

  /**
   * Sends a signed transaction (`wallet/broadcasttransaction`) and returns the node's raw reply, for the gateway to
   * read. Through {@link onNode}: a node that fails as a node hands the same signed bytes to the next, which is safe
   * (the same txid; a node that has it already answers DUP_TRANSACTION_ERROR).
   */
  broadcast(signed: Json): Promise<unknown> {
    return this.pool.ask((node) => node.send<unknown>('full', 'wallet/broadcasttransaction', signed, true), isAccepted);
  }

  private send<T>(endpoint: Endpoint, path: string, body: Json): Promise<T> {
    if (endpoint === 'pro') return this.askPro<T>(path, body);
    return this.pool.ask((node) => node.send<T>(endpoint, path, body));
  }

  private async askPro<T>(path: string, body: Json): Promise<T> {
    const pro = this.proRequester();
    this.onCall(path);
    const reply = await pro.request<unknown>(path, body);
    if (reply === null || typeof reply !== 'object') throw new NodeRefusal(`${path}: unexpected reply`);
    const error = (reply as Json)['Error'];
    if (typeof error === 'string') throw new NodeRefusal(error);
    return reply as T;
  }

  /**
   * The full node's head block (`wallet/getblock`, without transactions). Concurrent reads share one request (see
   * {@link shared}): every workflow stepping at once asks for the head, and one answer serves them all.
   */
  head(kind: CallKind): Promise<BlockRef> {
    const view = this.freshView();
    if (view !== null) return Promise.resolve(view.head);
    return this.shared(`head:${kind}`, async () => {
      const head = await this.block(kind, 'head', 'full', 'wallet/getblock', { detail: false });
      if (this.blockCacheMs > 0) {
        // The same block keeps its reads; a newer one starts afresh (an older one, from a node behind, too).
        if (this.view !== null && this.view.head.id === head.id) this.view.at = this.now();
        else this.view = { head, at: this.now(), reads: new Map() };
      }
      return head;
    });
  }

  /**
   * The solidity node's latest block (`walletsolidity/getnowblock`); concurrent reads share one request, and with
   * blockCacheMs one read serves that long (an older solidified head only makes a transaction look less final).
   */
  solidified(kind: CallKind): Promise<BlockRef> {
    const solid = this.solid;
    if (solid !== null && this.blockCacheMs > 0 && this.now() - solid.at < this.blockCacheMs) return Promise.resolve(solid.block);
    return this.shared(`solidified:${kind}`, async () => {
      const block = await this.block(kind, 'solidified head', 'solidity', 'walletsolidity/getnowblock', {});
      if (this.blockCacheMs > 0 && (this.solid === null || block.number >= this.solid.block.number)) this.solid = { block, at: this.now() };
      return block;
    });
  }

  /**
   * Single flight: a read asked while the same read is in flight joins it instead of sending another. The answer is
   * at most one round trip older than a fresh one; for the head that is always the safe side (fewer confirmations,
   * an older TaPoS reference, "node behind" rather than "dead"), and each new request starts only after the last
   * one ended, so one node's answers never go backwards (with fallback nodes, a switch of node can: that reads as a
   * node a few blocks behind, which the workflows allow for). Failures are shared too (each caller handles its own).
   */
  private shared<T>(key: string, read: () => Promise<T>): Promise<T> {
    const inFlight = this.inFlight.get(key);
    if (inFlight !== undefined) return inFlight as Promise<T>;
    const request = read().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, request);
    return request;
  }

  /** The full node's block `number` (`wallet/getblockbynum`); a different block back is a ChainError. */
  async byNumber(kind: CallKind, number: number): Promise<BlockRef> {
    const block = await this.block(kind, `block ${number}`, 'full', 'wallet/getblockbynum', { num: number });
    if (block.number !== number) throw new ChainError('CHAIN-NODE-UNAVAILABLE', `block ${number}: node returned block ${block.number}`);
    return block;
  }

  /**
   * The solidity node's block `number` with its parent's id and the ids of its transactions
   * (`walletsolidity/getblockbynum`), or null when the node returns no such block (one behind answers `{}` for a
   * number past its solidified head).
   */
  async solidifiedByNumber(kind: CallKind, number: number): Promise<(BlockRef & { readonly parent: string; readonly txids: readonly string[] }) | null> {
    const block = await this.call<BlockJson & { transactions?: { txID?: string }[] }>(kind, `solidified block ${number}`, 'solidity',
      'walletsolidity/getblockbynum', { num: number });
    const ref = blockRefOf(block);
    if (ref === null || ref.number !== number) return null;
    const parent = String(block.block_header?.raw_data?.parentHash ?? '').toLowerCase();
    return { ...ref, parent, txids: (block.transactions ?? []).map((t) => String(t.txID ?? '').toLowerCase()) };
  }

  private async block(kind: CallKind, what: string, endpoint: Endpoint, path: string, body: Json): Promise<BlockRef> {
    const ref = blockRefOf(await this.call<BlockJson>(kind, what, endpoint, path, body));
    if (ref === null) {
      // Transient: a node still syncing (or a solidity view with nothing solidified yet) answers `{}` for a while.
      throw new ChainError(kind === 'balance-read' ? 'CHAIN-BALANCE-QUERY-FAILED' : 'CHAIN-NODE-UNAVAILABLE',
        `${what}: node returned no block`, { transient: true });
    }
    return ref;
  }

  private proRequester(): NodeRequester {
    if (this.pro === undefined) throw new ChainError('INTERNAL-ERROR', 'no pro-tier endpoint is configured', { transient: false });
    return this.pro;
  }
}
