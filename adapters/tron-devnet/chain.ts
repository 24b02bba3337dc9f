/**
 * The devnet chain: blocks on a virtual clock, a pending pool applied to a pending state (java-tron applies
 * pending transactions to its DB session too, so fullnode reads see them), one state layer per block (state.ts) for
 * the solidified view and reorgs, broadcast validation in java-tron's order, and the test controls (faucet, mine, advance).
 */
import { BLOCK_INTERVAL_MS, DEFAULT_GENESIS_TIME, DEFAULT_PARAMS, INTEGER_PARAMS, MAINTENANCE_PARAMS, SUN_PER_TRX, TX_EXPIRATION_MS, type ChainParams } from './constants.js';
import { addressOfKey, deriveKey, sha256Hex, signTxId, toHex41, txIdentity, type RawData } from './codec.js';
import { checkTx, parseSignedTx } from './tx-checks.js';
import type { DevnetContracts } from './contracts.js';
import { executeTx, TxError, type SignedTx, type TxInfo } from './executor.js';
import { absorbParent, commitState, emptyState, forkState, newAccount, readOnlyView, setWritable, type ChainState } from './state.js';
import { draw, drawInt } from './prng.js';
import { driftEnergyWeight } from './resources.js';
import { noFaults, type Faults } from './faults.js';

/** A produced block. */
export interface BlockRecord {
  number: number;
  id: string;
  parentHash: string;
  time: number;
  witness: string;
  txTrieRoot: string;
  /** sha256 of the header, what the witness signs. */
  headerHash: string;
  /** Filled lazily by {@link Chain.witnessSignature}: secp256k1 signing costs ~2 ms and most blocks are never read. */
  witnessSignature?: string;
  txIds: string[];
}

/** A transaction included in a block. */
export interface TxRecord {
  tx: SignedTx;
  contractRet: string;
  info: TxInfo;
}

/** A transaction the devnet itself puts into the next block (e.g. a rental delivery), with a completion hook. */
export interface SystemTx {
  tx: SignedTx;
  onResult(ok: boolean, error?: string): void;
}

/** How {@link Chain.reorg} builds the new branch. */
export interface ReorgOptions {
  /**
   * Which transactions of the replaced blocks the new branch may include again: 'all' (default: they return to the
   * pending pool, as a node re-broadcasts them, and are re-executed on the fork point's state), 'none' (they vanish,
   * as when the payer's node never heard of them), or a predicate on the txid.
   */
  keep?: 'all' | 'none' | ((txid: string) => boolean);
  /** Blocks of the new branch; it must be longer than the replaced part (a node switches only to a longer chain). Default depth + 1. */
  length?: number;
}

/** What {@link Chain.reorg} did. */
export interface ReorgResult {
  /** The last block both branches share. */
  fork: number;
  /** The blocks that were replaced, oldest first. */
  replaced: Array<{ number: number; id: string }>;
  /** Transactions of the replaced blocks that the new branch does not contain. */
  dropped: string[];
}

/** Genesis content. */
export interface GenesisSpec {
  /** Pre-funded accounts: TRX in sun and optional USDT in base units (6 decimals). */
  accounts?: Array<{ address: string; balance_sun?: number; usdt?: number | string | bigint }>;
}

/** Chain construction options. */
export interface ChainOptions {
  seed?: string;
  genesisTime?: number;
  params?: Partial<ChainParams>;
  genesis?: GenesisSpec;
  /** TRX the rental pool stakes for energy at genesis (part of the initial TotalEnergyWeight). */
  rentalPoolStakeTrx?: number;
}

const ZERO32 = '0'.repeat(64);

