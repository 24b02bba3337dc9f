/**
 * The per-block reads of a ChainGateway (issue #39 item 5): a decorator that answers a state read asked again in the
 * same block from the first answer, and drops it when that block is no longer the newest known or when this process
 * sends a transaction touching the address. One place for the chain reads' call-saving and its invalidation rule;
 * the core asks plain port methods and never knows.
 */
import type { ChainResources, SignedTransaction, TransactionState } from '../../core/domain/model/chain.js';
import type { ChainGateway, Signer, TransactionIntent, TrxHoldings } from '../../core/ports/chain-gateway.port.js';

/** Options of {@link CachingChainGateway}. */
export interface CachingChainGatewayOptions {
  /**
   * How long (of `now`) a read stands at most: one block time (TRON: 3,000 ms). An answer that old is what a node a
   * block behind gives, which the workflows allow (decisions 82, 83). 0 turns the cache off.
   */
  readonly blockMs: number;
  /** The clock of the reads' ages, epoch ms. */
  readonly now: () => number;
  /** The newest block known elsewhere in the process (the scanner's): a newer one than a read's ends it. */
  readonly tip?: () => number | null;
}

/** One remembered read: its answer (settled value once known), the block newest when it was asked, and when. */
interface Entry {
  readonly answer: Promise<unknown>;
  settled?: { readonly value: unknown };
  readonly block: number;
  readonly at: number;
  /** The addresses whose state it reads (an own transaction touching one of them drops it). */
  readonly addresses: readonly string[];
}

/** The addresses a transaction of `signer` with `intent` changes the state of (owner and counterparty). */
function addressesOf(signer: string, intent: TransactionIntent): string[] {
  switch (intent.kind) {
    case 'transfer-trx':
    case 'transfer-trc20':
      return [signer, intent.to];
    case 'delegate':
    case 'undelegate':
      return [signer, intent.receiver];
    default:
      return [signer];
  }
}

/**
 * Transactions prepared here, remembered by txid until broadcast (about 200 bytes each): enough for a few blocks of
 * a busy worker. One not found (prepared before a restart) drops every read when broadcast.
 */
const PREPARED_MAX = 4_096;
/** Accounts remembered as existing (about 100 bytes each). */
const EXISTING_MAX = 100_000;
/** Entries past which every read sweeps out those no longer standing (with a tip, a newer block does it anyway). */
const SWEEP_ABOVE = 10_000;

/**
 * A ChainGateway whose state reads (balances, holdings, resources, whether an account exists, what it can delegate, a dry run,
 * the energy factor, prices, the energy ratio) are made once per block and shared by every caller:
 * - a read stands while it is younger than `blockMs` and no newer block is known (the scanner's tip, a head read
 *   here, a transaction found in a newer block);
 * - a transaction this process broadcasts drops the reads of every address it touches, before and after sending;
 * - a failed read is not remembered, and a read in flight is joined;
 * - energyAvailable is answered from a standing getResources of the address (one node read serves both methods);
 *   an account seen to exist, or to hold TRX, is known to exist for good (TRON deletes none).
 * Heads, solidified heads, transaction lookups, proofs of absence, builds and broadcasts always go to the inner
 * gateway, which has its own rule for heads (once per block: TronNodeClient).
 */
export class CachingChainGateway implements ChainGateway {
  private readonly entries = new Map<string, Entry>();
  private readonly prepared = new Map<string, readonly string[]>();
  /** Accounts seen to exist (bounded; the oldest forgotten first). */
  private readonly existing = new Set<string>();
  /** The newest block seen here (a head read, a transaction found in a block). */
  private seen = -1;
  /** The newest block known at the last sweep of dead entries. */
  private sweptAt = -1;

  constructor(private readonly inner: ChainGateway, private readonly options: CachingChainGatewayOptions) {}

  createAccount(): Promise<{ readonly address: string; readonly privateKey: string }> {
    return this.inner.createAccount();
  }

  isAddress(address: string): boolean {
    return this.inner.isAddress(address);
  }

  getTrxBalance(address: string): Promise<bigint> {
    return this.read(`trx ${address}`, [address], async () => {
      const balance = await this.inner.getTrxBalance(address);
      // Only an account that exists holds TRX.
      if (balance > 0n) this.remember(address);
      return balance;
    });
  }

  getTrxHoldings(address: string): Promise<TrxHoldings> {
    return this.read(`holdings ${address}`, [address], () => this.inner.getTrxHoldings(address));
  }

  getTokenBalance(address: string, contract: string): Promise<bigint> {
    return this.read(`token ${address} ${contract}`, [address], () => this.inner.getTokenBalance(address, contract));
  }

  getResources(address: string): Promise<ChainResources> {
    return this.read(`resources ${address}`, [address], () => this.inner.getResources(address));
  }

  energyAvailable(address: string): Promise<number> {
    const resources = this.standing(`resources ${address}`) as { value: ChainResources } | null;
    if (resources !== null) return Promise.resolve(resources.value.energy.available);
    return this.read(`energy ${address}`, [address], () => this.inner.energyAvailable(address));
  }

