import { DueQueue, type DueKey } from './due-queue.js';
import { inOpenScope, recordUndo } from './memory-scope.js';

/**
 * A store table (a Map) that keeps its indexes in step with every write, whoever writes: a repository, the unit of
 * work, or a test poking the store. Each key gets an insertion sequence number (`seqOf`), the order a Map iterates
 * in, so an index can break ties exactly as a first-match scan of the table would.
 */
export interface TableIndex<K, V> {
  /** Called after every write: `before` undefined for an insert, `after` undefined for a delete. */
  onWrite(key: K, seq: number, before: V | undefined, after: V | undefined): void;
  /** The table was cleared. */
  onClear(): void;
}

export class IndexedTable<K, V> extends Map<K, V> {
  private readonly indexes: TableIndex<K, V>[] = [];
  private readonly seqs = new Map<K, number>();
  private nextSeq = 0;

  /** Attaches an index (the table must still be empty). */
  index<I extends TableIndex<K, V>>(index: I): I {
    if (this.size > 0) throw new Error('attach indexes to an empty table');
    this.indexes.push(index);
    return index;
  }

  /** The key's insertion order (Map iteration order), or -1 when absent. */
  seqOf(key: K): number {
    return this.seqs.get(key) ?? -1;
  }

  override set(key: K, value: V): this {
    const before = super.get(key);
    let seq = this.seqs.get(key);
    if (seq === undefined) {
      seq = this.nextSeq++;
      this.seqs.set(key, seq);
      recordUndo(() => this.delete(key));
    } else if (inOpenScope()) {
      recordUndo(() => this.set(key, before as V));
    }
    super.set(key, value);
    for (const index of this.indexes) index.onWrite(key, seq, before, value);
    return this;
  }

  override delete(key: K): boolean {
    const before = super.get(key);
    const seq = this.seqs.get(key);
    if (!super.delete(key) || seq === undefined) return false;
    this.seqs.delete(key);
    for (const index of this.indexes) index.onWrite(key, seq, before, undefined);
    recordUndo(() => this.restore([[key, before as V, seq]]));
    return true;
  }

  override clear(): void {
    if (inOpenScope() && this.size > 0) {
      const rows = [...super.entries()].map(([k, v]): [K, V, number] => [k, v, this.seqs.get(k)!]);
      recordUndo(() => this.restore(rows));
    }
    super.clear();
    this.seqs.clear();
    for (const index of this.indexes) index.onClear();
  }

  /**
   * Puts deleted rows back with their sequence numbers, in sequence order among the others (the undo of a delete or
   * a clear inside an atomic scope): the table and its indexes are rebuilt as they were.
   */
  private restore(rows: readonly (readonly [K, V, number])[]): void {
    const all = [...super.entries()].map(([k, v]): readonly [K, V, number] => [k, v, this.seqs.get(k)!]).concat(rows)
      .sort((a, b) => a[2] - b[2]);
    super.clear();
    this.seqs.clear();
    for (const index of this.indexes) index.onClear();
    for (const [k, v, seq] of all) {
      this.seqs.set(k, seq);
      super.set(k, v);
      for (const index of this.indexes) index.onWrite(k, seq, undefined, v);
    }
  }
}

/**
 * Keys grouped by a field (owner, address …), each group in the table's order (insertion sequence); a key is in at
 * most one group. A group's order depends on the rows alone, not on their history, so the undo of an atomic scope
 * (memory-scope.ts), which writes rows back, puts the groups back as they were.
 */
export class GroupIndex<K, V, G> implements TableIndex<K, V> {
  private readonly groups = new Map<G, Set<K>>();
  /** Each grouped key's sequence number, and the greatest in each group (a later key is appended, the common case). */
  private readonly seqs = new Map<K, number>();
  private readonly lastSeq = new Map<G, number>();

  /** `groupOf` returns undefined for a row that belongs to no group (not indexed). */
  constructor(private readonly groupOf: (value: V) => G | undefined) {}

  /** The group's keys in the table's order. */
  keys(group: G): ReadonlySet<K> {
    return this.groups.get(group) ?? EMPTY;
  }

