import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * UnitOfWork.atomically on the memory store (issue #39 item 7): a scope's writes land together or not at all.
 *
 * - Every write to the store's tables (IndexedTable, JournaledMap) and to the books made inside an open scope
 *   registers its undo with `recordUndo`; a throw out of the scope runs them newest first, which puts back exactly the
 *   state the scope began on (key order included). A nested scope is a savepoint: its throw undoes its own writes only.
 * - Scopes of one store run one at a time, and alone: a scope waits for the store calls already in flight, and a call
 *   from outside waits while a scope is open or waiting (ScopeGate, applied to every port by `gated`). So no one
 *   outside reads what a scope may still take back, and nothing written outside is undone by a scope's throw — the
 *   serial order of PostgreSQL's row locks, taken store-wide.
 * Sequences (ids) are not taken back, as a PostgreSQL sequence is not.
 */
class Scope {
  readonly undo: (() => void)[] = [];
  private isOpen = true;

  constructor(readonly gate: ScopeGate) {
    openScopes += 1;
  }

  get open(): boolean {
    return this.isOpen;
  }

  close(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    openScopes -= 1;
  }
}

const current = new AsyncLocalStorage<Scope>();
/** Scopes open in the process, of any store: while none is, a write skips the context lookup (the hot path). */
let openScopes = 0;

/** Registers how to take back a write just made, when it was made inside an open atomic scope (a no-op outside one). */
export function recordUndo(undo: () => void): void {
  if (openScopes === 0) return;
  const scope = current.getStore();
  if (scope !== undefined && scope.open) scope.undo.push(undo);
}

/** Whether a write now would be taken back by a throw (callers skip the cost of preparing an undo otherwise). */
export function inOpenScope(): boolean {
  if (openScopes === 0) return false;
  const scope = current.getStore();
  return scope !== undefined && scope.open;
}

/** Runs the undos newest first, outside any scope (an undo's own writes are not journaled). */
function rollBack(scope: Scope): void {
  scope.close();
  current.exit(() => {
    for (let i = scope.undo.length - 1; i >= 0; i--) scope.undo[i]!();
  });
}

/** The gate of one memory store: atomic scopes one at a time, each alone against the other calls of the store. */
export class ScopeGate {
  private holder: Scope | null = null;
  private waitingScopes = 0;
  private inFlight = 0;
  private signal: { readonly promise: Promise<void>; readonly resolve: () => void } | null = null;

  /** Runs `work` as one atomic scope of this store (a savepoint when already inside one of its scopes). */
  async atomically<T>(work: () => Promise<T>): Promise<T> {
    const parent = current.getStore();
    if (parent !== undefined && parent.gate === this && parent.open) return this.savepoint(parent, work);
    this.waitingScopes += 1;
    try {
      while (this.holder !== null || this.inFlight > 0) await this.changed();
    } finally {
      this.waitingScopes -= 1;
    }
    const scope = new Scope(this);
    this.holder = scope;
    try {
      const result = await current.run(scope, work);
      scope.close();
      return result;
    } catch (error) {
      rollBack(scope);
      throw error;
    } finally {
      this.holder = null;
      this.notify();
    }
  }

  /**
   * Runs a store call: at once inside this store's open scope or when no scope is open or waiting (the promise is the
   * call's own, no extra tick); otherwise after the scopes. Calls in flight hold back the next scope.
   */
  call<T>(run: () => Promise<T>): Promise<T> {
    if (openScopes > 0 && this.inside()) return run();
    if (this.holder !== null || this.waitingScopes > 0) return this.callLater(run);
    return this.track(run());
  }

  private async callLater<T>(run: () => Promise<T>): Promise<T> {
    while (this.holder !== null || this.waitingScopes > 0) await this.changed();
    return this.track(run());
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight += 1;
    const done = (): void => {
      this.inFlight -= 1;
      if (this.inFlight === 0 && this.waitingScopes > 0) this.notify();
    };
    promise.then(done, done);
    return promise;
  }

  private inside(): boolean {
    const scope = current.getStore();
    return scope !== undefined && scope.gate === this && scope.open;
  }

  private async savepoint<T>(parent: Scope, work: () => Promise<T>): Promise<T> {
    const scope = new Scope(this);
    try {
      const result = await current.run(scope, work);
      scope.close();
      parent.undo.push(...scope.undo);
      return result;
    } catch (error) {
      rollBack(scope);
      throw error;
    }
  }

  private changed(): Promise<void> {
    if (this.signal === null) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.signal = { promise, resolve };
    }
    return this.signal.promise;
  }

  private notify(): void {
    const signal = this.signal;
    this.signal = null;
    signal?.resolve();
  }
}

/**
 * The port object with every async method run through the gate (`this` is the object itself, so its own calls to
 * itself are not gated twice). Sync members pass through.
 */
export function gated<T extends object>(target: T, gate: ScopeGate): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, key, receiver) {
      const value: unknown = Reflect.get(object, key, receiver);
      if (typeof value !== 'function' || value.constructor.name !== 'AsyncFunction') return value;
      let wrapper = wrapped.get(key) as { fn: unknown; call: unknown } | undefined;
      if (wrapper?.fn !== value) {
        const fn = value as (...args: unknown[]) => Promise<unknown>;
        wrapper = { fn, call: (...args: unknown[]) => gate.call(() => Reflect.apply(fn, object, args)) };
        wrapped.set(key, wrapper);
      }
      return wrapper.call;
    },
  });
}

/** A Map whose writes inside an open atomic scope are taken back by the scope's throw, key order included. */
export class JournaledMap<K, V> extends Map<K, V> {
  override set(key: K, value: V): this {
    if (inOpenScope()) {
      if (super.has(key)) {
        const before = super.get(key) as V;
        recordUndo(() => super.set(key, before));
      } else {
        recordUndo(() => super.delete(key));
      }
    }
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    if (inOpenScope() && super.has(key)) {
      const before = super.get(key) as V;
      const order = [...super.keys()];
      recordUndo(() => this.reorder(order, key, before));
    }
    return super.delete(key);
  }

  override clear(): void {
    if (inOpenScope() && this.size > 0) {
      const entries = [...super.entries()];
      recordUndo(() => {
        for (const [k, v] of entries) super.set(k, v);
      });
    }
    super.clear();
  }

  /** Puts a deleted key back where it was (the undos after its delete have run, so the other keys are as then). */
  private reorder(order: readonly K[], key: K, value: V): void {
    const now = new Map(this);
    super.clear();
    for (const k of order) super.set(k, k === key ? value : now.get(k) as V);
  }
}
