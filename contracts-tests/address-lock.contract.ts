import { runs } from './support/depth.js';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AddressLock, LockGrant } from '../core/ports/address-lock.port.js';

/** What the address-lock contract needs from an adapter under test: the lock and a way to let time pass. */
export interface AddressLockSubject {
  readonly lock: AddressLock;
  /**
   * Lets at least `ms` milliseconds pass for the adapter: advance a manual clock, or really wait (a real-time
   * adapter should wait a few ms more, so that a TTL of exactly `ms` has certainly elapsed).
   */
  advance(ms: number): Promise<void>;
  /** Frees what the subject holds (connections); called after each test. */
  close?(): Promise<void>;
}

/** Capability switches and timings of the address-lock contract. */
export interface AddressLockContractOptions {
  /** TTL the suite lets elapse; real-time adapters want it short but well above a scheduling hiccup. Default 100. */
  readonly shortTtlMs?: number;
  /** TTL that never elapses during a test. Default 60 000. */
  readonly longTtlMs?: number;
  /** fast-check runs of the model-based test. Default 100. */
  readonly numRuns?: number;
  readonly capabilities?: {
    /** `advance` moves time exactly (a manual clock): enables boundary and time-travelling model tests. */
    readonly exactTime?: boolean;
  };
}

/**
 * The `AddressLock` contract (core/ports/address-lock.port.ts), to run against every adapter of the port.
 * `makeSubject` is called before every test and must return a fresh, empty lock (e.g. a unique key prefix).
 */
export function describeAddressLockContract(
  name: string,
  makeSubject: () => AddressLockSubject | Promise<AddressLockSubject>,
  options: AddressLockContractOptions = {},
): void {
  const shortTtl = options.shortTtlMs ?? 100;
  const longTtl = options.longTtlMs ?? 60_000;
  const numRuns = options.numRuns ?? runs(100);
  const exactTime = options.capabilities?.exactTime ?? false;

  describe(`AddressLock contract: ${name}`, () => {
    let subject: AddressLockSubject;
    let lock: AddressLock;
    beforeEach(async () => {
      subject = await makeSubject();
      lock = subject.lock;
    });
    afterEach(async () => {
      await subject.close?.();
    });

    it('grants a free key with its key, a token and a safe-integer fence', async () => {
      const grant = await lock.acquire('addr-1', longTtl);
      expect(grant).not.toBeNull();
      expect(grant!.key).toBe('addr-1');
      expect(grant!.token).toMatch(/\S/);
      expect(Number.isSafeInteger(grant!.fence)).toBe(true);
    });

    it('refuses a held key and leaves other keys independent', async () => {
      expect(await lock.acquire('addr-1', longTtl)).not.toBeNull();
      expect(await lock.acquire('addr-1', longTtl)).toBeNull();
      expect(await lock.acquire('addr-2', longTtl)).not.toBeNull();
    });

    it('release by the holder frees the key once; a second release is false', async () => {
      const grant = (await lock.acquire('addr-1', longTtl))!;
      expect(await lock.release(grant)).toBe(true);
      expect(await lock.release(grant)).toBe(false);
      const next = await lock.acquire('addr-1', longTtl);
      expect(next).not.toBeNull();
      expect(next!.fence).toBeGreaterThan(grant.fence);
    });

    it('release and extend by a non-holder (forged token) fail and leave the holder in place', async () => {
      const grant = (await lock.acquire('addr-1', longTtl))!;
      const forged: LockGrant = { ...grant, token: `${grant.token}-not` };
      expect(await lock.release(forged)).toBe(false);
      expect(await lock.extend(forged, longTtl)).toBe(false);
      expect(await lock.release({ ...grant, key: 'addr-2' })).toBe(false);
      expect(await lock.acquire('addr-1', longTtl)).toBeNull();
      expect(await lock.release(grant)).toBe(true);
    });

    it('expiry frees the key; the expired grant can neither release nor extend', async () => {
      const grant = (await lock.acquire('addr-1', shortTtl))!;
      await subject.advance(shortTtl);
      expect(await lock.extend(grant, longTtl)).toBe(false);
      expect(await lock.release(grant)).toBe(false);
      expect(await lock.acquire('addr-1', longTtl)).not.toBeNull();
    });

    it('a stale grant cannot touch the next holder, whose fence is larger', async () => {
      const stale = (await lock.acquire('addr-1', shortTtl))!;
      await subject.advance(shortTtl);
      const current = (await lock.acquire('addr-1', longTtl))!;
      expect(current.fence).toBeGreaterThan(stale.fence);
      expect(await lock.release(stale)).toBe(false);
      expect(await lock.extend(stale, longTtl)).toBe(false);
      expect(await lock.acquire('addr-1', longTtl)).toBeNull();
      expect(await lock.release(current)).toBe(true);
    });

    it('extend by the holder sets a new TTL from now (shortening frees it after the new TTL)', async () => {
      const grant = (await lock.acquire('addr-1', longTtl))!;
      expect(await lock.extend(grant, shortTtl)).toBe(true);
      await subject.advance(shortTtl);
      expect(await lock.acquire('addr-1', longTtl)).not.toBeNull();
    });

    it('extend by the holder keeps the key held past its first TTL', async () => {
      const grant = (await lock.acquire('addr-1', shortTtl))!;
      expect(await lock.extend(grant, longTtl)).toBe(true);
      await subject.advance(shortTtl);
      expect(await lock.acquire('addr-1', longTtl)).toBeNull();
      expect(await lock.release(grant)).toBe(true);
    });

    it('fences strictly increase across releases and expiries of one key', async () => {
      let last = -Infinity;
      for (let i = 0; i < 12; i++) {
        const grant = (await lock.acquire('addr-1', i % 3 === 0 ? shortTtl : longTtl))!;
        expect(grant).not.toBeNull();
        expect(grant.fence).toBeGreaterThan(last);
        last = grant.fence;
        if (i % 3 === 0) await subject.advance(shortTtl);
        else expect(await lock.release(grant)).toBe(true);
      }
    });

    it('50 parallel acquirers of one key: exactly one holder', async () => {
      const grants = await Promise.all(Array.from({ length: 50 }, () => lock.acquire('addr-hot', longTtl)));
      expect(grants.filter((grant) => grant !== null)).toHaveLength(1);
    });

    it('parallel acquirers of 10 keys: exactly one holder per key, distinct tokens', async () => {
      const keys = Array.from({ length: 10 }, (_, i) => `addr-${i}`);
      const grants = await Promise.all(keys.flatMap((key) => Array.from({ length: 5 }, () => lock.acquire(key, longTtl))));
      const held = grants.filter((grant): grant is LockGrant => grant !== null);
      expect(held.map((grant) => grant.key).sort()).toEqual([...keys].sort());
      expect(new Set(held.map((grant) => grant.token)).size).toBe(keys.length);
    });

    // Declared only with the capability: a test that cannot apply is not reported as a skipped one.
    if (exactTime) it('is held until the TTL has fully elapsed, then free (exact time)', async () => {
      const grant = (await lock.acquire('addr-1', 1_000))!;
      await subject.advance(999);
      expect(await lock.acquire('addr-1', longTtl)).toBeNull();
      expect(await lock.extend(grant, 1_000)).toBe(true);
      await subject.advance(999);
      expect(await lock.acquire('addr-1', longTtl)).toBeNull();
      await subject.advance(1);
      expect(await lock.acquire('addr-1', longTtl)).not.toBeNull();
    });

    it('behaves like the reference model under random acquire/release/extend sequences', async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.commands(lockCommands(exactTime ? [1, 50, 100] : [longTtl], exactTime), { size: 'small' }), async (commands) => {
          run += 1;
          const real = { lock, prefix: `run${run}:`, advance: (ms: number) => subject.advance(ms) };
          await fc.asyncModelRun(() => ({ model: emptyModel(), real }), commands);
        }),
        { numRuns },
      );
    });
  });
}