/** The simulated chain. */
export class Chain {
  readonly params: ChainParams;
  readonly seed: string;
  readonly usdt: string;
  /** The TRX router contract (trx-router.ts), 41-hex. */
  readonly router: string;
  readonly rentalPoolKey: string;
  readonly rentalPool: string;
  readonly faults: Faults = noFaults();
  readonly blocks: BlockRecord[] = [];
  readonly txs = new Map<string, TxRecord>();
  /** Price history for getenergyprices: "time:price" pairs. */
  readonly energyPriceHistory: Array<[number, number]> = [];
  /**
   * When the next maintenance happens (`wallet/getnextmaintenancetime`): the first block whose time reaches it applies
   * the scheduled parameter changes, then this moves on by whole intervals (java-tron updateNextMaintenanceTime).
   */
  nextMaintenanceTime = 0;
  /** Changes of {@link MAINTENANCE_PARAMS} waiting for the next maintenance (as approved proposals do). */
  private scheduled: Partial<ChainParams> = {};
  readonly systemSources: Array<(time: number) => SystemTx[]> = [];
  private readonly witnessKeys = new Map<string, string>();
  private headState: ChainState;
  private pendingState: ChainState;
  private pending: SignedTx[] = [];
  private readonly pendingIds = new Set<string>();
  /**
   * The state after each kept block: block `bottom`'s is a flat layer, every later block's is a layer on its
   * predecessor holding what that block changed. Only the head's layer is writable.
   */
  private readonly snapshots = new Map<number, ChainState>();
  private bottom = 0;
  private solid = 0;
  /** Draws of the stale_reads fault so far (each state read takes the next). */
  private staleReadDraws = 0;
  /** Witness of a block a reorg replaced, by height: the new branch's block there is another witness's. */
  private readonly replacedWitness = new Map<number, string>();

  constructor(opts: ChainOptions = {}) {
    this.seed = opts.seed ?? 'tron-devnet';
    this.params = { ...DEFAULT_PARAMS, ...opts.params };
    const time = opts.genesisTime ?? DEFAULT_GENESIS_TIME;
    const s = emptyState();
    for (let i = 0; i < 3; i++) {
      const key = deriveKey(this.seed, `witness-${i}`);
      const addr = addressOfKey(key);
      this.witnessKeys.set(addr, key);
      s.witnesses.push(addr);
      s.accounts.set(addr, newAccount(addr, time));
    }
    this.usdt = '41' + sha256Hex(`usdt-contract:${this.seed}`).slice(0, 40);
    s.accounts.set(this.usdt, newAccount(this.usdt, time, true));
    this.router = '41' + sha256Hex(`trx-router-contract:${this.seed}`).slice(0, 40);
    s.accounts.set(this.router, newAccount(this.router, time, true));
    this.rentalPoolKey = deriveKey(this.seed, 'rental-pool');
    this.rentalPool = addressOfKey(this.rentalPoolKey);
    const pool = newAccount(this.rentalPool, time);
    const stake = (opts.rentalPoolStakeTrx ?? 5_000_000) * SUN_PER_TRX;
    pool.balance = 1_000_000 * SUN_PER_TRX;
    pool.frozenEnergy = stake;
    s.accounts.set(this.rentalPool, pool);
    // The pool's stake is counted inside the default network weight so that at genesis 1 TRX ≈ 10 energy exactly.
    if (opts.params?.baseEnergyWeight === undefined) this.params.baseEnergyWeight -= stake / SUN_PER_TRX;
    s.minted = pool.balance + stake;
    for (const g of opts.genesis?.accounts ?? []) {
      const addr = toHex41(g.address);
      const a = s.accounts.get(addr) ?? newAccount(addr, time);
      a.balance += g.balance_sun ?? 0;
      s.minted += g.balance_sun ?? 0;
      s.accounts.set(addr, a);
      if (g.usdt !== undefined && BigInt(g.usdt) > 0n) {
        s.usdt.set(addr, (s.usdt.get(addr) ?? 0n) + BigInt(g.usdt));
        s.usdtTotalSupply += BigInt(g.usdt);
      }
    }
    this.energyPriceHistory.push([0, this.params.energyFee]);
    this.headState = s;
    this.pendingState = forkState(s);
    this.pushBlock(time, ZERO32.slice(0, 42), sha256Hex(`genesis:${this.seed}`), []);
    this.snapshots.set(0, s);
    this.nextMaintenanceTime = time + this.params.maintenanceTimeInterval;
    // java-tron prints the genesis header without `number` (proto default 0), which tronweb cannot build a
    // TaPoS reference from; a real chain is never at genesis when clients connect, so produce block 1 now.
    this.mine(1);
  }

  /** The head block. */
  get head(): BlockRecord {
    return this.blocks[this.blocks.length - 1]!;
  }

  /** The built-in contracts' addresses. */
  get contracts(): DevnetContracts {
    return { usdt: this.usdt, router: this.router };
  }

  /**
   * The state right after block `n` (no pending transactions), while the devnet still keeps it: from the older of
   * the solidified block and head − 64 on. Undefined otherwise. Read-only, like {@link state}.
   */
  stateAt(n: number): ChainState | undefined {
    const s = this.snapshots.get(n);
    return s !== undefined && s === this.headState ? readOnlyView(s) : s;
  }

