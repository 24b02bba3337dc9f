/**
 * Public entry point of the TRON devnet: a faithful local simulator of the java-tron FullNode HTTP API that
 * unmodified tronweb talks to. Start it with {@link startDevnet}; drive it over HTTP (`/wallet/*`,
 * `/walletsolidity/*`, `/sim/*`, and the simulated TronSave and itrx rental APIs) or in-process through the
 * returned {@link Devnet}.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Chain, type Faults, type GenesisSpec, type ReorgOptions, type ReorgResult } from './chain.js';
import { toBase58, toHex41 } from './codec.js';
import type { ChainParams } from './constants.js';
import { DevnetNode } from './devnet-node.js';
import { noFaults } from './faults.js';
import { NodeFaultGate } from './node-faults.js';
import { ItrxSim, type ItrxSettings } from './rental-itrx.js';
import { RentalPool } from './rental-pool.js';
import { TronSaveSim, type TronSaveSettings } from './rental-tronsave.js';
import { createDevnetServer } from './server.js';
import { controlRoutes, nodeFaultsRoute } from './sim-api.js';

export type { ChainParams } from './constants.js';
export { BLOCK_INTERVAL_MS, DEFAULT_PARAMS, SUN_PER_TRX, USDT_ENERGY, USDT_META } from './constants.js';
export type { BlockRecord, Faults, GenesisSpec, ReorgOptions, ReorgResult, TxRecord } from './chain.js';
export { DevnetNode, NODE_FAULT_KEYS, type NodeFaults } from './devnet-node.js';
export type { ChaosFaults, NodeFaultKind, NodeFaultRule, RateLimitFaults } from './node-faults.js';
export { NODE_FAULT_KINDS } from './node-faults.js';
export {
  DEVNET_TRONSAVE_API_KEY, tronSavePayout, type TronSaveOrder, type TronSaveSettings, type TronSaveSim,
} from './rental-tronsave.js';
export {
  DEVNET_ITRX_API_KEY, DEVNET_ITRX_API_SECRET, itrxSigningString, type ItrxOrder, type ItrxPeriod, type ItrxSettings, type ItrxSim,
} from './rental-itrx.js';
export type { ChainState } from './state.js';
export { totalOwnedSun } from './state.js';
export { Chain, TxError } from './chain.js';

/** Options of {@link startDevnet}. */
export interface DevnetOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to bind, default 127.0.0.1. */
  host?: string;
  /** Real milliseconds between blocks; 0 = manual mode (blocks only via mine/advance). Default 3,000. */
  blockMs?: number;
  /** Blocks between head and solidified head, default 19. */
  solidifyLag?: number;
  /** Seed for every derived key and address (witnesses, rental pool, USDT contract). */
  seed?: string;
  /** Virtual time of block 0 in ms; default 2025-01-01T00:00:00Z (deterministic). */
  genesisTime?: number;
  /** Pre-funded accounts. */
  genesis?: GenesisSpec;
  /** Chain parameter overrides (energy fee, limits, …). */
  params?: Partial<ChainParams>;
  /**
   * Serve /walletsolidity/* on a second HTTP server on this port (0 = a free port), as java-tron serves it on 8091;
   * that server answers /wallet/* (and everything else) with 404. Unset: one server serves both.
   */
  solidityPort?: number;
  /** false: the full-node server answers /walletsolidity/* with 404 (java-tron's 8090 does not serve them). Default true. */
  fullServesSolidity?: boolean;
  /**
   * More node endpoints over the same chain (each on a free port, serving /wallet, /walletsolidity and /sim), each
   * with its own faults and call counter: {@link Devnet.nodes}. Default 0.
   */
  extraNodes?: number;
}

/** Snapshot returned by /sim/info and {@link Devnet.info}. */
export interface DevnetInfo {
  url: string;
  solidity_url: string;
  usdt: { base58: string; hex: string };
  head_number: number;
  head_id: string;
  solidified_number: number;
  virtual_time: number;
  virtual_time_iso: string;
  block_ms: number;
  pending_transactions: number;
  rental_pool: string;
  witnesses: string[];
  confirmations: number;
}

/** A running devnet. */
export class Devnet {
  /** Base URL to pass to tronweb as `fullHost` (or `fullNode`). */
  readonly url: string;
  /** Base URL of /walletsolidity/* (tronweb's `solidityNode`): {@link url} unless started with `solidityPort`. */
  readonly solidityUrl: string;
  /** USDT contract address (base58). */
  readonly usdtAddress: string;
  /** USDT contract address (41-hex). */
  readonly usdtAddressHex: string;
  /** The simulated TronSave v2 API (served on this devnet's URL; key DEVNET_TRONSAVE_API_KEY). */
  readonly tronsave: TronSaveSim;
  /** The simulated itrx order API (served on this devnet's URL; DEVNET_ITRX_API_KEY / DEVNET_ITRX_API_SECRET). */
  readonly itrx: ItrxSim;
  /** The node endpoints: [0] is this devnet's own URL, then one per `extraNodes`, each with its own faults. */
  readonly nodes: readonly DevnetNode[];
  private timer: NodeJS.Timeout | undefined;

