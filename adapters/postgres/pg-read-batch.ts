/**
 * Reads by key that arrive in the same turn of the event loop, sent as ONE statement (issue #37): under load the API
 * answers many requests per turn, and a statement for each costs the driver, the socket and the server more than one
 * for all (`WHERE key = ANY($1)`). Each caller still gets an answer read after it asked: the statement is sent at the
 * end of the turn in which the first of them asked. A failure of the statement is every caller's failure, as it would
 * have been each one's on its own.
 */
export class ReadBatch<K, V> {
  private pending: Map<K, Array<{ resolve(value: V | null): void; reject(error: unknown): void }>> | null = null;

  /**
   * @param readMany answers the keys it finds (a key it leaves out is answered null); called with at most `maxKeys`
   * distinct keys at a time.
   */
  constructor(private readonly readMany: (keys: K[]) => Promise<ReadonlyMap<K, V>>, private readonly maxKeys = 256) {}

  read(key: K): Promise<V | null> {
    return new Promise((resolve, reject) => {
      if (this.pending === null) {
        this.pending = new Map();
        // After the I/O callbacks of this turn: every request read in it has asked by then.
        setImmediate(() => this.flush());
      }
      const waiting = this.pending.get(key);
      if (waiting === undefined) this.pending.set(key, [{ resolve, reject }]);
      else waiting.push({ resolve, reject });
    });
  }

  private flush(): void {
    const pending = this.pending!;
    this.pending = null;
    const keys = [...pending.keys()];
    for (let from = 0; from < keys.length; from += this.maxKeys) {
      const slice = keys.slice(from, from + this.maxKeys);
      this.readMany(slice).then((found) => {
        for (const key of slice) for (const waiter of pending.get(key)!) waiter.resolve(found.get(key) ?? null);
      }, (error: unknown) => {
        for (const key of slice) for (const waiter of pending.get(key)!) waiter.reject(error);
      });
    }
  }
}
