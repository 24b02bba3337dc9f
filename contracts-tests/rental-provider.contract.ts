import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError, InfrastructureError } from '../core/domain/errors.js';
import type { ChainGateway, Signer } from '../core/ports/chain-gateway.port.js';
import type { EnergyOrder, EnergyProvider, EnergyQuote, EnergyRequest } from '../core/ports/energy-provider.port.js';

/**
 * What the rental-provider contract needs: a rental adapter (EnergyProvider with `quote`) against a provider it can
 * watch — the provider's account balance, the chain the energy lands on — and a few levers on the provider's market.
 */
export interface RentalProviderSubject {
  /** The adapter under test, configured as in production. */
  readonly provider: EnergyProvider;
  /** Another instance with the same credentials and no memory: a restarted process. */
  fresh(): EnergyProvider;
  /**
   * Instances whose credentials the provider refuses: a wrong key is refused on every call; a signed API's wrong
   * secret only where it signs (`orders`: placing an order).
   */
  badCredentials(): Array<{ readonly provider: EnergyProvider; readonly refusedOn: 'every call' | 'orders' }>;
  /** An instance that sends a request under the provider's minimum as it is, instead of ordering the minimum. */
  unrounded(): EnergyProvider;
  /** The provider's minimum order, in energy. */
  readonly minimumEnergy: number;
  readonly chain: ChainGateway;
  /** An activated address with no energy, new for each call. */
  newReceiver(): Promise<string>;
  /** An address that does not exist on chain: a delegation to it fails. */
  newInactiveReceiver(): Promise<string>;
  /** Lets `blocks` more blocks be produced. */
  mine(blocks: number): Promise<void>;
  /** The paying account's balance at the provider, in SUN. */
  balance(): Promise<bigint>;
  /** Capability: the market can fill only `energy` now (null: plenty), and an instance that accepts part fills. */
  readonly partial?: { readonly provider: EnergyProvider; limitSupply(energy: number | null): Promise<void> };
  /** Capability: delegations land `ms` of chain time after the order. */
  setDeliveryDelay?(ms: number): Promise<void>;
  close?(): Promise<void>;
}

/** Options of {@link describeRentalProviderContract}. */
export interface RentalProviderContractOptions {
  /** Energy of the ordinary request (default 65,000). */
  readonly energy?: number;
  /** Blocks a delivery may take at the provider's normal pace (default 5). */
  readonly maxBlocks?: number;
  readonly timeoutMs?: number;
}

/** Rentals never use the main address; any signer will do. */
const NO_MAIN: Signer = { address: 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb', privateKey: async () => { throw new Error('a rental never signs'); } };

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(() => { throw new Error('expected a failure'); }, (e: unknown) => e);
}

/**
 * The rental-provider contract (beside the EnergyProvider contract, which every rental also passes): quotes that
 * price what is ordered, orders that deliver on chain, repeated references that never buy twice (even from a new
 * process), minimums, partial fills, slow delivery, failure with refund, and refused credentials that buy nothing.
 */
