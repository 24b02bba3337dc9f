/**
 * A due-time index for claims under a lease: which key a claim at `now` takes, without scanning the table.
 *
 * An entry is claimable at `now` when `due <= now` and its lease (if any) has run out (`leaseUntil <= now`). Among the
 * claimable, the claim takes the smallest `(due, rank, seq)`: the earliest due, then the table's own tie-break
 * (`rank`, e.g. createdAt), then the insertion order of the key (`seq`), which is what a first-match scan of a Map
 * gives. Two heaps keep that exact:
 * - `waiting`, ordered by when an entry becomes claimable (max(due, leaseUntil));
 * - `ready`, ordered by `(due, rank, seq)`, holding entries that became claimable at an earlier `now`.
 * A claim moves everything that became claimable into `ready` and takes its top. Updates never search a heap: the
 * old entry is marked dead and a new one pushed; dead entries are dropped when they surface, and both heaps are
 * rebuilt when dead entries outnumber live ones (so memory follows the live entries, not the write count).
 * A clock that goes back (a `now` below an entry already in `ready`) is handled by setting such entries aside.
 */
export interface DueKey {
  readonly due: number;
  /** Lease expiry, or null when not leased: claimable only once `leaseUntil <= now`. */
  readonly leaseUntil: number | null;
  /** Tie-break after `due` (smaller first); 0 when the table has none. */
  readonly rank: number;
}

interface Entry<K> extends DueKey {
  readonly key: K;
  readonly seq: number;
  /** When it becomes claimable: max(due, leaseUntil). */
  readonly at: number;
  live: boolean;
}

/** An array binary min-heap on a strict `before` order. */
export class BinaryHeap<T> {
  private items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(a[i]!, a[parent]!)) break;
      [a[i], a[parent]] = [a[parent]!, a[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  /** Replaces the content (heapify in O(n)). */
  reset(items: T[]): void {
    this.items = items;
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private siftDown(start: number): void {
    const a = this.items;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && this.before(a[l]!, a[m]!)) m = l;
      if (r < a.length && this.before(a[r]!, a[m]!)) m = r;
      if (m === i) return;
      [a[i], a[m]] = [a[m]!, a[i]!];
      i = m;
    }
  }
}

const byAt = <K>(a: Entry<K>, b: Entry<K>): boolean => a.at !== b.at ? a.at < b.at : a.seq < b.seq;
const byDue = <K>(a: Entry<K>, b: Entry<K>): boolean =>
  a.due !== b.due ? a.due < b.due : a.rank !== b.rank ? a.rank < b.rank : a.seq < b.seq;

/** Whether claim candidate `a` goes before `b` (for merging the heads of several queues). */
export function claimsBefore(a: DueKey & { readonly seq: number }, b: DueKey & { readonly seq: number }): boolean {
  return byDue(a as Entry<unknown>, b as Entry<unknown>);
}

/** The due-time index of one claimable population (see the file comment). */
export class DueQueue<K> {
  private readonly current = new Map<K, Entry<K>>();
  private readonly waiting = new BinaryHeap<Entry<K>>(byAt);
  private readonly ready = new BinaryHeap<Entry<K>>(byDue);
  private dead = 0;

  /** Live entries. */
  get size(): number {
    return this.current.size;
  }

  /** Heap slots, dead ones included (for tests and the bench: bounded by about twice the live entries). */
  get slots(): number {
    return this.waiting.size + this.ready.size;
  }

  /** Sets the key's claim position (`seq`: its insertion order in the table), or removes it (null: not claimable). */
  set(key: K, seq: number, position: DueKey | null): void {
    const old = this.current.get(key);
    if (old !== undefined) {
      old.live = false;
      this.dead++;
      this.current.delete(key);
    }
    if (position !== null) {
      const entry: Entry<K> = { ...position, key, seq, at: Math.max(position.due, position.leaseUntil ?? -Infinity), live: true };
      this.current.set(key, entry);
      this.waiting.push(entry);
    }
    if (this.dead > 1_024 && this.dead > this.current.size) this.compact();
  }

  /**
   * The first `limit` claimable keys at `now` in claim order, with their positions; the queue is unchanged (the
   * caller's writes move them).
   */
  first(now: number, limit = 1): Array<DueKey & { readonly key: K; readonly seq: number }> {
    for (let top = this.waiting.peek(); top !== undefined && top.at <= now; top = this.waiting.peek()) {
      this.waiting.pop();
      if (top.live) this.ready.push(top);
      else this.dead--;
    }
    const taken: Entry<K>[] = [];
    const later: Entry<K>[] = [];
    while (taken.length < limit) {
      const top = this.ready.pop();
      if (top === undefined) break;
      if (!top.live) {
        this.dead--;
        continue;
      }
      // Only after a clock step back: not claimable at this `now` any more.
      (top.at > now ? later : taken).push(top);
    }
    for (const entry of taken) this.ready.push(entry);
    for (const entry of later) this.waiting.push(entry);
    return taken;
  }

  private compact(): void {
    const live = [...this.current.values()];
    this.waiting.reset(live);
    this.ready.reset([]);
    this.dead = 0;
  }
}
