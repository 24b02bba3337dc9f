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
   * Per-block heads (issue #27): the head and the solidified head are read at most once per this many ms (of `now`),
   * the head until a newer block is known. 0 (default): heads are read on every ask (shared only in flight). One
   * TRON block (3,000) is the natural value: a head that old is what a node a block behind gives. State reads are
   * the CachingChainGateway's (issue #39): here they are shared only in flight.
   */
  readonly blockCacheMs?: number;
  /** The newest block known elsewhere in the process (the scanner's): a newer one than the cached head ends it. */
  readonly tip?: () => number | null;
  /**
   * The head as read elsewhere in the process (the scanner's newest block, with its id and time) while that read is
   * younger than blockCacheMs, else null: with blockCacheMs it serves as a head read (see {@link TronNodeClient.head}).
   */
  readonly recent?: () => BlockRef | null;
}

type Json = Record<string, unknown>;

/** A broadcast reply that settles the question: accepted, or already known to the node. */
function isAccepted(reply: unknown): boolean {
  const answer = (reply !== null && typeof reply === 'object' ? reply : {}) as { result?: unknown; code?: unknown };
  return answer.result === true || answer.code === 'DUP_TRANSACTION_ERROR';
}

/**
 * Reads whose identical concurrent requests share one flight: state reads a sweep makes several times at once
 * (the sub's account for its existence and its balance) and that many sweeps make of the same main address at once. Never a broadcast or a transaction build, and never the per-transaction lookups
 * (gettransactioninfobyid, gettransactionfrompending): each transaction is followed by its own step, so sharing would
 * save nothing, and what they answer decides whether money is sent again.
 */
const SHARED_READS: ReadonlySet<string> = new Set([
  'wallet/getaccount', 'wallet/getaccountresource', 'wallet/getcandelegatedmaxsize', 'wallet/getchainparameters',
  'wallet/triggerconstantcontract', 'wallet/getdelegatedresourceaccountindexv2', 'wallet/getcontractinfo', 'wallet/getnextmaintenancetime',
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
  /** Broadcasts begun by this client: part of a shared read's key, so a read asked after a send never joins one asked before it. */
  private sends = 0;
  /** The configured node first, then the fallbacks (the one pool of node access). */
  private readonly pool: NodePool;
  /** Told each pro-tier request (the pool tells its own). */
  private readonly onCall: (path: string) => void;
  private readonly now: () => number;
  private readonly blockCacheMs: number;
  private readonly tip: () => number | null;
  private readonly recent: () => BlockRef | null;
  /** The head as last read and when (see TronNodeClientOptions.blockCacheMs). */
  private latest: { readonly head: BlockRef; at: number } | null = null;
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
    this.recent = options.recent ?? (() => null);
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
   * callers get the same reply object: replies are read, never changed. Nothing is remembered past the flight. A read
   * asked after this client began a broadcast never joins one asked before it (the key carries the count of sends), so
   * a caller that sent a delegation and then reads the sender's account sees at least what the node knew after the send.
   */
  request<T>(endpoint: Endpoint, path: string, body: Json): Promise<T> {
    if (!SHARED_READS.has(path)) return this.send<T>(endpoint, path, body);
    return this.shared(`${this.sends} ${endpoint} ${path} ${JSON.stringify(body)}`, () => this.send<T>(endpoint, path, body));
  }

  /**
   * The newest head read within blockCacheMs, here or elsewhere in the process (`recent`), while no newer block is
   * known; null when there is none (or blockCacheMs is 0).
   */
  private freshHead(): BlockRef | null {
    if (this.blockCacheMs === 0) return null;
    const latest = this.latest;
    const own = latest === null || this.now() - latest.at >= this.blockCacheMs ? null : latest.head;
    const recent = this.recent();
    const head = recent !== null && (own === null || recent.number >= own.number) ? recent : own;
    return head === null || (this.tip() ?? -1) > head.number ? null : head;
  }

  /** A block newer than the cached head exists (a transaction was found in it): the cached head is dropped. */
  observeBlock(number: number): void {
    if (this.latest !== null && number > this.latest.head.number) this.latest = null;
  }

  /**
   * Sends a signed transaction (`wallet/broadcasttransaction`) and returns the node's raw reply, for the gateway to
   * read. Through {@link onNode}: a node that fails as a node hands the same signed bytes to the next, which is safe
   * (the same txid; a node that has it already answers DUP_TRANSACTION_ERROR).
   */
  broadcast(signed: Json): Promise<unknown> {
    // A read begun from now on may see this transaction's effect: it must not join a flight that left before it.
    this.sends += 1;
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
   * {@link shared}): every workflow stepping at once asks for the head, and one answer serves them all. With
   * blockCacheMs, a head read within that time (here, or by the scanner: `recent`) answers instead: as old as a head
   * read a block ago, which only counts fewer confirmations, an earlier expiration and "not newer than the scanner".
   */
  head(kind: CallKind): Promise<BlockRef> {
    const fresh = this.freshHead();
    if (fresh !== null) return Promise.resolve(fresh);
    return this.shared(`head:${kind}`, async () => {
      const head = await this.block(kind, 'head', 'full', 'wallet/getblock', { detail: false });
      if (this.blockCacheMs > 0) this.latest = { head, at: this.now() };
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
