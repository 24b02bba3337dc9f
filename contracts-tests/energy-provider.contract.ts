import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError, InfrastructureError } from '../core/domain/errors.js';
import type { ChainGateway, Signer } from '../core/ports/chain-gateway.port.js';
import type { EnergyOrder, EnergyProvider, EnergyRequest } from '../core/ports/energy-provider.port.js';
import { itUnless } from './support/skipped.js';

/** What the energy-provider contract needs: the provider, the chain it delivers on, and a main address. */
export interface EnergyProviderSubject {
  readonly provider: EnergyProvider;
  /** The chain the energy shows up on (reads resources, sends self-delegation transactions, undelegates). */
  readonly chain: ChainGateway;
  /** The user's main address: staked for energy when the provider delegates from it, ignored by a rental. */
  readonly main: Signer;
  /** An activated address with no energy of its own, new for each call. */
  newReceiver(): Promise<string>;
  /** Lets `blocks` more blocks be produced (devnet: mines them; real chain: waits). */
  mine(blocks: number): Promise<void>;
  /** Moves chain time forward (capability `rentalExpiry`). */
  advance?(ms: number): Promise<void>;
  /**
   * Raises the network's TotalEnergyWeight by `bps` basis points, as other people's stakes do (capability
   * `weightGrowthBps`): every staked TRX then yields proportionally less energy.
   */
  growEnergyWeight?(bps: number): Promise<void>;
  close?(): Promise<void>;
}

/** Options of {@link describeEnergyProviderContract}. */
export interface EnergyProviderContractOptions {
  /** Energy of the ordinary request (default 65,000: one USDT transfer to a holder). */
  readonly energy?: number;
  /** A request so large the provider cannot cover it: canProvide is false and it is never delivered. */
  readonly uncoverableEnergy?: number;
  /** A rental gives its energy back by itself after this many ms of chain time (needs subject.advance). */
  readonly rentalExpiryMs?: number;
  /**
   * The provider's safety margin: a delivery still covers the request after the network's energy weight grows by
   * this many basis points between delivery and use (needs subject.growEnergyWeight). Unset: not tested.
   */
  readonly weightGrowthBps?: number;
  /** Blocks to wait for a delivery before the test gives up (default 5). */
  readonly maxBlocks?: number;
  /** Per-test timeout (default 20 s). */
  readonly timeoutMs?: number;
}

async function portError(p: Promise<unknown>): Promise<InfrastructureError | DomainError> {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e instanceof InfrastructureError || e instanceof DomainError, `expected a port error, got ${String(e)}`).toBe(true);
  return e as InfrastructureError | DomainError;
}

/**
 * The `EnergyProvider` contract (core/ports/energy-provider.port.ts): canProvide answers for what it can cover;
 * acquire is write-ahead friendly (a `transaction` order is signed but unsent, and nothing moves until the caller
 * broadcasts it; an `order` is keyed by its reference, so repeating a reference never orders twice); a delivered
 * order shows as energy on the receiver; giving the energy back returns exactly what was taken. `makeSubject` is
 * called before every test and must return a fresh view (a new devnet, or new receivers on a real chain).
 */