  /** Solidified block number. */
  get solidNumber(): number {
    return this.solid;
  }

  /** Virtual time: the head block's timestamp. */
  get now(): number {
    return this.head.time;
  }

  /**
   * State for reads (read-only): the fullnode view includes pending transactions; the solidity view is the solid
   * snapshot. Writable states are wrapped so that reading them takes no copies into the layer being built.
   */
  state(solid = false): ChainState {
    const s = solid ? (this.snapshots.get(this.solid) ?? this.headState) : this.pendingState;
    return s === this.pendingState || s === this.headState ? readOnlyView(s) : s;
  }

  /**
   * What a state read sees, and the time it is at: the solidified snapshot (at its block's time), or the full node's
   * view with pending transactions (at head time) — unless the stale_reads fault draws a lag of k > 0 blocks for this
   * call, in which case the state right after block head − k, at that block's time. Read-only.
   */
  readView(solid: boolean): { readonly state: ChainState; readonly time: number } {
    if (solid) return { state: this.state(true), time: this.block(this.solid)?.time ?? this.now };
    const lag = this.faults.stale_reads;
    const behind = lag > 0 ? drawInt(this.seed, 'stale-read', this.staleReadDraws++, lag + 1) : 0;
    if (behind > 0) {
      const at = this.head.number - behind;
      const state = this.stateAt(at);
      const block = this.block(at);
      if (state !== undefined && block !== undefined) return { state, time: block.time };
    }
    return { state: this.state(), time: this.now };
  }

  /**
   * A transaction as a lookup sees it: the solidity view's, or the full node's, which under the stale_tx_lookups
   * fault is a node N blocks behind the head (a transaction in a newer block is unknown to it).
   */
  lookupTx(id: string, solid: boolean): TxRecord | undefined {
    const r = this.tx(id, solid);
    if (r === undefined || solid) return r;
    return r.info.blockNumber <= this.head.number - this.faults.stale_tx_lookups ? r : undefined;
  }

  /** An included transaction, optionally only when solidified. */
  tx(id: string, solid = false): TxRecord | undefined {
    const r = this.txs.get(String(id).toLowerCase());
    return r && (!solid || r.info.blockNumber <= this.solid) ? r : undefined;
  }

  /** A block by number, optionally only when solidified. */
  block(n: number, solid = false): BlockRecord | undefined {
    return n >= 0 && (!solid || n <= this.solid) ? this.blocks[n] : undefined;
  }

  /** Number of pending (broadcast, not yet included) transactions. */
  get pendingCount(): number {
    return this.pending.length;
  }

  /** The pending pool in arrival order (gettransactionfrompending and friends). */
  pendingTxs(): readonly SignedTx[] {
    return this.pending;
  }

  /** Builds an unsigned transaction referencing the head block, as the node's builder endpoints do. */
  buildRaw(type: string, value: Record<string, unknown>, extra: Partial<RawData> = {}): RawData {
    const head = this.head;
    return {
      contract: [{ parameter: { value, type_url: `type.googleapis.com/protocol.${type}` }, type }],
      ref_block_bytes: (head.number & 0xffff).toString(16).padStart(4, '0'),
      ref_block_hash: head.id.slice(16, 32),
      expiration: head.time + TX_EXPIRATION_MS,
      timestamp: head.time,
      ...extra,
    };
  }

  /** Signs raw data with a private key and returns the verified form (devnet-internal transactions). */
  signRaw(raw: RawData, privateKey: string): SignedTx {
    const { txID } = txIdentity({ raw_data: raw });
    return this.verifyShape({ raw_data: raw, signature: [signTxId(txID, privateKey)] });
  }

  /** Parses a broadcast body (see {@link parseSignedTx}). */
  verifyShape(body: unknown): SignedTx {
    return parseSignedTx(body);
  }

  /** Validates and accepts a transaction into the pending pool (wallet/broadcasttransaction). */
  broadcast(body: unknown): SignedTx {
    if (this.faults.reject_broadcast) {
      throw new TxError(this.faults.reject_broadcast, `devnet fault injection: ${this.faults.reject_broadcast}`);
    }
    const tx = this.verifyShape(body);
    this.checkTx(tx);
    const work = forkState(this.pendingState);
    executeTx(work, this.params, tx, this.head.time, this.contracts);
    if (this.faults.drop_next_transactions > 0) {
      // Accepted by this node but lost before reaching a block producer: the client sees success, the chain never does.
      this.faults.drop_next_transactions--;
      return tx;
    }
    commitState(work);
    this.pending.push(tx);
    this.pendingIds.add(tx.txID);
    return tx;
  }