  /** An account once seen to exist, or to hold TRX, is known for good (TRON never deletes one). */
  accountExists(address: string): Promise<boolean> {
    if (this.existing.has(address)) return Promise.resolve(true);
    return this.read(`exists ${address}`, [address], async () => {
      const exists = await this.inner.accountExists(address);
      if (exists) this.remember(address);
      return exists;
    });
  }

  getCanDelegateEnergySun(address: string): Promise<bigint> {
    return this.read(`can-delegate ${address}`, [address], () => this.inner.getCanDelegateEnergySun(address));
  }

  estimateTrc20TransferEnergy(from: string, to: string, contract: string, amount: bigint): Promise<number> {
    return this.read(`dry-run ${from} ${to} ${contract} ${amount}`, [from, to],
      () => this.inner.estimateTrc20TransferEnergy(from, to, contract, amount));
  }

  energyFactor(contract: string): Promise<number> {
    return this.read(`factor ${contract}`, [], () => this.inner.energyFactor(contract));
  }

  getChainPrices(): Promise<{ readonly energySun: bigint; readonly bandwidthSun: bigint }> {
    return this.read('prices', [], () => this.inner.getChainPrices());
  }

  energyPerStakedSun(): Promise<number> {
    return this.read('energy-per-sun', [], () => this.inner.energyPerStakedSun());
  }

  /** Built by the inner gateway; the addresses it touches are remembered for its broadcast. */
  async prepare(signer: Signer, intent: TransactionIntent): Promise<SignedTransaction> {
    const tx = await this.inner.prepare(signer, intent);
    if (this.prepared.size >= PREPARED_MAX) this.prepared.delete(this.prepared.keys().next().value!);
    this.prepared.set(tx.txid, addressesOf(signer.address, intent));
    return tx;
  }

  /**
   * Sent by the inner gateway. The reads of the addresses it touches are dropped before (nothing asked from here on
   * joins a read made before the send) and after (nothing read while it was sent outlives it), whatever the outcome:
   * a refused or unanswered broadcast may still have been taken.
   */
  async broadcast(tx: SignedTransaction): Promise<void> {
    const addresses = this.prepared.get(tx.txid) ?? null;
    this.forget(addresses);
    try {
      await this.inner.broadcast(tx);
    } finally {
      this.forget(addresses);
    }
  }

  /** Asked each time; a transaction found in a block newer than any known ends every read made before it. */
  async getTransaction(txid: string): Promise<TransactionState> {
    const state = await this.inner.getTransaction(txid);
    if (state.state === 'confirmed' || state.state === 'failed') this.observe(state.blockNumber);
    return state;
  }

  findInSolidified(tx: SignedTransaction): Promise<'included' | 'absent' | 'unknown'> {
    return this.inner.findInSolidified(tx);
  }

  /** Asked of the inner gateway (its own once-per-block rule); a newer head ends every read made before it. */
  async head(): Promise<{ readonly number: number; readonly timestamp: number }> {
    const head = await this.inner.head();
    this.observe(head.number);
    return head;
  }

  solidifiedHead(): Promise<{ readonly number: number; readonly timestamp: number }> {
    return this.inner.solidifiedHead();
  }

  /** The newest block known: the tip's or the newest seen here. */
  private newest(): number {
    return Math.max(this.options.tip?.() ?? -1, this.seen);
  }

  private observe(block: number): void {
    if (block > this.seen) this.seen = block;
  }

  /** The entry under `key` while it stands (younger than blockMs, made at the newest block known), else null. */
  private live(key: string): Entry | null {
    const entry = this.entries.get(key);
    if (entry === undefined) return null;
    if (this.options.now() - entry.at >= this.options.blockMs || entry.block < this.newest()) {
      this.entries.delete(key);
      return null;
    }
    return entry;
  }

  /** The settled answer under `key` while it stands, else null. */
  private standing(key: string): { readonly value: unknown } | null {
    return this.live(key)?.settled ?? null;
  }

  private read<T>(key: string, addresses: readonly string[], ask: () => Promise<T>): Promise<T> {
    if (this.options.blockMs <= 0) return ask();
    this.sweep();
    const known = this.live(key);
    if (known !== null) return known.answer as Promise<T>;
    const entry: Entry = { answer: ask(), block: this.newest(), at: this.options.now(), addresses };
    this.entries.set(key, entry);
    entry.answer.then((value) => { entry.settled = { value }; }, () => {
      // A failed read is asked again, not remembered (unless a newer read took its place meanwhile).
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry.answer as Promise<T>;
  }

  private remember(address: string): void {
    if (this.existing.size >= EXISTING_MAX) this.existing.delete(this.existing.values().next().value!);
    this.existing.add(address);
  }

  /** Once per newer block known (or past a bound): the entries no longer standing go, so the map stays small. */
  private sweep(): void {
    const newest = this.newest();
    if (newest === this.sweptAt && this.entries.size < SWEEP_ABOVE) return;
    this.sweptAt = newest;
    for (const key of [...this.entries.keys()]) this.live(key);
  }

  /** Drops the reads of `addresses` (null: a transaction of unknown parties, so every read). */
  private forget(addresses: readonly string[] | null): void {
    for (const [key, entry] of this.entries) {
      if (addresses === null || entry.addresses.some((a) => addresses.includes(a))) this.entries.delete(key);
    }
  }
}