interface LockModel {
  now: number;
  readonly holders: Map<string, { token: string; expiresAt: number }>;
  readonly lastFence: Map<string, number>;
  readonly grants: LockGrant[];
}

interface LockReal {
  readonly lock: AddressLock;
  readonly prefix: string;
  advance(ms: number): Promise<void>;
}

type LockCommand = fc.AsyncCommand<LockModel, LockReal>;

function emptyModel(): LockModel {
  return { now: 0, holders: new Map(), lastFence: new Map(), grants: [] };
}

function isLive(model: LockModel, grant: LockGrant): boolean {
  const holder = model.holders.get(grant.key);
  return holder !== undefined && holder.token === grant.token && holder.expiresAt > model.now;
}

function lockCommands(ttls: number[], withTime: boolean): fc.Arbitrary<LockCommand>[] {
  const key = fc.constantFrom('a', 'b', 'c');
  const ttl = fc.constantFrom(...ttls);
  const pick = fc.nat();
  const commands: fc.Arbitrary<LockCommand>[] = [
    fc.tuple(key, ttl).map(([k, t]) => command(`acquire(${k}, ${t})`, () => true, async (model, real) => {
      const grant = await real.lock.acquire(real.prefix + k, t);
      const holder = model.holders.get(real.prefix + k);
      if (holder !== undefined && holder.expiresAt > model.now) return expect(grant).toBeNull();
      expect(grant).not.toBeNull();
      expect(grant!.fence).toBeGreaterThan(model.lastFence.get(grant!.key) ?? -Infinity);
      model.lastFence.set(grant!.key, grant!.fence);
      model.holders.set(grant!.key, { token: grant!.token, expiresAt: model.now + t });
      model.grants.push(grant!);
    })),
    pick.map((i) => command(`release(#${i})`, (m) => m.grants.length > 0, async (model, real) => {
      const grant = model.grants[i % model.grants.length]!;
      const expected = isLive(model, grant);
      expect(await real.lock.release(grant)).toBe(expected);
      if (expected) model.holders.delete(grant.key);
    })),
    fc.tuple(pick, ttl).map(([i, t]) => command(`extend(#${i}, ${t})`, (m) => m.grants.length > 0, async (model, real) => {
      const grant = model.grants[i % model.grants.length]!;
      const expected = isLive(model, grant);
      expect(await real.lock.extend(grant, t)).toBe(expected);
      if (expected) model.holders.set(grant.key, { token: grant.token, expiresAt: model.now + t });
    })),
  ];
  if (withTime) {
    commands.push(fc.integer({ min: 1, max: 120 }).map((ms) => command(`advance(${ms})`, () => true, async (model, real) => {
      await real.advance(ms);
      model.now += ms;
    })));
  }
  return commands;
}

function command(
  label: string,
  check: (model: Readonly<LockModel>) => boolean,
  run: (model: LockModel, real: LockReal) => Promise<void>,
): LockCommand {
  return { check, run, toString: () => label };
}