  /** @internal use {@link startDevnet} */
  constructor(
    readonly chain: Chain,
    private readonly servers: { full: Server; solidity?: Server; url: string; solidityUrl: string; gate: NodeFaultGate; extra: Server[] },
    readonly blockMs: number,
    nodes: readonly DevnetNode[],
  ) {
    this.nodes = nodes;
    this.url = servers.url;
    this.solidityUrl = servers.solidityUrl;
    this.usdtAddressHex = chain.usdt;
    this.usdtAddress = toBase58(chain.usdt);
    const pool = new RentalPool(chain);
    this.tronsave = new TronSaveSim(pool);
    this.itrx = new ItrxSim(pool);
    if (blockMs > 0) this.timer = setInterval(() => chain.mine(1), blockMs);
  }

  /**
   * TRX faucet (mints; the account is created if missing). Address in base58 or hex. The simulator keeps SUN as
   * safe integers, like java-tron's int64 JSON; a bigint beyond 2^53 is refused rather than rounded.
   */
  fund(address: string, amountSun: bigint | number): void {
    if (typeof amountSun === 'bigint' && amountSun > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('amount_sun exceeds 2^53');
    this.chain.fund(address, Number(amountSun));
  }

  /** USDT faucet, amount in base units (6 decimals). */
  fundToken(address: string, amount: bigint | number | string): void {
    this.chain.fundToken(address, BigInt(amount));
  }

  /**
   * Blacklists (or, with `on = false`, unblacklists) an address on the USDT contract, as Tether's addBlackList does:
   * a transfer FROM it reverts (mined with receipt REVERT, energy charged, no balance change).
   */
  setUsdtBlacklisted(address: string, on = true): void {
    this.chain.setUsdtBlacklisted(address, on);
  }

  /** Pauses (or unpauses) the USDT contract, as Tether's pause(): every transfer reverts while paused. */
  setUsdtPaused(on: boolean): void {
    this.chain.setUsdtPaused(on);
  }

  /** The USDT contract's admin state: paused, and the blacklisted addresses (base58). */
  usdtStatus(): { paused: boolean; blacklist: string[] } {
    const st = this.chain.state();
    return { paused: st.usdtPaused, blacklist: [...st.usdtBlacklist].sort().map(toBase58) };
  }

  /** Mines `blocks` blocks (3 s of virtual time each); returns the new head number. */
  mine(blocks = 1): number {
    this.chain.mine(blocks);
    return this.chain.head.number;
  }

  /**
   * Advances virtual time to the next maintenance and mines its block (TRON: every getMaintenanceTimeInterval, 6 h on
   * mainnet), where the scheduled parameter changes (prices, the USDT energy factor) take effect; returns the new
   * head number. A test that changes one of those does it here, as the chain does.
   */
  toMaintenance(): number {
    this.chain.toMaintenance();
    return this.chain.head.number;
  }

  /** Advances virtual time by `ms`, mining blocks so head time follows; returns the new head number. */
  advance(ms: number): number {
    this.chain.advance(ms);
    return this.chain.head.number;
  }

  /**
   * Node calls served so far by every node of this devnet (its full and solidity endpoints and any extra nodes), by
   * name ('wallet/getnowblock', 'walletsolidity/gettransactioninfobyid', …): what a client costs the nodes it uses.
   */
  nodeCalls(): Record<string, number> {
    const total: Record<string, number> = {};
    for (const node of this.nodes) {
      for (const [name, n] of Object.entries(node.callsByName)) total[name] = (total[name] ?? 0) + n;
    }
    return Object.fromEntries(Object.entries(total).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** Head, solidified head, virtual time and addresses. */
  info(): DevnetInfo {
    const c = this.chain;
    return {
      url: this.url,
      solidity_url: this.solidityUrl,
      usdt: { base58: this.usdtAddress, hex: this.usdtAddressHex },
      head_number: c.head.number,
      head_id: c.head.id,
      solidified_number: c.solidNumber,
      virtual_time: c.now,
      virtual_time_iso: new Date(c.now).toISOString(),
      block_ms: this.blockMs,
      pending_transactions: c.pendingCount,
      rental_pool: toBase58(c.rentalPool),
      witnesses: c.state().witnesses.map(toBase58),
      confirmations: c.params.confirmations,
    };
  }

  /** Changes chain parameters (energyFee, solidifyLag, confirmations, …); returns the full set. */
  setParams(p: Partial<ChainParams>): ChainParams {
    return this.chain.setParams(p);
  }

  /**
   * Sets fault injection switches (snake_case, as `POST /sim/faults`); unspecified ones keep their value, `script`
   * replaces the whole list, setting `chaos` restarts its seeded sequence and setting `rate_limit` starts a fresh
   * window. Throws on an invalid value (nothing changes then). Returns a copy of the current faults.
   */
  setFaults(f: Partial<Faults> | Record<string, unknown>): Faults {
    return this.nodes[0]!.setFaults(f) as Faults;
  }

  /** A copy of the current faults (what `GET /sim/faults` answers). */
  faults(): Faults {
    return this.nodes[0]!.faults() as Faults;
  }

  /**
   * Replaces the last `depth` blocks with a longer branch (see {@link Chain.reorg}: what the replaced blocks did is
   * undone; their transactions return to the pool unless `keep` says otherwise). `POST /sim/reorg {depth, keep?, length?}`.
   */
  reorg(depth: number, options: ReorgOptions = {}): ReorgResult {
    return this.chain.reorg(depth, options);
  }

  /**
   * Changes the simulated rental markets (`POST /sim/rental {tronsave?, itrx?}`); unspecified settings keep their
   * value. Throws on an invalid value (validated per provider). Returns both providers' settings.
   */
  configureRental(changes: { tronsave?: Partial<TronSaveSettings>; itrx?: Partial<ItrxSettings> } | Record<string, unknown>):
    { tronsave: TronSaveSettings; itrx: ItrxSettings } {
    const c = changes as { tronsave?: Partial<TronSaveSettings>; itrx?: Partial<ItrxSettings> };
    return { tronsave: this.tronsave.configure(c.tronsave ?? {}), itrx: this.itrx.configure(c.itrx ?? {}) };
  }

  /** Normalizes an address to 41-hex (handy in tests). */
  static hex(address: string): string {
    return toHex41(address);
  }

  /** Stops block production and the HTTP servers; held (`timeout` fault) sockets are destroyed. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const servers = [this.servers.full, this.servers.solidity, ...this.servers.extra].filter((s): s is Server => s !== undefined);
    await Promise.all(servers.map(closeServer));
  }
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
}

async function listen(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
}

/** Starts a devnet and resolves once it listens. */
export async function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const params: Partial<ChainParams> = { ...options.params };
  if (options.solidifyLag !== undefined) params.solidifyLag = options.solidifyLag;
  const chain = new Chain({ seed: options.seed, genesisTime: options.genesisTime, genesis: options.genesis, params });
  // Filled once the Devnet exists; the server reads the table per request.
  const routes: Parameters<typeof createDevnetServer>[1] = {};
  // One gate for both servers: scripted rules, chaos draws and the quota span the full and the solidity node.
  const gate = new NodeFaultGate(chain.faults, () => chain.now);
  const split = options.solidityPort !== undefined;
  const full = createDevnetServer(chain, routes, gate, { wallet: true, solidity: options.fullServesSolidity !== false, control: true });
  const host = options.host ?? '127.0.0.1';
  const url = await listen(full, options.port ?? 0, host);
  let solidity: Server | undefined;
  let solidityUrl = url;
  if (split) {
    solidity = createDevnetServer(chain, routes, gate, { wallet: false, solidity: true, control: false });
    try {
      solidityUrl = await listen(solidity, options.solidityPort ?? 0, host);
    } catch (e) {
      await closeServer(full);
      throw e;
    }
  }
  const nodes = [new DevnetNode(0, url, chain, chain.faults, gate)];
  const extra: Server[] = [];
  const extraRoutes: Array<Parameters<typeof createDevnetServer>[1]> = [];
  try {
    for (let i = 1; i <= (options.extraNodes ?? 0); i += 1) {
      const switches = noFaults();
      const nodeGate = new NodeFaultGate(switches, () => chain.now);
      const table: Parameters<typeof createDevnetServer>[1] = {};
      const server = createDevnetServer(chain, table, nodeGate, { wallet: true, solidity: true, control: true }, switches);
      extra.push(server);
      nodes.push(new DevnetNode(i, await listen(server, 0, host), chain, switches, nodeGate));
      extraRoutes.push(table);
    }
  } catch (e) {
    await Promise.all([full, ...(solidity ? [solidity] : []), ...extra].map(closeServer));
    throw e;
  }
  const devnet = new Devnet(chain, { full, solidity, url, solidityUrl, gate, extra }, options.blockMs ?? 3_000, nodes);
  Object.assign(routes, controlRoutes(devnet));
  // Every node answers the chain's /sim routes, but /sim/faults sets that node's own faults.
  extraRoutes.forEach((table, i) => Object.assign(table, controlRoutes(devnet), { '/sim/faults': nodeFaultsRoute(nodes[i + 1]!) }));
  return devnet;
}