  onWrite(key: K, seq: number, before: V | undefined, after: V | undefined): void {
    const from = before === undefined ? undefined : this.groupOf(before);
    const to = after === undefined ? undefined : this.groupOf(after);
    if (from === to && before !== undefined && after !== undefined) return;
    if (from !== undefined) {
      const set = this.groups.get(from);
      set?.delete(key);
      this.seqs.delete(key);
      if (set?.size === 0) {
        this.groups.delete(from);
        this.lastSeq.delete(from);
      }
    }
    if (to !== undefined) {
      let set = this.groups.get(to);
      if (set === undefined) this.groups.set(to, set = new Set());
      this.seqs.set(key, seq);
      const last = this.lastSeq.get(to) ?? -1;
      if (seq > last) {
        set.add(key);
        this.lastSeq.set(to, seq);
      } else {
        // A row that comes back to a group (or is put back by an undo) takes its place by sequence.
        const ordered = [...set, key].sort((a, b) => this.seqs.get(a)! - this.seqs.get(b)!);
        set.clear();
        for (const k of ordered) set.add(k);
      }
    }
  }

  onClear(): void {
    this.groups.clear();
    this.seqs.clear();
    this.lastSeq.clear();
  }
}

const EMPTY: ReadonlySet<never> = new Set();

/** The claim order of the rows `positionOf` places (null: not claimable), as a DueQueue. */
export class ClaimIndex<K, V> implements TableIndex<K, V> {
  private current = new DueQueue<K>();

  constructor(private readonly positionOf: (value: V) => DueKey | null) {}

  get queue(): DueQueue<K> {
    return this.current;
  }

  onWrite(key: K, seq: number, _before: V | undefined, after: V | undefined): void {
    this.current.set(key, seq, after === undefined ? null : this.positionOf(after));
  }

  onClear(): void {
    this.current = new DueQueue();
  }
}

interface Ordered<K> {
  readonly key: K;
  readonly order: number;
  readonly seq: number;
}

/**
 * Keys grouped by a field (the owner), each group kept sorted by a numeric field, ties by insertion order: a page of
 * a list is a slice, without sorting or scanning other owners' rows. `descending`: newest first, and among equal
 * values the later inserted first (what reversing insertion order and sorting stably gives).
 */
export class OrderedGroupIndex<K, V, G> implements TableIndex<K, V> {
  private readonly groups = new Map<G, Ordered<K>[]>();

  constructor(
    private readonly groupOf: (value: V) => G | undefined,
    private readonly orderOf: (value: V) => number,
    private readonly descending: boolean,
  ) {}

  /** The group's keys in list order. */
  keys(group: G): K[] {
    return (this.groups.get(group) ?? []).map((e) => e.key);
  }

  /** Keys `offset` … `offset + limit` of the group's list, and the group's size. */
  slice(group: G, offset: number, limit: number): { readonly keys: K[]; readonly total: number } {
    const list = this.groups.get(group) ?? [];
    return { keys: list.slice(offset, offset + limit).map((e) => e.key), total: list.length };
  }

  onWrite(key: K, seq: number, before: V | undefined, after: V | undefined): void {
    const from = before === undefined ? undefined : this.groupOf(before);
    const to = after === undefined ? undefined : this.groupOf(after);
    const fromOrder = before === undefined ? 0 : this.orderOf(before);
    const toOrder = after === undefined ? 0 : this.orderOf(after);
    if (before !== undefined && after !== undefined && from === to && fromOrder === toOrder) return;
    if (from !== undefined) {
      const list = this.groups.get(from)!;
      list.splice(this.position(list, fromOrder, seq), 1);
      if (list.length === 0) this.groups.delete(from);
    }
    if (to !== undefined) {
      let list = this.groups.get(to);
      if (list === undefined) this.groups.set(to, list = []);
      list.splice(this.position(list, toOrder, seq), 0, { key, order: toOrder, seq });
    }
  }

  onClear(): void {
    this.groups.clear();
  }

  /** Where (order, seq) is or would go: the first entry not before it (binary search). */
  private position(list: readonly Ordered<K>[], order: number, seq: number): number {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const e = list[mid]!;
      const before = this.descending
        ? e.order > order || (e.order === order && e.seq > seq)
        : e.order < order || (e.order === order && e.seq < seq);
      if (before) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