export function describeRentalProviderContract(
  name: string,
  makeSubject: () => RentalProviderSubject | Promise<RentalProviderSubject>,
  options: RentalProviderContractOptions = {},
): void {
  const energy = options.energy ?? 65_000;
  const maxBlocks = options.maxBlocks ?? 5;
  const timeout = options.timeoutMs ?? 30_000;

  describe(`Rental provider contract: ${name}`, () => {
    let s: RentalProviderSubject;
    let seq = 0;
    beforeEach(async () => {
      s = await makeSubject();
    }, timeout);
    afterEach(async () => {
      await s.close?.();
    });

    const request = async (overrides: Partial<EnergyRequest> = {}): Promise<EnergyRequest> =>
      ({ receiver: overrides.receiver ?? (await s.newReceiver()), energy, reference: `rental-${++seq}-${name}`, ...overrides });
    const quoteOf = async (p: EnergyProvider, req: EnergyRequest): Promise<EnergyQuote | null> => {
      expect(p.quote, 'a rental adapter prices requests').toBeTypeOf('function');
      return p.quote!(req, NO_MAIN);
    };
    const orderId = (order: EnergyOrder): string => {
      expect(order.kind).toBe('order');
      return (order as { orderId: string }).orderId;
    };
    /** Polls the order once per block until it is no longer pending (or `blocks` pass). */
    const settle = async (p: EnergyProvider, id: string, blocks = maxBlocks): Promise<string> => {
      for (let i = 0; i <= blocks; i++) {
        const status = await p.orderStatus(id);
        if (status !== 'pending') return status;
        await s.mine(1);
      }
      return 'pending';
    };
    const energyOf = async (address: string) => (await s.chain.getResources(address)).energy;

    it('quotes a price for at least the request, more for more energy, and charges no more than it quoted', async () => {
      const req = await request();
      const quote = await quoteOf(s.provider, req);
      expect(quote).not.toBeNull();
      expect(quote!.priceSun).toBeGreaterThan(0n);
      expect(quote!.energy).toBeGreaterThanOrEqual(energy);
      expect(quote!.provider).toMatch(/\S/);
      expect((await quoteOf(s.provider, { ...req, energy: 2 * energy }))!.priceSun).toBeGreaterThan(quote!.priceSun);
      expect(await s.provider.canProvide(req, NO_MAIN)).toBe(true);
      const before = await s.balance();
      const id = orderId(await s.provider.acquire(req, NO_MAIN));
      const charged = before - (await s.balance());
      expect(charged).toBeGreaterThan(0n);
      expect(charged).toBeLessThanOrEqual(quote!.priceSun);
      expect(await settle(s.provider, id)).toBe('delivered');
      expect((await energyOf(req.receiver)).available).toBeGreaterThanOrEqual(energy);
    }, timeout);

    it('a repeated reference returns the first order, from this instance and from a restarted one, and is paid once', async () => {
      const req = await request();
      const before = await s.balance();
      const first = orderId(await s.provider.acquire(req, NO_MAIN));
      const paid = before - (await s.balance());
      expect(orderId(await s.provider.acquire(req, NO_MAIN))).toBe(first);
      expect(orderId(await s.fresh().acquire(req, NO_MAIN))).toBe(first);
      expect(await settle(s.provider, first)).toBe('delivered');
      expect(orderId(await s.fresh().acquire(req, NO_MAIN))).toBe(first);
      expect(before - (await s.balance())).toBe(paid);
      expect((await energyOf(req.receiver)).limit, 'energy was delivered twice').toBeLessThan(2 * energy);
    }, timeout);

    it('a request under the minimum is ordered at the minimum; sent as it is, the provider refuses it and nothing is paid', async () => {
      const small = await request({ energy: Math.max(1, Math.floor(s.minimumEnergy / 2)) });
      const quote = await quoteOf(s.provider, small);
      expect(quote?.energy).toBe(s.minimumEnergy);
      const before = await s.balance();
      const raw = s.unrounded();
      expect(await quoteOf(raw, small)).toBeNull();
      expect(await raw.canProvide(small, NO_MAIN)).toBe(false);
      expect(await failure(raw.acquire(small, NO_MAIN))).toMatchObject({ code: 'BIZ-ENERGY-UNAVAILABLE' });
      expect(await s.balance()).toBe(before);
      const id = orderId(await s.provider.acquire(small, NO_MAIN));
      expect(await settle(s.provider, id)).toBe('delivered');
      expect((await energyOf(small.receiver)).available).toBeGreaterThanOrEqual(s.minimumEnergy);
    }, timeout);

    it('a market short of energy fills part now (pending), the rest when supply returns', async () => {
      if (s.partial === undefined) return;
      const req = await request();
      await s.partial.limitSupply(Math.floor(energy * 0.4));
      const id = orderId(await s.partial.provider.acquire(req, NO_MAIN));
      await s.mine(maxBlocks);
      expect(await s.partial.provider.orderStatus(id)).toBe('pending');
      const part = await energyOf(req.receiver);
      expect(part.limit).toBeGreaterThan(0);
      expect(part.limit).toBeLessThan(energy);
      await s.partial.limitSupply(null);
      expect(await settle(s.partial.provider, id)).toBe('delivered');
      expect((await energyOf(req.receiver)).available).toBeGreaterThanOrEqual(energy);
    }, timeout);

    it('slow delivery: the order stays pending, with no energy on chain, until the provider delegates', async () => {
      if (s.setDeliveryDelay === undefined) return;
      await s.setDeliveryDelay(60_000);
      const req = await request();
      const id = orderId(await s.provider.acquire(req, NO_MAIN));
      await s.mine(10);
      expect(await s.provider.orderStatus(id)).toBe('pending');
      expect((await energyOf(req.receiver)).limit).toBe(0);
      expect(await settle(s.provider, id, 20)).toBe('delivered');
      expect((await energyOf(req.receiver)).available).toBeGreaterThanOrEqual(energy);
    }, timeout);

    it('a delivery the chain refuses (receiver not activated) ends failed, and the provider refunds the payment', async () => {
      const req = await request({ receiver: await s.newInactiveReceiver() });
      const before = await s.balance();
      const id = orderId(await s.provider.acquire(req, NO_MAIN));
      expect(await s.balance()).toBeLessThan(before);
      expect(await settle(s.provider, id)).toBe('failed');
      expect(await s.balance()).toBe(before);
    }, timeout);

    it('refused credentials fail as non-transient port errors (a wrong key on every call, a wrong secret on orders), buying nothing', async () => {
      const req = await request();
      const before = await s.balance();
      for (const { provider: bad, refusedOn } of s.badCredentials()) {
        const reads = refusedOn === 'every call' ? [() => bad.quote!(req, NO_MAIN), () => bad.canProvide(req, NO_MAIN)] : [];
        for (const call of [...reads, () => bad.acquire(req, NO_MAIN)]) {
          const e = await failure(call());
          expect(e).toBeInstanceOf(InfrastructureError);
          expect(e).toMatchObject({ transient: false });
          expect(e instanceof DomainError).toBe(false);
        }
      }
      await s.mine(2);
      expect(await s.balance()).toBe(before);
      expect((await energyOf(req.receiver)).limit).toBe(0);
    }, timeout);
  });
}
