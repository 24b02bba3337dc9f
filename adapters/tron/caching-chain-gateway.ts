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
  /**
   * The chain's time as the process knows it now: the timestamp of the newest block, while that is the head (the
   * scanner's fresh head); null when unknown. With it, and an inner gateway that reads the chain's schedule
   * ({@link MaintenanceSchedule}), the energy factor and the prices stand until the next maintenance.
   */
  readonly chainTime?: () => number | null;
  /**
   * How near a maintenance (chain time, on either side) the factor and the prices go back to one read a block: the
   * chain's time known here may be a block behind, and so may the node that answers (decisions 82, 83), so either may
   * not have applied it yet. Default two block times.
   */
  readonly maintenanceMarginMs?: number;
}

/**
 * What a gateway reads of the chain's schedule besides the port (TronWebChainGateway): TRON's
 * `wallet/getnextmaintenancetime`, and the prices with the maintenance interval from the same getchainparameters
 * reply. They tell when the energy factor and the prices can next move.
 */
/** What getchainparameters answers that the decorator keeps (see MaintenanceSchedule.chainParameters). */
export interface ChainParameters {
  readonly energySun: bigint;
  readonly bandwidthSun: bigint;
  readonly maintenanceIntervalMs: number | null;
  readonly freeNetLimit: number | null;
}

/**
 * getResources' answer with what the same replies also answer: the network's energy per staked SUN (getaccountresource
 * carries the totals), and getCanDelegateEnergySun's answer where the account read gives it exactly (null: ask the node).
 */
export interface ResourcesWithExtras {
  readonly resources: ChainResources;
  readonly energyPerStakedSun: number | null;
  readonly canDelegateEnergySun: bigint | null;
}

/** getResources' and energyAvailable's reads as TronWebChainGateway offers them besides the port. */
export interface ResourcesWithRatio {
  /** getResources, with what its replies also answer. */
  resourcesWithRatio(address: string): Promise<ResourcesWithExtras>;
  /**
   * The account read first: an account with no stake and no delegation is answered from it and the chain's free
   * bandwidth limit (`finish`); any other in full.
   */
  accountResources(address: string): Promise<
    | { readonly kind: 'account-only'; readonly finish: (freeNetLimit: number) => ChainResources; readonly canDelegateEnergySun: bigint | null }
    | ({ readonly kind: 'full' } & ResourcesWithExtras)
  >;
  /** energyAvailable, with the network's energy per staked SUN from the same getaccountresource reply. */
  energyWithRatio(address: string): Promise<{ readonly available: number; readonly energyPerStakedSun: number | null }>;
}

export interface MaintenanceSchedule {
  /** Epoch ms of the next maintenance. */
  nextMaintenanceTime(): Promise<number>;
  /** getChainPrices' answer, getMaintenanceTimeInterval and getFreeNetLimit (null: not answered), from one read. */
  chainParameters(): Promise<ChainParameters>;
}