  /** Duplicate, TaPoS, expiration, size and signature checks (in java-tron's order). */
  private checkTx(tx: SignedTx): void {
    const known = this.txs.has(tx.txID) || this.pendingIds.has(tx.txID);
    checkTx(tx, known, this.blocks);
  }

  /** Produces `count` blocks, one slot (3 s of virtual time) apart. */
  mine(count = 1): BlockRecord[] {
    const out: BlockRecord[] = [];
    for (let i = 0; i < count; i++) out.push(this.mineAt(this.head.time + BLOCK_INTERVAL_MS));
    return out;
  }

  /**
   * Advances virtual time by `ms` (rounded up to whole slots). Long jumps are produced as missed slots: one block
   * at the far end of the gap followed by enough regular blocks that the solidified view catches up too.
   */
  advance(ms: number): BlockRecord[] {
    let slots = Math.ceil(Math.max(0, ms) / BLOCK_INTERVAL_MS);
    const out: BlockRecord[] = [];
    if (slots > 0 && this.pending.length) {
      out.push(...this.mine(1));
      slots--;
    }
    const cap = Math.max(this.params.solidifyLag + this.faults.solidify_jitter + 1, 30);
    if (slots <= cap) return [...out, ...this.mine(slots)];
    out.push(this.mineAt(this.head.time + (slots - cap + 1) * BLOCK_INTERVAL_MS));
    return [...out, ...this.mine(cap - 1)];
  }

  private mineAt(time: number): BlockRecord {
    const parent = this.head;
    const st = forkState(this.headState);
    const included: string[] = [];
    const includedIds = new Set<string>();
    const tryInclude = (tx: SignedTx): string | null => {
      if (tx.raw_data.expiration <= parent.time) return 'Transaction expired';
      if (this.txs.has(tx.txID) || includedIds.has(tx.txID)) return 'Dup transaction.';
      const work = forkState(st);
      try {
        const ex = executeTx(work, this.params, tx, time, this.contracts);
        commitState(work);
        included.push(tx.txID);
        includedIds.add(tx.txID);
        const info: TxInfo = { ...ex.info, blockNumber: parent.number + 1, blockTimeStamp: time };
        this.txs.set(tx.txID, { tx, contractRet: ex.contractRet, info });
        return null;
      } catch (e) {
        if (e instanceof TxError) return e.message;
        throw e;
      }
    };
    for (const source of this.systemSources) {
      for (const sys of source(time)) {
        const err = tryInclude(sys.tx);
        sys.onResult(err === null, err ?? undefined);
      }
    }
    // Pending transactions that became invalid (e.g. expired) are dropped, as a block producer would.
    for (const tx of this.pending) tryInclude(tx);
    const driftBps = this.faults.energy_weight_drift_bps;
    if (driftBps > 0) driftEnergyWeight(st, this.params, (2 * draw(this.seed, 'energy-weight-drift', parent.number + 1) - 1) * driftBps);
    const witnesses = this.headState.witnesses;
    let witness = witnesses[(parent.number + 1) % witnesses.length]!;
    // On a fork, the block that wins a height is another witness's than the block it replaces.
    if (this.replacedWitness.get(parent.number + 1) === witness) witness = witnesses[(parent.number + 2) % witnesses.length]!;
    this.replacedWitness.delete(parent.number + 1);
    const block = this.pushBlock(time, witness, parent.id, included);
    setWritable(this.headState, false);
    this.headState = st;
    this.pendingState = forkState(st);
    this.pending = [];
    this.pendingIds.clear();
    this.snapshots.set(block.number, st);
    // After the block's transactions, as java-tron's processBlock: they ran at the old parameters and cycle.
    if (time >= this.nextMaintenanceTime) this.maintain(time);
    this.updateSolid();
    return block;
  }

  /**
   * A maintenance at the block of `time`: the scheduled parameters take effect (java-tron processProposals; a new
   * cycle, where a contract's energy factor moves), and the next maintenance time moves on by whole intervals of the
   * interval now in force (DynamicPropertiesStore.updateNextMaintenanceTime).
   */
  private maintain(time: number): void {
    const changes = this.scheduled;
    this.scheduled = {};
    if (changes.energyFee !== undefined && changes.energyFee !== this.params.energyFee) this.energyPriceHistory.push([time, changes.energyFee]);
    Object.assign(this.params, changes);
    const interval = this.params.maintenanceTimeInterval;
    const rounds = Math.floor((time - this.nextMaintenanceTime) / interval);
    this.nextMaintenanceTime += (rounds + 1) * interval;
  }

