/**
 * A string-keyed map stacked on a parent map: it owns only the entries written (or read for writing) since it was
 * forked, so forking is O(1) and committing or absorbing costs what changed, not the size of the state. The devnet
 * keeps one layer per block (see chain.ts): a block's snapshot is its layer plus everything below it.
 *
 * Values are mutable records: a writable layer hands out a private copy of a parent's value on first `get`, so a
 * caller may mutate what it got without touching older layers. A read-only (frozen) layer returns shared values,
 * which callers must not mutate. {@link sums} totals numeric measures of the values (the devnet's stake totals)
 * from per-layer deltas instead of a scan. Iteration follows the insertion order a single Map given the same operations would
 * have (a key deleted and set again moves to the end).
 */
const GONE: unique symbol = Symbol('gone');
type Slot<V> = V | typeof GONE;

export class LayeredMap<V> {
  private own = new Map<string, Slot<V>>();
  /** Keys set here while absent below: in iteration order they move to the end, as Map.set after delete does. */
  private readonly fresh = new Set<string>();
  /** The parent's measures of each key this layer owns, taken when it first owned the key (for {@link sums}). */
  private readonly baseline = new Map<string, number[]>();
  /** What this layer's entries add to each measure over its parent's (the totals, for the bottom layer). */
  private delta: number[] | undefined;
  /** The totals, once they can no longer change (a read-only layer over read-only layers). */
  private total: number[] | undefined;
  /**
   * Whether callers wrote this layer or took mutable references from it (`get`): its entries can then change behind
   * its back, so its delta is recomputed on each {@link sums} while writable. A layer written only by commits (the
   * pending pool's, a block's while it is built) keeps its delta current as it goes.
   */
  private direct = false;
  private writable = true;

  /**
   * @param copy  deep copy of a value (omit for immutable values such as bigint)
   * @param measures  numeric views of a value that {@link sums} totals over all live entries
   */
  constructor(
    private parent: LayeredMap<V> | undefined = undefined,
    private readonly copy: ((v: V) => V) | undefined = parent?.copy,
    private readonly measures: ReadonlyArray<(v: V) => number> = parent?.measures ?? [],
  ) {}

  /** A writable child layer. */
  fork(): LayeredMap<V> {
    return new LayeredMap(this, this.copy, this.measures);
  }

  /** The value without taking a private copy (never mutate it). */
  peek(k: string): V | undefined {
    for (let m: LayeredMap<V> | undefined = this; m; m = m.parent) {
      const v = m.own.get(k);
      if (v !== undefined) return v === GONE ? undefined : v;
    }
    return undefined;
  }

  /** Whether this layer itself holds an entry (or a deletion) for `k`. */
  owns(k: string): boolean {
    return this.own.has(k);
  }

  get(k: string): V | undefined {
    const v = this.own.get(k);
    if (v !== undefined) {
      if (v === GONE) return undefined;
      if (this.writable) this.touch();
      return v;
    }
    const below = this.parent?.peek(k);
    if (below === undefined || !this.writable || !this.copy) return below;
    const c = this.copy(below);
    this.touch();
    this.take(k);
    this.own.set(k, c);
    return c;
  }

  has(k: string): boolean {
    return this.peek(k) !== undefined;
  }

  set(k: string, v: V): this {
    this.assertWritable();
    this.touch();
    this.put(k, v);
    return this;
  }

  delete(k: string): boolean {
    this.assertWritable();
    this.touch();
    return this.remove(k);
  }

  private put(k: string, v: V): void {
    this.track(k, v);
    if (this.peek(k) === undefined) {
      this.own.delete(k);
      this.fresh.add(k);
    }
    this.take(k);
    this.own.set(k, v);
  }

  private remove(k: string): boolean {
    if (this.peek(k) === undefined) return false;
    this.track(k, undefined);
    this.take(k);
    this.fresh.delete(k);
    if (this.parent?.peek(k) !== undefined) this.own.set(k, GONE);
    else this.own.delete(k);
    return true;
  }

  /** Moves this layer's entries into its parent (the parent must be writable); this layer must not be used after. */
  commit(): void {
    const p = this.parent;
    if (!p) throw new Error('a root layer has nothing to commit into');
    p.assertWritable();
    for (const [k, v] of this.own) {
      if (v === GONE) p.remove(k);
      else if (this.fresh.has(k)) {
        p.track(k, v);
        p.take(k);
        p.own.delete(k);
        p.fresh.add(k);
        p.own.set(k, v);
      } else p.put(k, v);
    }
  }

  /** Merges the (root) parent into this layer, which becomes the root: the parent must not be used after. */
  absorbParent(): void {
    const p = this.parent;
    if (!p || p.parent) throw new Error('only a child of the root layer can absorb it');
    const sums = this.sums();
    for (const [k, v] of this.own) {
      if (v === GONE || this.fresh.has(k)) p.own.delete(k);
      if (v !== GONE) p.own.set(k, v);
    }
    this.own = p.own;
    this.fresh.clear();
    this.baseline.clear();
    this.parent = undefined;
    this.delta = this.direct && this.writable ? undefined : sums;
    this.total = undefined;
  }

  /** Read-only from now on (a past block's state), or writable again (a reorg's fork point becomes the head). */
  setWritable(on: boolean): void {
    this.writable = on;
    this.total = undefined;
    if (on || this.direct) this.delta = undefined;
  }

  /** Totals of each measure over all live entries, in time proportional to the layers' depth. */
  sums(): number[] {
    if (this.total) return this.total;
    const own = this.ownDelta();
    const out = this.parent ? this.parent.sums().map((n, i) => n + own[i]!) : [...own];
    if (!this.writable && (!this.parent || !this.parent.writable)) this.total = out;
    return out;
  }

  private ownDelta(): number[] {
    if (this.delta && !(this.direct && this.writable)) return this.delta;
    const out = this.measures.map(() => 0);
    for (const [k, v] of this.own) {
      const base = this.parent ? this.baseline.get(k)! : undefined;
      this.measures.forEach((m, i) => (out[i]! += (v === GONE ? 0 : m(v)) - (base ? base[i]! : 0)));
    }
    this.delta = out;
    return out;
  }

  /** Keeps the delta current through a commit's write of `k` (undefined: removal). */
  private track(k: string, v: V | undefined): void {
    if (!this.delta || this.direct) return;
    const old = this.peek(k);
    this.measures.forEach((m, i) => (this.delta![i]! += (v === undefined ? 0 : m(v)) - (old === undefined ? 0 : m(old))));
  }

  /** A caller writes this layer directly or takes a mutable copy from it. */
  private touch(): void {
    this.direct = true;
    this.delta = undefined;
    this.total = undefined;
  }

  entries(): IterableIterator<[string, V]> {
    const chain: Array<LayeredMap<V>> = [];
    for (let m: LayeredMap<V> | undefined = this; m; m = m.parent) chain.unshift(m);
    const out = new Map<string, V>();
    for (const m of chain) {
      for (const [k, v] of m.own) {
        if (v === GONE || m.fresh.has(k)) out.delete(k);
        if (v !== GONE) out.set(k, v);
      }
    }
    return out.entries();
  }

  *values(): IterableIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  *keys(): IterableIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }

  /** Records the parent's measures of `k` the first time this layer owns it. */
  private take(k: string): void {
    if (!this.parent || this.own.has(k) || this.measures.length === 0) return;
    const below = this.parent.peek(k);
    this.baseline.set(k, this.measures.map((m) => (below === undefined ? 0 : m(below))));
  }

  private assertWritable(): void {
    if (!this.writable) throw new Error('this state is a past block\'s and read-only');
  }
}