/** One remembered read: its answer (settled value once known), the block newest when it was asked, and when. */
interface Entry {
  readonly answer: Promise<unknown>;
  settled?: { readonly value: unknown };
  readonly block: number;
  readonly at: number;
  /** The addresses whose state it reads (an own transaction touching one of them drops it). */
  readonly addresses: readonly string[];
  /** A read that moves only at a maintenance (the factor, the prices); with the chain's time when it was asked. */
  readonly period?: { readonly chainAt: number | null };
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
/** The key of energyPerStakedSun's answer (also answered by a getResources read: see there). */
const RATIO = 'energy-per-sun';
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
 *   an account seen to exist, or to hold TRX, is known to exist for good (TRON deletes none);
 * - the energy ratio comes with every getaccountresource reply (getResources', energyAvailable's), and what an address
 *   can delegate with its getResources read where its account shows no energy usage (see getCanDelegateEnergySun);
 * - the energy factor and the prices move only at a maintenance (TRON applies approved proposals there, and a
 *   contract's dynamic energy factor changes only when a new maintenance cycle begins): with the chain's time and
 *   schedule known ({@link MaintenanceSchedule}, one read of the next maintenance time a period), a read made well
 *   inside a period (at least maintenanceMarginMs after its start) stands until maintenanceMarginMs before its end.
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
  /** The next maintenance as last read, and when (block, ms) it was last asked. */
  /**
   * The next maintenance, the interval the grid is stepped with (null: none known yet), and whether a prices read
   * since showed another interval (then it is read again).
   */
  private maintenance: { readonly next: number; readonly interval: number | null; readonly stale: boolean } | null = null;
  private maintenanceAsked: { block: number; at: number } | null = null;
  private maintenanceReading: Promise<void> | null = null;
  /** The maintenance interval in force, from the last prices read that answered it. */
  private intervalMs: number | null = null;
  /** How many times reads were dropped for a transaction sent (an answer read across one is not kept beside). */
  private forgets = 0;

  constructor(
    private readonly inner: ChainGateway & Partial<MaintenanceSchedule> & Partial<ResourcesWithRatio>, private readonly options: CachingChainGatewayOptions,
  ) {}

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

  /**
   * Where the inner gateway answers it (TronWebChainGateway.resourcesWithRatio), the same read also answers, for as
   * long as it stands, energyPerStakedSun (TRON's getaccountresource carries the network's totals in every reply) and,
   * where the account read gives it exactly, getCanDelegateEnergySun (tron-views.ts canDelegateEnergyOf).
   */
  getResources(address: string): Promise<ChainResources> {
    const withRatio = this.inner.resourcesWithRatio;
    const accountFirst = this.inner.accountResources;
    if (withRatio === undefined || accountFirst === undefined) {
      return this.read(`resources ${address}`, [address], () => this.inner.getResources(address));
    }
    const block = this.newest();
    const at = this.options.now();
    const forgets = this.forgets;
    return this.read(`resources ${address}`, [address], async () => {
      if (this.inner.chainParameters !== undefined) {
        // The account read (shared with a balance read asked beside it) and the chain's free bandwidth limit (kept
        // with the prices): an account with no stake and no delegation needs no getaccountresource.
        const [answer, parameters] = await Promise.all([accountFirst.call(this.inner, address), this.parameters()]);
        if (answer.kind === 'full') {
          this.keepRatio(answer.energyPerStakedSun, block, at);
          this.keepDelegable(address, answer.canDelegateEnergySun, block, at, forgets);
          return answer.resources;
        }
        if (parameters.freeNetLimit !== null) {
          this.keepDelegable(address, answer.canDelegateEnergySun, block, at, forgets);
          return answer.finish(parameters.freeNetLimit);
        }
      }
      const { resources, energyPerStakedSun, canDelegateEnergySun } = await withRatio.call(this.inner, address);
      this.keepRatio(energyPerStakedSun, block, at);
      this.keepDelegable(address, canDelegateEnergySun, block, at, forgets);
      return resources;
    });
  }

  /** The energy ratio a reply read in `block` at `at` carried, as energyPerStakedSun's answer for that block. */
  private keepRatio(energyPerStakedSun: number | null, block: number, at: number): void {
    if (energyPerStakedSun !== null && this.live(RATIO) === null) {
      this.entries.set(RATIO, { answer: Promise.resolve(energyPerStakedSun), settled: { value: energyPerStakedSun }, block, at, addresses: [] });
    }
  }

  /**
   * getCanDelegateEnergySun's answer that a getResources read of `address` in `block` at `at` gave exactly, for that
   * block; not when a transaction touching any address was sent since the read began (`forgets` moved): the answer may
   * be from before it.
   */
  private keepDelegable(address: string, sun: bigint | null, block: number, at: number, forgets: number): void {
    const key = `can-delegate ${address}`;
    if (sun === null || forgets !== this.forgets || this.options.blockMs <= 0 || this.live(key) !== null) return;
    this.entries.set(key, { answer: Promise.resolve(sun), settled: { value: sun }, block, at, addresses: [address] });
  }

  /**
   * From a standing getResources of the address when there is one (one node read serves both methods); else its one
   * getaccountresource, whose reply also answers energyPerStakedSun for the block where the inner gateway offers it.
   */
  energyAvailable(address: string): Promise<number> {
    const resources = this.standing(`resources ${address}`) as { value: ChainResources } | null;
    if (resources !== null) return Promise.resolve(resources.value.energy.available);
    const withRatio = this.inner.energyWithRatio;
    if (withRatio === undefined) return this.read(`energy ${address}`, [address], () => this.inner.energyAvailable(address));
    const block = this.newest();
    const at = this.options.now();
    return this.read(`energy ${address}`, [address], async () => {
      const { available, energyPerStakedSun } = await withRatio.call(this.inner, address);
      this.keepRatio(energyPerStakedSun, block, at);
      return available;
    });
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

  /**
   * Where a getResources read of the address in this block gave it exactly (its account showed no energy usage, or no
   * energy stake: tron-views.ts canDelegateEnergyOf), that answer, with no call (a getResources read in flight is
   * awaited first); else getcandelegatedmaxsize, once a block.
   */
  async getCanDelegateEnergySun(address: string): Promise<bigint> {
    const resources = this.options.blockMs > 0 ? this.live(`resources ${address}`) : null;
    if (resources !== null && resources.settled === undefined) await resources.answer.catch(() => undefined);
    return this.read(`can-delegate ${address}`, [address], () => this.inner.getCanDelegateEnergySun(address));
  }

  estimateTrc20TransferEnergy(from: string, to: string, contract: string, amount: bigint): Promise<number> {
    return this.read(`dry-run ${from} ${to} ${contract} ${amount}`, [from, to],
      () => this.inner.estimateTrc20TransferEnergy(from, to, contract, amount));
  }

  /** Stands until the next maintenance (see the class): TRON moves a contract's factor only at a new cycle. */
  energyFactor(contract: string): Promise<number> {
    return this.withSchedule(this.read(`factor ${contract}`, [], () => this.inner.energyFactor(contract), true));
  }

  /**
   * The next maintenance's chain time while the chain's time is known and more than maintenanceMarginMs from both ends
   * of the period (the rule that keeps a factor read: see inPeriod); null otherwise, and with no schedule to read.
   * Costs no call of its own: the interval comes with the prices (kept for the period, and read beside it by a plan),
   * the next maintenance from the schedule, read once and stepped on its grid.
   */
  async maintenancePeriod(): Promise<number | null> {
    if (this.inner.chainParameters === undefined || this.inner.nextMaintenanceTime === undefined || this.options.blockMs <= 0) return null;
    if ((this.options.chainTime?.() ?? null) === null) return null;
    await this.parameters();
    await this.askSchedule();
    const now = this.options.chainTime?.() ?? null;
    const known = this.maintenance;
    if (now === null || known === null || known.stale || !this.inPeriod(now)) return null;
    return known.next;
  }

  /** Stands until the next maintenance (see the class): prices change by proposal, applied at a maintenance. */
  async getChainPrices(): Promise<{ readonly energySun: bigint; readonly bandwidthSun: bigint }> {
    if (this.inner.chainParameters === undefined) return this.withSchedule(this.read('prices', [], () => this.inner.getChainPrices(), true));
    const { energySun, bandwidthSun } = await this.parameters();
    return { energySun, bandwidthSun };
  }

  /** getchainparameters' answer (the prices, the maintenance interval, the free bandwidth limit), kept as the prices. */
  private parameters(): Promise<ChainParameters> {
    const read = this.inner.chainParameters!;
    return this.withSchedule(this.read('parameters', [], async () => {
      const prices = await read.call(this.inner);
      const interval = prices.maintenanceIntervalMs;
      if (interval !== null && interval > 0) {
        this.intervalMs = interval;
        const known = this.maintenance;
        // The grid takes the interval of its period; one stepped with another (a proposal changed it) is read again.
        if (known !== null && known.interval === null) this.maintenance = { ...known, interval };
        else if (known !== null && known.interval !== interval) this.maintenance = { ...known, stale: true };
      }
      return prices;
    }, true));
  }

  /** `answer`, once the schedule read it may start (beside it, never after it) has settled too. */
  private withSchedule<T>(answer: Promise<T>): Promise<T> {
    const schedule = this.askSchedule();
    return schedule === null ? answer : Promise.all([answer, schedule]).then(([value]) => value);
  }

  energyPerStakedSun(): Promise<number> {
    return this.read(RATIO, [], () => this.inner.energyPerStakedSun());
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

  /**
   * The entry under `key` while it stands (younger than blockMs, made at the newest block known; or a period read
   * still inside its maintenance period), else null.
   */
  private live(key: string): Entry | null {
    const entry = this.entries.get(key);
    if (entry === undefined) return null;
    const thisBlock = this.options.now() - entry.at < this.options.blockMs && entry.block >= this.newest();
    if (!thisBlock && !(entry.period !== undefined && entry.settled !== undefined && this.inPeriod(entry.period.chainAt))) {
      this.entries.delete(key);
      return null;
    }
    return entry;
  }

  private margin(): number {
    return this.options.maintenanceMarginMs ?? 2 * this.options.blockMs;
  }

  /**
   * Whether a period read asked at chain time `chainAt` still holds: the chain's time now is known and more than the
   * margin before the next maintenance, and the read was made more than the margin after the previous one (the
   * next less the interval in force), so no node a little behind can have answered it from the period before.
   */
  private inPeriod(chainAt: number | null): boolean {
    const now = this.options.chainTime?.() ?? null;
    if (chainAt === null || now === null || this.maintenance === null || this.intervalMs === null) return false;
    const { next } = this.maintenance;
    return now + this.margin() < next && chainAt >= next - this.intervalMs + this.margin();
  }

  /**
   * Keeps the next maintenance known. Once it is read, the ones after it follow by whole intervals of the interval in
   * force (java-tron's updateNextMaintenanceTime keeps them on that grid, missed slots or not), so it is read again
   * only when the interval a prices read answers differs from the one the grid was stepped with (a proposal changed
   * it) or none is known; and then at most once a block. A failed read is asked again later; meanwhile the factor and
   * the prices are read once a block.
   */
  private askSchedule(): Promise<void> | null {
    const source = this.inner.nextMaintenanceTime;
    const now = this.options.chainTime?.() ?? null;
    if (source === undefined || now === null || this.options.blockMs <= 0) return null;
    if (this.maintenanceReading !== null) return this.maintenanceReading;
    const known = this.maintenance;
    if (known !== null && !known.stale && now + this.margin() < known.next) return null;
    if (known !== null && !known.stale && known.interval !== null) {
      // On the grid: the first maintenance more than the margin ahead.
      const steps = Math.floor((now + this.margin() - known.next) / known.interval) + 1;
      this.maintenance = { next: known.next + steps * known.interval, interval: known.interval, stale: false };
      return null;
    }
    const asked = this.maintenanceAsked;
    if (asked !== null && asked.block >= this.newest() && this.options.now() - asked.at < this.options.blockMs) return null;
    this.maintenanceAsked = { block: this.newest(), at: this.options.now() };
    this.maintenanceReading = source.call(this.inner).then((next) => { this.maintenance = { next, interval: this.intervalMs, stale: false }; }, () => undefined)
      .finally(() => { this.maintenanceReading = null; });
    return this.maintenanceReading;
  }

  /** The settled answer under `key` while it stands, else null. */
  private standing(key: string): { readonly value: unknown } | null {
    return this.live(key)?.settled ?? null;
  }

  private read<T>(key: string, addresses: readonly string[], ask: () => Promise<T>, period = false): Promise<T> {
    if (this.options.blockMs <= 0) return ask();
    this.sweep();
    const known = this.live(key);
    if (known !== null) return known.answer as Promise<T>;
    const entry: Entry = {
      answer: ask(), block: this.newest(), at: this.options.now(), addresses,
      ...(period ? { period: { chainAt: this.options.chainTime?.() ?? null } } : {}),
    };
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
    this.forgets += 1;
    for (const [key, entry] of this.entries) {
      if (addresses === null || entry.addresses.some((a) => addresses.includes(a))) this.entries.delete(key);
    }
  }
}