  /** Produces blocks until the next maintenance has happened (advancing time to it); returns the blocks. */
  toMaintenance(): BlockRecord[] {
    const target = this.nextMaintenanceTime;
    const out = this.advance(Math.max(target - this.head.time, BLOCK_INTERVAL_MS));
    while (this.nextMaintenanceTime === target) out.push(...this.mine(1));
    return out;
  }

  private pushBlock(time: number, witness: string, parentHash: string, txIds: string[]): BlockRecord {
    const number = this.blocks.length;
    const txTrieRoot = txIds.length ? sha256Hex(txIds.join('')) : ZERO32;
    const header = { number, txTrieRoot, witness_address: witness, parentHash, version: 31, timestamp: time };
    const hash = sha256Hex(JSON.stringify(header));
    const block: BlockRecord = {
      number,
      id: number.toString(16).padStart(16, '0') + hash.slice(16),
      parentHash,
      time,
      witness,
      txTrieRoot,
      headerHash: hash,
      txIds,
    };
    this.blocks.push(block);
    return block;
  }

  /** The witness's signature over a block header (computed on first use). */
  witnessSignature(b: BlockRecord): string {
    if (b.witnessSignature === undefined) {
      const key = this.witnessKeys.get(b.witness);
      b.witnessSignature = key ? signTxId(b.headerHash, key) : '';
    }
    return b.witnessSignature;
  }

  /**
   * Replaces the last `depth` blocks with a new branch (see {@link ReorgOptions}), as when another witness's blocks
   * win a fork: nodes switch to the longer branch, and what the replaced blocks did is undone. Solidified blocks are
   * irreversible, so `depth` may reach the solidified block but not below it. Faucet mints (which are not
   * transactions) made after the fork point are undone with the blocks.
   */
  reorg(depth: number, options: ReorgOptions = {}): ReorgResult {
    if (!Number.isSafeInteger(depth) || depth < 1) throw new Error('depth must be a positive integer');
    const fork = this.head.number - depth;
    if (fork < this.solid) throw new Error(`depth ${depth} would replace solidified blocks (solidified: ${this.solid}, head: ${this.head.number})`);
    const length = options.length ?? depth + 1;
    if (!Number.isSafeInteger(length) || length <= depth) throw new Error('length must be an integer greater than depth (a node switches only to a longer branch)');
    const state = this.snapshots.get(fork);
    if (state === undefined) throw new Error(`the state of block ${fork} is no longer kept`);
    const removed = this.blocks.splice(fork + 1);
    const removedTxs: SignedTx[] = [];
    for (const b of removed) {
      this.replacedWitness.set(b.number, b.witness);
      this.snapshots.delete(b.number);
      for (const id of b.txIds) {
        removedTxs.push(this.txs.get(id)!.tx);
        this.txs.delete(id);
      }
    }
    const keep = options.keep ?? 'all';
    const kept = removedTxs.filter((tx) => (keep === 'all' ? true : keep === 'none' ? false : keep(tx.txID)));
    // The pending pool is rebuilt on the fork point's state: the replaced blocks' transactions first, then the rest.
    setWritable(state, true);
    this.headState = state;
    this.pendingState = forkState(state);
    const pool = [...kept, ...this.pending];
    this.pending = [];
    this.pendingIds.clear();
    for (const tx of pool) {
      const work = forkState(this.pendingState);
      try {
        executeTx(work, this.params, tx, this.head.time, this.contracts);
      } catch (e) {
        if (e instanceof TxError) continue;
        throw e;
      }
      commitState(work);
      this.pending.push(tx);
      this.pendingIds.add(tx.txID);
    }
    this.mine(length);
    return {
      fork,
      replaced: removed.map((b) => ({ number: b.number, id: b.id })),
      dropped: removedTxs.filter((tx) => !this.txs.has(tx.txID)).map((tx) => tx.txID),
    };
  }

  /**
   * Blocks between the head and the solidified head for the current head: params.solidifyLag, plus (with the
   * solidify_jitter fault) a draw in [0, solidify_jitter] seeded by the head's number, so it is fixed per block.
   */
  get solidifyLag(): number {
    const jitter = this.faults.solidify_jitter;
    return this.params.solidifyLag + (jitter > 0 ? drawInt(this.seed, 'solidify-jitter', this.head.number, jitter + 1) : 0);
  }

