import { runs } from './support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_WINDOW_MS } from '../core/domain/model/idempotency.js';
import type { IdempotencyStore } from '../core/ports/idempotency-store.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject, withSubject } from './support/contract-options.js';

/** A clock the suite can move forward; the store must read its time from the same clock. */
export interface AdvancableClock {
  advance(ms: number): void;
}

/** What the idempotency contract needs: an empty store and the clock it expires records on. */
export interface IdempotencyStoreSubject extends Closable {
  readonly idempotency: IdempotencyStore;
  readonly clock: AdvancableClock;
}

const WINDOW = IDEMPOTENCY_WINDOW_MS;
/** An in-flight lease much shorter than the window, as the API passes. */
const LEASE = 60_000;
const SCOPE = 'user:1 POST /wallets/{network}/main-address';
const HASH_A = 'aa'.repeat(32);
const HASH_B = 'bb'.repeat(32);
const CREATED = { status: 201, body: '{"code":0,"data":{"address":"T1"}}' } as const;

/** The IdempotencyStore contract (core/ports/idempotency-store.port.ts); a fresh, empty subject per test. */
export function describeIdempotencyStoreContract(
  name: string,
  makeSubject: MakeSubject<IdempotencyStoreSubject>,
  options: ContractOptions<IdempotencyStoreSubject> = {},
): void {
  const concurrency = options.concurrency ?? 50;
  const numRuns = options.numRuns ?? runs(50);
  describe(`IdempotencyStore contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('the first begin starts; a repeat while it runs is in-progress; after complete it replays the stored response', async () => {
      const { idempotency } = subject();
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW)).toEqual({ outcome: 'started' });
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW)).toEqual({ outcome: 'in-progress' });
      await idempotency.complete(SCOPE, 'k1', CREATED);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW)).toEqual({ outcome: 'replay', response: CREATED });
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW)).toEqual({ outcome: 'replay', response: CREATED });
    });

    it('the same key with another body is a mismatch, whether the first request is running or completed', async () => {
      const { idempotency } = subject();
      await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_B, WINDOW)).toEqual({ outcome: 'mismatch' });
      await idempotency.complete(SCOPE, 'k1', CREATED);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_B, WINDOW)).toEqual({ outcome: 'mismatch' });
      // The mismatch did not overwrite the record.
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW)).toEqual({ outcome: 'replay', response: CREATED });
    });

    it('keys are scoped: the same key in another scope is independent', async () => {
      const { idempotency } = subject();
      await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW);
      await idempotency.complete(SCOPE, 'k1', CREATED);
      expect(await idempotency.begin('user:2 POST /wallets/{network}/main-address', 'k1', HASH_B, WINDOW)).toEqual({ outcome: 'started' });
      expect(await idempotency.begin(SCOPE, 'k2', HASH_B, WINDOW)).toEqual({ outcome: 'started' });
    });

    it('a record lives for the window on the clock (24 h) and is forgotten after it', async () => {
      const { idempotency, clock } = subject();
      await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW);
      await idempotency.complete(SCOPE, 'k1', CREATED);
      clock.advance(WINDOW - 1);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_B, WINDOW)).toEqual({ outcome: 'mismatch' });
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW)).toEqual({ outcome: 'replay', response: CREATED });
      clock.advance(1);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_B, WINDOW)).toEqual({ outcome: 'started' });
      expect(await idempotency.begin(SCOPE, 'k1', HASH_B, WINDOW)).toEqual({ outcome: 'in-progress' });
    });

    it('an in-flight marker also expires with the window, so a crashed request does not block the key for ever', async () => {
      const { idempotency, clock } = subject();
      await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW);
      clock.advance(WINDOW);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW)).toEqual({ outcome: 'started' });
    });

    it('an in-flight lease that ran out is taken over by a same-hash begin; before that it is in progress', async () => {
      const { idempotency, clock } = subject();
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW, LEASE)).toEqual({ outcome: 'started' });
      clock.advance(LEASE - 1);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW, LEASE)).toEqual({ outcome: 'in-progress' });
      clock.advance(1);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW, LEASE)).toEqual({ outcome: 'started' });
      // The takeover holds a fresh lease of its own.
      clock.advance(LEASE - 1);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW, LEASE)).toEqual({ outcome: 'in-progress' });
      await idempotency.complete(SCOPE, 'k1', CREATED);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW, LEASE)).toEqual({ outcome: 'replay', response: CREATED });
    });

    it('without a lease argument the in-flight marker lasts the whole window', async () => {
      const { idempotency, clock } = subject();
      await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW);
      clock.advance(WINDOW - 1);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW, LEASE)).toEqual({ outcome: 'in-progress' });
    });

    it('a run-out lease does not free the key for another body: that stays a mismatch for the window', async () => {
      const { idempotency, clock } = subject();
      await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW, LEASE);
      clock.advance(LEASE * 10);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_B, WINDOW, LEASE)).toEqual({ outcome: 'mismatch' });
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW, LEASE)).toEqual({ outcome: 'started' });
      expect(await idempotency.begin(SCOPE, 'k1', HASH_B, WINDOW, LEASE)).toEqual({ outcome: 'mismatch' });
    });

    it('a completed record replays for the whole window however short the lease, counted from the takeover', async () => {
      const { idempotency, clock } = subject();
      await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW, LEASE);
      clock.advance(LEASE);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW, LEASE)).toEqual({ outcome: 'started' });
      await idempotency.complete(SCOPE, 'k1', CREATED);
      clock.advance(WINDOW - 1);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW, LEASE)).toEqual({ outcome: 'replay', response: CREATED });
      expect(await idempotency.begin(SCOPE, 'k1', HASH_B, WINDOW, LEASE)).toEqual({ outcome: 'mismatch' });
      clock.advance(1);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_B, WINDOW, LEASE)).toEqual({ outcome: 'started' });
    });

    it(`of ${concurrency} concurrent takeovers of a run-out lease exactly one starts, the rest see it in progress`, async () => {
      const { idempotency, clock } = subject();
      await idempotency.begin(SCOPE, 'race', HASH_A, WINDOW, LEASE);
      clock.advance(LEASE);
      const outcomes = await Promise.all(
        Array.from({ length: concurrency }, () => idempotency.begin(SCOPE, 'race', HASH_A, WINDOW, LEASE)),
      );
      expect(outcomes.filter((o) => o.outcome === 'started')).toHaveLength(1);
      expect(outcomes.filter((o) => o.outcome === 'in-progress')).toHaveLength(concurrency - 1);
    });

    it('abandon forgets a started request so the client may retry with the same key (even with another body)', async () => {
      const { idempotency } = subject();
      await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW);
      await idempotency.abandon(SCOPE, 'k1');
      expect(await idempotency.begin(SCOPE, 'k1', HASH_B, WINDOW)).toEqual({ outcome: 'started' });
    });

    it('abandon does not erase a completed request', async () => {
      const { idempotency } = subject();
      await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW);
      await idempotency.complete(SCOPE, 'k1', CREATED);
      await idempotency.abandon(SCOPE, 'k1');
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW)).toEqual({ outcome: 'replay', response: CREATED });
    });

    it('complete after the record expired does not revive it', async () => {
      const { idempotency, clock } = subject();
      await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW);
      clock.advance(WINDOW);
      await idempotency.complete(SCOPE, 'k1', CREATED);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW)).toEqual({ outcome: 'started' });
    });

    it('stores the response byte for byte (status and body, unicode included)', async () => {
      const { idempotency } = subject();
      const response = { status: 409, body: '{"code":409,"msg":"ünï \\u0000 ✓","data":null}' };
      await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW);
      await idempotency.complete(SCOPE, 'k1', response);
      expect(await idempotency.begin(SCOPE, 'k1', HASH_A, WINDOW)).toEqual({ outcome: 'replay', response });
    });

    it(`of ${concurrency} concurrent begins with one key exactly one starts, the rest see it in progress`, async () => {
      const { idempotency } = subject();
      const outcomes = await Promise.all(
        Array.from({ length: concurrency }, () => idempotency.begin(SCOPE, 'race', HASH_A, WINDOW)),
      );
      expect(outcomes.filter((o) => o.outcome === 'started')).toHaveLength(1);
      expect(outcomes.filter((o) => o.outcome === 'in-progress')).toHaveLength(concurrency - 1);
    });

    it('matches a reference model under random begin (with or without a lease)/complete/abandon/advance sequences', async () => {
      type Op =
        | { kind: 'begin'; key: number; hash: number; leased: boolean }
        | { kind: 'complete'; key: number; status: number }
        | { kind: 'abandon'; key: number }
        | { kind: 'advance'; ms: number };
      const op: fc.Arbitrary<Op> = fc.oneof(
        fc.record({ kind: fc.constant('begin' as const), key: fc.nat(2), hash: fc.nat(1), leased: fc.boolean() }),
        fc.record({ kind: fc.constant('complete' as const), key: fc.nat(2), status: fc.integer({ min: 200, max: 599 }) }),
        fc.record({ kind: fc.constant('abandon' as const), key: fc.nat(2) }),
        fc.record({ kind: fc.constant('advance' as const), ms: fc.oneof(fc.constant(WINDOW), fc.constant(LEASE), fc.integer({ min: 0, max: WINDOW / 2 })) }),
      );
      await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
        await withSubject(makeSubject, async ({ idempotency, clock }) => {
          let now = 0;
          type Entry = { hash: number; expiresAt: number; leaseUntil: number; response: { status: number; body: string } | null };
          const model = new Map<number, Entry>();
          for (const step of ops) {
            if (step.kind === 'advance') {
              clock.advance(step.ms);
              now += step.ms;
              continue;
            }
            const live = model.get(step.key);
            const current = live !== undefined && live.expiresAt > now ? live : undefined;
            if (step.kind === 'begin') {
              const lease = step.leased ? LEASE : undefined;
              const got = await idempotency.begin(SCOPE, `k${step.key}`, `${step.hash}`.repeat(64), WINDOW, lease);
              const takeover = current !== undefined && current.hash === step.hash && current.response === null && current.leaseUntil <= now;
              if (current === undefined || takeover) {
                expect(got).toEqual({ outcome: 'started' });
                model.set(step.key, { hash: step.hash, expiresAt: now + WINDOW, leaseUntil: now + (lease ?? WINDOW), response: null });
              } else if (current.hash !== step.hash) expect(got).toEqual({ outcome: 'mismatch' });
              else if (current.response === null) expect(got).toEqual({ outcome: 'in-progress' });
              else expect(got).toEqual({ outcome: 'replay', response: current.response });
            } else if (step.kind === 'complete') {
              const response = { status: step.status, body: `{"n":${step.status}}` };
              await idempotency.complete(SCOPE, `k${step.key}`, response);
              if (current !== undefined && current.response === null) model.set(step.key, { ...current, response });
            } else {
              await idempotency.abandon(SCOPE, `k${step.key}`);
              if (current !== undefined && current.response === null) model.delete(step.key);
            }
          }
        });
      }), { numRuns });
    });

    options.extraTestsFn?.(makeSubject);
  });
}
