import { ConcurrencyConflict, InfrastructureError } from '../../domain/errors.js';
import type { Versioned } from '../../domain/model/common.js';
import type { WorkflowStore } from './workflow.js';

/** A subject kept by its runner: due there at `dueAt`; its lease (and its due time in the store) ends at `expiresAt`. */
export interface Kept {
  readonly dueAt: number;
  readonly expiresAt: number;
}

/** What a subject source is told at its start (the runner's options, defaults applied). */
export interface SourceOptions {
  /** Lease owner name. */
  readonly owner: string;
  /** Lease on a claimed subject. */
  readonly leaseMs: number;
  /** The runner's lanes: a claim for several lanes takes that many at once. */
  readonly concurrency: number;
  /** Subjects kept between stages at most (0: none; forced to 0 for a store that does not keep). */
  readonly keepMax: number;
}

/**
 * Where a runner's subjects come from, and where they go between its stages: claims under a store lease (one at a
 * time, or one per lane in one round trip, the others held as claimed ahead), the subjects this runner keeps
 * between stages (decision 160), their leases renewed before they run low, and all of them released when the runner
 * stops. It owns every lease decision; the stage protocol asks it how to release a subject (released).
 */
export class SubjectSource<S extends Versioned> {
  readonly owner: string;
  readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly keepMax: number;
  /** Subjects this runner keeps (their lease is its own, stored due at its end): each as stored, and when it is due here. */
  private readonly kept = new Map<string, { readonly subject: S } & Kept>();
  /** Subjects claimed with another in one round trip and not run yet (due now, leased here): run before any other claim. */
  private readonly ahead = new Map<string, { readonly subject: S } & Kept>();

  constructor(private readonly store: WorkflowStore<S>, options: SourceOptions) {
    this.owner = options.owner;
    this.leaseMs = options.leaseMs;
    this.concurrency = options.concurrency;
    this.keepMax = store.keeps ? options.keepMax : 0;
  }

  /**
   * The next subject to run a stage of, leased here; null when nothing is due. Subjects claimed ahead go first, then
   * the store, then the kept ones: subjects started earlier must not hold back the first stages of others (each
   * sweep's stages are a block apart, so starting them all early ends them all early); `pass.storeDry` says a claim
   * of this pass found nothing, so none is tried again. `onClaimed` is told at once when there is one (the runner
   * opens its next lane then, without waiting for this call to return).
   */
  async next(now: number, pass: { storeDry: boolean }, onClaimed?: () => void): Promise<S | null> {
    let claimed = this.ahead.size === 0 ? null : await this.resume(this.ahead, now);
    if (claimed === null && !pass.storeDry) {
      claimed = await this.claim(now);
      pass.storeDry = claimed === null;
    }
    claimed ??= await this.resume(this.kept, now);
    // A subject kept here whose lease ran out and that this runner claimed again from the store: the store's is current.
    if (claimed === null) return null;
    this.kept.delete(this.store.key(claimed));
    onClaimed?.();
    return claimed;
  }

  /** Whether this runner still holds the subject's lease. */
  holds(subject: S): boolean {
    return this.store.holds(subject, this.owner);
  }

  /**
   * The subject released, due at `at`; `keep` (a stage that waits for the chain): kept by this runner instead, while
   * it keeps fewer than keepMax (decision 160). `kept` says so, for keepAfter once the stage has ended.
   */
  released(subject: S, at: number, keep: boolean): { readonly subject: S; readonly kept: Kept | null } {
    if (!keep || !this.store.keeps || this.kept.size >= this.keepMax) return { subject: this.store.leased(subject, at, null), kept: null };
    const expiresAt = at + this.leaseMs;
    return { subject: this.store.leased(subject, expiresAt, { owner: this.owner, expiresAt }), kept: { dueAt: at, expiresAt } };
  }

  /** After a stage whose last release kept the subject (and the lease is still this runner's): held in memory until due. */
  keepAfter(key: string, subject: S, kept: Kept | null): void {
    if (kept !== null && this.holds(subject)) this.kept.set(key, { subject, ...kept });
  }

  /**
   * Releases every subject this runner keeps (a stopping worker): due when it was due here, for any runner. A subject
   * changed since (a lost lease) or a store that fails is left to its lease's end.
   */
  async releaseKept(): Promise<void> {
    const entries = [...this.ahead.values(), ...this.kept.values()];
    this.ahead.clear();
    this.kept.clear();
    for (const { subject, dueAt } of entries) {
      await this.store.save(this.store.leased(subject, dueAt, null), subject.version).catch((error: unknown) => {
        if (!(error instanceof ConcurrencyConflict || error instanceof InfrastructureError)) throw error;
      });
    }
  }

  /** How many subjects this runner keeps now, claimed ahead ones included (for tests and metrics). */
  keptCount(): number {
    return this.kept.size + this.ahead.size;
  }

  /**
   * A subject of `from` (kept, or claimed ahead) that is due, taken out of memory (the first found: they are held in
   * about the order they fall due); null when none is. One with less than half a lease left has its lease renewed
   * first, by a versioned write that loses to any other runner's claim, exactly as a claim would.
   */
  private async resume(from: Map<string, { readonly subject: S } & Kept>, now: number): Promise<S | null> {
    for (const [key, entry] of from) {
      if (entry.dueAt > now) continue;
      from.delete(key);
      if (now + this.leaseMs / 2 <= entry.expiresAt) return entry.subject;
      try {
        const expiresAt = now + this.leaseMs;
        return await this.store.save(this.store.leased(entry.subject, expiresAt, { owner: this.owner, expiresAt }), entry.subject.version);
      } catch (error) {
        // Claimed by another runner since (or the store is down: the lease runs out and the subject is claimed again).
        if (error instanceof ConcurrencyConflict || error instanceof InfrastructureError) continue;
        throw error;
      }
    }
    return null;
  }

  /**
   * One due subject from the store. A runner with several lanes that may keep subjects claims one per lane in one
   * round trip and holds the others as claimed ahead (the lanes it opens next take them); else one claim.
   */
  private async claim(now: number): Promise<S | null> {
    const limit = this.concurrency === 1 || this.keepMax === 0 ? 1 : this.concurrency;
    const [first, ...others] = await this.store.claim(now, this.owner, this.leaseMs, limit);
    for (const subject of others) this.ahead.set(this.store.key(subject), { subject, dueAt: now, expiresAt: now + this.leaseMs });
    return first ?? null;
  }
}
