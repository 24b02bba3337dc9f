/**
 * Both energy providers against the shared contract on the devnet, plus what only one adapter has: the sizing rule
 * of self-delegation and the rental client's failure mapping (a provider that is down or says no), which the
 * devnet's desk never does on its own.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError, InfrastructureError } from '../../core/domain/errors.js';
import { describeEnergyProviderContract } from '../../contracts-tests/energy-provider.contract.js';
import { devnetEnergySubject } from '../../contracts-tests/harness/tron-devnet.js';
import { RentalEnergyProvider } from './rental-energy-provider.js';
import { selfDelegationSun } from './self-delegation-energy-provider.js';

const HOUR = 3_600_000;

describeEnergyProviderContract('SelfDelegationEnergyProvider on the devnet', () => devnetEnergySubject('self'), {
  // 20,000 TRX of stake yields ≈ 200,000 energy: a million is out of reach.
  uncoverableEnergy: 1_000_000,
});

describeEnergyProviderContract('RentalEnergyProvider on the devnet', () => devnetEnergySubject('rental', { durationHours: 1, maxPriceSun: 100_000_000n }), {
  // The desk's pool stakes 5,000,000 TRX (≈ 50 M energy); 80 M is above both the price ceiling and the pool.
  uncoverableEnergy: 80_000_000,
  rentalExpiryMs: HOUR + 3_000,
});

describe('SelfDelegationEnergyProvider references across expiry (adapter-only: needs time travel and its own memory)', () => {
  it('an expired, never-sent delegation is re-signed; one that landed keeps being returned', async () => {
    const s = await devnetEnergySubject('self');
    try {
      const req = { receiver: await s.newReceiver(), energy: 65_000, reference: 'sweep-1' };
      const lost = await s.provider.acquire(req, s.main);
      await s.advance!(120_000);
      const fresh = await s.provider.acquire(req, s.main);
      expect(fresh.kind === 'transaction' && lost.kind === 'transaction' && fresh.tx.txid !== lost.tx.txid).toBe(true);
      if (fresh.kind !== 'transaction') return;
      await s.chain.broadcast(fresh.tx);
      await s.mine(1);
      await s.advance!(120_000);
      expect(await s.provider.acquire(req, s.main)).toEqual(fresh);
      expect((await s.chain.getResources(req.receiver)).energy.receivedSun).toBe(fresh.delegatedSun);
    } finally {
      await s.close?.();
    }
  });
});

describe('selfDelegationSun', () => {
  it('is the least whole-TRX stake whose floored energy covers the request (at least 1 TRX)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5_000_000 }), fc.double({ min: 1e-7, max: 1e-3, noNaN: true }), (energy, perSun) => {
        const sun = selfDelegationSun(energy, perSun);
        const trx = Number(sun / 1_000_000n);
        // The same floating-point expression as the rule, so float rounding cannot make the oracle disagree.
        const perTrx = perSun * 1_000_000;
        expect(sun % 1_000_000n).toBe(0n);
        expect(trx).toBeGreaterThanOrEqual(1);
        expect(Math.floor(trx * perTrx)).toBeGreaterThanOrEqual(energy);
        if (trx > 1) expect(Math.floor((trx - 1) * perTrx)).toBeLessThan(energy);
      }),
      { numRuns: 200 },
    );
  });

  it('rejects a non-positive request or ratio', () => {
    for (const [energy, ratio] of [[0, 1e-5], [-1, 1e-5], [1.5, 1e-5], [10, 0], [10, Number.NaN]] as const) {
      expect(() => selfDelegationSun(energy, ratio)).toThrow(RangeError);
    }
  });
});

describe('RentalEnergyProvider failure mapping (adapter-only: the devnet desk is never down and never refuses)', () => {
  const main = { address: 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy', privateKey: async () => '' };
  const request = { receiver: 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy', energy: 65_000, reference: 'ref-1' };
  const replying = (status: number, body: unknown): typeof fetch =>
    (async () => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status })) as typeof fetch;

  it('an unreachable provider is a transient SERVICE-UNAVAILABLE that names no secret header', async () => {
    const failing = (async () => {
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    }) as typeof fetch;
    const p = new RentalEnergyProvider({ baseUrl: 'http://127.0.0.1:1', headers: { 'x-api-key': 'secret-key' }, fetch: failing });
    for (const call of [p.canProvide(request, main), p.acquire(request, main), p.orderStatus('o1')]) {
      const e = await call.then(() => undefined, (x: unknown) => x);
      expect(e).toBeInstanceOf(InfrastructureError);
      expect((e as InfrastructureError).code).toBe('SERVICE-UNAVAILABLE');
      expect((e as InfrastructureError).transient).toBe(true);
      expect((e as Error).message).not.toContain('secret-key');
    }
  });

  it('5xx and 429 are transient; a refusal (4xx) makes canProvide false and acquire BIZ-ENERGY-UNAVAILABLE', async () => {
    for (const status of [500, 503, 429]) {
      const e = await new RentalEnergyProvider({ baseUrl: 'http://x', fetch: replying(status, {}) }).acquire(request, main).catch((x: unknown) => x);
      expect(e).toMatchObject({ code: 'SERVICE-UNAVAILABLE', transient: true });
    }
    const refusing = new RentalEnergyProvider({ baseUrl: 'http://x', fetch: replying(409, { error: 'reference reused' }) });
    expect(await refusing.canProvide(request, main)).toBe(false);
    const e = await refusing.acquire(request, main).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DomainError);
    expect((e as DomainError).code).toBe('BIZ-ENERGY-UNAVAILABLE');
    expect((e as DomainError).message).toContain('reference reused');
  });

  it('a malformed reply is a non-transient SERVICE-UNAVAILABLE, and a quote above the ceiling is declined', async () => {
    const garbled = new RentalEnergyProvider({ baseUrl: 'http://x', fetch: replying(200, 'not json') });
    expect(await garbled.acquire(request, main).catch((x: unknown) => x)).toMatchObject({ code: 'SERVICE-UNAVAILABLE', transient: false });
    const noStatus = new RentalEnergyProvider({ baseUrl: 'http://x', fetch: replying(200, { status: 'teleported' }) });
    expect(await noStatus.orderStatus('o1').catch((x: unknown) => x)).toMatchObject({ code: 'SERVICE-UNAVAILABLE', transient: false });
    const pricey = new RentalEnergyProvider({ baseUrl: 'http://x', maxPriceSun: 1_000n, fetch: replying(200, { price_sun: 1_001 }) });
    expect(await pricey.canProvide(request, main)).toBe(false);
    const fair = new RentalEnergyProvider({ baseUrl: 'http://x', maxPriceSun: 1_000n, fetch: replying(200, { price_sun: '1000' }) });
    expect(await fair.canProvide(request, main)).toBe(true);
  });
});