  /**
   * Moves the solidified head (unless stalled; never backwards) and drops states nobody can ask for any more: the
   * bottom layer absorbs the next block's changes until it is the oldest state still kept.
   */
  updateSolid(): void {
    if (!this.faults.stall_solidification) this.solid = Math.max(this.solid, this.head.number - this.solidifyLag, 0);
    const keepFrom = Math.min(this.solid, this.head.number - 64);
    while (this.bottom < keepFrom) {
      absorbParent(this.snapshots.get(this.bottom + 1)!);
      this.snapshots.delete(this.bottom);
      this.bottom++;
    }
  }

  /** TRX faucet: mints sun to an address (creating the account) in the head and pending state. */
  fund(address: string, sun: number): void {
    const addr = toHex41(address);
    if (!Number.isSafeInteger(sun) || sun <= 0) throw new Error('amount_sun must be a positive integer');
    if (this.headState.minted + sun > Number.MAX_SAFE_INTEGER) throw new Error('devnet supply would exceed 2^53 sun');
    for (const st of this.headAndPending()) {
      st.minted += sun;
      if (!this.ownsOrIsHead(st, st.accounts.owns(addr))) continue;
      const a = st.accounts.get(addr) ?? newAccount(addr, this.head.time);
      a.balance += sun;
      st.accounts.set(addr, a);
    }
  }

  /** The head state, then the pending state (which is a layer on the head's). */
  private headAndPending(): ChainState[] {
    return [this.headState, this.pendingState];
  }

  /**
   * Whether a faucet mint must write an entry of `st`: always in the head state; in the pending state only where it
   * has its own copy, since elsewhere it reads the head's (already minted) entry through.
   */
  private ownsOrIsHead(st: ChainState, owns: boolean): boolean {
    return st === this.headState || owns;
  }

  /** USDT faucet: mints base units (6 decimals) to an address. */
  fundToken(address: string, amount: bigint): void {
    const addr = toHex41(address);
    if (amount <= 0n) throw new Error('amount must be positive');
    for (const st of this.headAndPending()) {
      st.usdtTotalSupply += amount;
      if (this.ownsOrIsHead(st, st.usdt.owns(addr))) st.usdt.set(addr, (st.usdt.get(addr) ?? 0n) + amount);
    }
  }

  /**
   * Tether's admin switches on the USDT contract, effective from the current head (as an owner's addBlackList /
   * pause transaction mined now would be): a transfer from a blacklisted address, or any transfer while paused,
   * reverts. Transactions already pending are re-executed against the new state when mined.
   */
  setUsdtBlacklisted(address: string, on: boolean): void {
    const addr = toHex41(address);
    for (const st of this.headAndPending()) {
      if (on) st.usdtBlacklist.add(addr);
      else st.usdtBlacklist.delete(addr);
    }
  }

  /** See {@link setUsdtBlacklisted}. */
  setUsdtPaused(on: boolean): void {
    for (const st of this.headAndPending()) st.usdtPaused = on;
  }

  /**
   * Updates chain parameters: the simulator's knobs at once, {@link MAINTENANCE_PARAMS} at the next maintenance
   * (an energy fee change is recorded in the price history then). Returns the full set as it will stand after it.
   */
  setParams(p: Partial<ChainParams>): ChainParams {
    for (const [k, v] of Object.entries(p)) {
      if (!(k in this.params) || typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`invalid parameter ${k}`);
      if (INTEGER_PARAMS.has(k as keyof ChainParams) && !Number.isSafeInteger(v)) throw new Error(`invalid parameter ${k}: an integer is required`);
    }
    if (p.maintenanceTimeInterval !== undefined && !(p.maintenanceTimeInterval > 0)) throw new Error('invalid parameter maintenanceTimeInterval: must be positive');
    for (const [k, v] of Object.entries(p)) {
      // A chain parameter moves at the next maintenance, as an approved proposal does; a knob of the simulator at once.
      if (MAINTENANCE_PARAMS.has(k as keyof ChainParams)) (this.scheduled as Record<string, number>)[k] = v as number;
      else (this.params as unknown as Record<string, number>)[k] = v as number;
    }
    this.updateSolid();
    return { ...this.params, ...this.scheduled };
  }
}

export { TxError };
export type { Faults };