export function describeEnergyProviderContract(
  name: string,
  makeSubject: () => EnergyProviderSubject | Promise<EnergyProviderSubject>,
  options: EnergyProviderContractOptions = {},
): void {
  const energy = options.energy ?? 65_000;
  const maxBlocks = options.maxBlocks ?? 5;
  const timeout = options.timeoutMs ?? 20_000;

  describe(`EnergyProvider contract: ${name}`, () => {
    let s: EnergyProviderSubject;
    let seq = 0;
    beforeEach(async () => {
      s = await makeSubject();
    }, timeout);
    afterEach(async () => {
      await s.close?.();
    });

    const request = async (overrides: Partial<EnergyRequest> = {}): Promise<EnergyRequest> =>
      ({ receiver: overrides.receiver ?? (await s.newReceiver()), energy, reference: `contract-${name}-${++seq}-${Date.now()}`, ...overrides });
    const energyOf = async (address: string) => (await s.chain.getResources(address)).energy;

    /** Carries an order to the chain and waits until it is delivered (or failed); returns the outcome. */
    const deliver = async (order: EnergyOrder): Promise<'delivered' | 'failed'> => {
      if (order.kind === 'transaction') await s.chain.broadcast(order.tx);
      for (let i = 0; i <= maxBlocks; i++) {
        if (order.kind === 'transaction') {
          const st = await s.chain.getTransaction(order.tx.txid);
          if (st.state === 'confirmed') return 'delivered';
          if (st.state === 'failed') return 'failed';
        } else {
          const status = await s.provider.orderStatus(order.orderId);
          if (status !== 'pending') return status;
        }
        await s.mine(1);
      }
      throw new Error(`order not settled after ${maxBlocks} blocks`);
    };

    it('canProvide is true for an ordinary request, and the delivered energy covers it on the receiver', async () => {
      const req = await request();
      expect(await energyOf(req.receiver)).toMatchObject({ limit: 0, receivedSun: 0n });
      expect(await s.provider.canProvide(req, s.main)).toBe(true);
      const order = await s.provider.acquire(req, s.main);
      expect(await deliver(order)).toBe('delivered');
      const got = await energyOf(req.receiver);
      expect(got.available).toBeGreaterThanOrEqual(energy);
      expect(got.receivedSun).toBeGreaterThan(0n);
    }, timeout);

    it('quote, where the adapter prices, agrees with canProvide and prices at least the request', async () => {
      if (s.provider.quote === undefined) return;
      const req = await request();
      const quote = await s.provider.quote(req, s.main);
      expect(quote).not.toBeNull();
      expect(quote!.priceSun).toBeGreaterThanOrEqual(0n);
      expect(quote!.energy).toBeGreaterThanOrEqual(energy);
      expect(await s.provider.canProvide(req, s.main)).toBe(true);
      if (options.uncoverableEnergy !== undefined) {
        const huge = { ...req, energy: options.uncoverableEnergy, reference: `${req.reference}-huge` };
        expect(await s.provider.quote(huge, s.main)).toBeNull();
      }
    }, timeout);

    it('acquire is write-ahead: a signed transaction that moves nothing until broadcast, or an order that can be polled', async () => {
      const req = await request();
      const order = await s.provider.acquire(req, s.main);
      if (order.kind !== 'transaction') {
        expect(order.orderId).toMatch(/\S/);
        expect(['pending', 'delivered']).toContain(await s.provider.orderStatus(order.orderId));
        return;
      }
      expect(order.tx.txid).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.parse(order.tx.signedJson).txID).toBe(order.tx.txid);
      await s.mine(2);
      expect(await s.chain.getTransaction(order.tx.txid)).toEqual({ state: 'unknown' });
      expect((await energyOf(req.receiver)).limit).toBe(0);
      expect(await deliver(order)).toBe('delivered');
      expect((await energyOf(req.receiver)).limit).toBeGreaterThanOrEqual(energy);
    }, timeout);

    it('the same reference never orders twice, before or after delivery', async () => {
      const req = await request();
      const first = await s.provider.acquire(req, s.main);
      const second = await s.provider.acquire(req, s.main);
      expect(second).toEqual(first);
      expect(await deliver(first)).toBe('delivered');
      const third = await s.provider.acquire(req, s.main);
      expect(third).toEqual(first);
      // Carrying the repeats through too (a resumed worker would) must not add energy.
      expect(await deliver(second)).toBe('delivered');
      expect(await deliver(third)).toBe('delivered');
      await s.mine(1);
      const got = await energyOf(req.receiver);
      expect(got.available).toBeGreaterThanOrEqual(energy);
      expect(got.limit, 'energy was delivered twice').toBeLessThan(2 * energy);
    }, timeout);

    it('a reference reused for a different request is refused and orders nothing', async () => {
      const req = await request();
      await s.provider.acquire(req, s.main);
      const other = await s.newReceiver();
      await portError(s.provider.acquire({ ...req, receiver: other }, s.main));
      await portError(s.provider.acquire({ ...req, energy: energy + 1_000 }, s.main));
      await s.mine(2);
      expect((await energyOf(other)).limit).toBe(0);
    }, timeout);

    it('giving the energy back returns exactly what was delegated', async () => {
      const req = await request();
      const canBefore = await s.chain.getCanDelegateEnergySun(s.main.address);
      const order = await s.provider.acquire(req, s.main);
      expect(await deliver(order)).toBe('delivered');
      const received = (await energyOf(req.receiver)).receivedSun;
      if (order.kind === 'transaction') {
        // delegatedSun may be absent (port TSDoc); when present it is exactly what arrived.
        if (order.delegatedSun !== undefined) expect(received).toBe(order.delegatedSun);
        const delegated = order.delegatedSun ?? received;
        expect(await s.chain.getCanDelegateEnergySun(s.main.address)).toBe(canBefore - delegated);
        const back = await s.chain.prepare(s.main, { kind: 'undelegate', resource: 'ENERGY', receiver: req.receiver, amountSun: delegated });
        await s.chain.broadcast(back);
        await s.mine(1);
        expect((await s.chain.getTransaction(back.txid)).state).toBe('confirmed');
        expect(await s.chain.getCanDelegateEnergySun(s.main.address)).toBe(canBefore);
        expect(await energyOf(req.receiver)).toMatchObject({ limit: 0, receivedSun: 0n });
      } else if (options.rentalExpiryMs !== undefined && s.advance) {
        expect(received).toBeGreaterThan(0n);
        await s.advance(options.rentalExpiryMs);
        await s.mine(1);
        expect(await energyOf(req.receiver)).toMatchObject({ limit: 0, receivedSun: 0n });
      }
    }, timeout);

    const suite = `EnergyProvider contract: ${name}`;
    const itWithGrowth = itUnless(options.weightGrowthBps === undefined ? 'option weightGrowthBps not given: the provider claims no margin against a growing network energy weight' : null, suite);
    const itWithUncoverable = itUnless(options.uncoverableEnergy === undefined ? 'option uncoverableEnergy not given: no request size is known that the provider cannot cover' : null, suite);

    itWithGrowth('the delivered energy keeps covering the request while the network weight grows (the margin)', async () => {
      const req = await request();
      expect(await s.provider.canProvide(req, s.main)).toBe(true);
      expect(await deliver(await s.provider.acquire(req, s.main))).toBe('delivered');
      const before = await energyOf(req.receiver);
      const ratioBefore = await s.chain.energyPerStakedSun();
      await s.growEnergyWeight!(options.weightGrowthBps!);
      await s.mine(1);
      // The growth happened: the same delegation now yields less energy than it did, and still enough.
      expect(await s.chain.energyPerStakedSun()).toBeLessThan(ratioBefore);
      const after = await energyOf(req.receiver);
      expect(after.limit).toBeLessThan(before.limit);
      expect(after.available).toBeGreaterThanOrEqual(energy);
    }, timeout);

    it('orderStatus of an id it never issued fails as a port error', async () => {
      await portError(s.provider.orderStatus('no-such-order'));
    }, timeout);

    itWithUncoverable('a request it cannot cover: canProvide false, never delivered', async () => {
      const req = await request({ energy: options.uncoverableEnergy! });
      expect(await s.provider.canProvide(req, s.main)).toBe(false);
      const order = await s.provider.acquire(req, s.main).then((o) => o, (e: unknown) => e);
      if (order instanceof Error) {
        expect((await portError(Promise.reject(order))).code).toBe('BIZ-ENERGY-UNAVAILABLE');
        return;
      }
      // A provider may also refuse at delivery time (the chain rejects the delegation): that counts as failed.
      const outcome = await deliver(order as EnergyOrder).catch((e: unknown) =>
        e instanceof InfrastructureError || e instanceof DomainError ? ('failed' as const) : Promise.reject(e));
      expect(outcome).toBe('failed');
      expect((await energyOf(req.receiver)).limit).toBe(0);
    }, timeout);
  });
}
