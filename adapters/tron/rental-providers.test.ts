/**
 * The rental adapters (TronSave, itrx) and the rental market against the EnergyProvider and rental-provider
 * contracts on the devnet's simulations of both APIs. Beside them, what the shared suites cannot reach: itrx's
 * signature (the documented known answer) and TIMESTAMP window, replies a simulation gives only when told to (429,
 * 5xx, garbage, an unreachable host), secrets kept out of messages, and the market's choice (price, cap, fallback,
 * a reference never bought twice) on stub providers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DomainError, InfrastructureError } from '../../core/domain/errors.js';
import type { EnergyQuote, EnergyRequest } from '../../core/ports/energy-provider.port.js';
import { describeEnergyProviderContract } from '../../contracts-tests/energy-provider.contract.js';
import { describeRentalProviderContract } from '../../contracts-tests/rental-provider.contract.js';
import { devnetEnergySubject, devnetRentalMarket, devnetRentalProvider, devnetRentalSubject } from '../../contracts-tests/harness/tron-devnet.js';
import { startDevnet, type Devnet } from '../tron-devnet/index.js';
import { createDevnetChainGateway } from './devnet-chain-gateway.js';
import { canonicalJson, ItrxEnergyProvider, itrxSignature, outTradeNo } from './rental-itrx-energy-provider.js';
import { declined, type RentalEnergySource } from './rental-http.js';
import { RentalMarketEnergyProvider } from './rental-market.js';
import { TronSaveEnergyProvider } from './rental-tronsave-energy-provider.js';

const HOUR = 3_600_000;
const NO_MAIN = { address: 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb', privateKey: async () => '' };
// Both simulations refuse more than 100 M energy (TronSave's supply, itrx's maximum order).
const contract = { uncoverableEnergy: 200_000_000 };

describeEnergyProviderContract('TronSaveEnergyProvider on the devnet simulation', () => devnetEnergySubject('tronsave'), {
  ...contract, rentalExpiryMs: HOUR + 600_000 + 3_000, // one hour plus at most the 600 s reference tag
});
describeEnergyProviderContract('ItrxEnergyProvider on the devnet simulation', () => devnetEnergySubject('itrx'), { ...contract, rentalExpiryMs: HOUR + 6_000 });
describeEnergyProviderContract('RentalMarketEnergyProvider over both simulations', () => devnetEnergySubject('market'), {
  ...contract, rentalExpiryMs: HOUR + 600_000 + 6_000,
});
describeRentalProviderContract('TronSaveEnergyProvider on the devnet simulation', () => devnetRentalSubject('tronsave'));
describeRentalProviderContract('ItrxEnergyProvider on the devnet simulation', () => devnetRentalSubject('itrx'));

describe('itrx signing (adapter-only: the known answer of itrx\'s signing page)', () => {
  it('signs `${timestamp}&${sorted compact JSON}` with HMAC-SHA256 under the secret', () => {
    const body = {
      receive_address: 'TExWKszFWYTKZH8LYiovAPKzS3L9MLZ4kw', period: '1D', out_trade_no: '123456', energy_amount: 32000,
      callback_url: 'http://{mydomain}/callback',
    };
    expect(itrxSignature('0285A2741D0E76E2E187260EB23E51851D48403A756333E7D0CF845406ABF3E8', '1686796826', body))
      .toBe('07c125cabfe006614a02131f927cca9e7a654f7644a817b155fad591e1c50f7b');
    expect(canonicalJson({ b: 1, a: 'é', c: { z: 1, y: [2] } })).toBe('{"a":"\\u00e9","b":1,"c":{"y":[2],"z":1}}');
  });

  it('out_trade_no is the reference when short and plain, else a stable digest of it', () => {
    expect(outTradeNo('CT-2025_01')).toBe('CT-2025_01');
    const long = outTradeNo('collection:CT20250101000000000001:energy');
    expect(long).toMatch(/^r[0-9a-f]{31}$/);
    expect(outTradeNo('collection:CT20250101000000000001:energy')).toBe(long);
  });
});

describe('rental adapters on a devnet (adapter-only: levers the shared suites do not pull)', () => {
  let devnet: Devnet | undefined;
  afterEach(async () => {
    await devnet?.close();
    devnet = undefined;
  });
  const receiver = async (d: Devnet): Promise<string> => {
    const { address } = await createDevnetChainGateway(d).createAccount();
    d.fund(address, 1_000_000);
    return address;
  };

  it('itrx: with a TIMESTAMP window, a clock that agrees with the chain is accepted and a skewed one is refused', async () => {
    devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'itrx-window' });
    devnet.itrx.configure({ timestampWindowSec: 30 });
    const request: EnergyRequest = { receiver: await receiver(devnet), energy: 65_000, reference: 'window-1' };
    const skewed = new ItrxEnergyProvider({
      baseUrl: devnet.url, apiKey: 'D0E5A1B2C3D4E5F6A7B8C9D0E1F2A3B4', apiSecret: 'DE7E7DE7E7DE7E7DE7E7DE7E7DE7E7DE7E7DE7E7DE7E7DE7E7DE7E7DE7E7DE7E',
      clock: { now: () => devnet!.chain.now + 600_000 },
    });
    expect(await skewed.acquire(request, NO_MAIN).catch((e: unknown) => e)).toMatchObject({ transient: false, message: expect.stringContaining('refused') });
    const order = await devnetRentalProvider(devnet, 'itrx').acquire(request, NO_MAIN);
    expect(order.kind).toBe('order');
  });

  it('429 and 5xx from either simulation are transient; the next call goes through', async () => {
    devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'rental-outage' });
    const request: EnergyRequest = { receiver: await receiver(devnet), energy: 65_000, reference: 'outage-1' };
    devnet.configureRental({ tronsave: { failNext: [429, 503] }, itrx: { failNext: [500] } });
    for (const kind of ['tronsave', 'tronsave', 'itrx'] as const) {
      expect(await devnetRentalProvider(devnet, kind).quote(request).catch((e: unknown) => e)).toMatchObject({ code: 'SERVICE-UNAVAILABLE', transient: true });
    }
    expect(await devnetRentalProvider(devnet, 'tronsave').quote(request)).not.toBeNull();
    expect(await devnetRentalProvider(devnet, 'itrx').quote(request)).not.toBeNull();
  });

  it('TronSave: two references for the same receiver and amount are two orders (the duration carries the reference)', async () => {
    devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'tronsave-tags' });
    const to = await receiver(devnet);
    const p = devnetRentalProvider(devnet, 'tronsave');
    const a = await p.acquire({ receiver: to, energy: 65_000, reference: 'sweep-a' }, NO_MAIN);
    const b = await devnetRentalProvider(devnet, 'tronsave').acquire({ receiver: to, energy: 65_000, reference: 'sweep-b' }, NO_MAIN);
    expect(a).not.toEqual(b);
    const durations = [a, b].map((o) => devnet!.tronsave.order((o as { orderId: string }).orderId.slice('tronsave:'.length))?.durationSec);
    expect(durations[0]).toBeDefined();
    expect(durations[0]).not.toBe(durations[1]);
    expect(await new TronSaveEnergyProvider({ baseUrl: devnet.url, apiKey: 'devnet-tronsave-api-key', referenceTagSec: 0 })
      .quote({ receiver: to, energy: 65_000, reference: 'x' })).toMatchObject({ durationSec: 3_600 });
  });

  it('itrx: a restarted process that reuses a reference for other terms is refused (the first order says so)', async () => {
    devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'itrx-reuse' });
    const request: EnergyRequest = { receiver: await receiver(devnet), energy: 65_000, reference: 'reuse-1' };
    await devnetRentalProvider(devnet, 'itrx').acquire(request, NO_MAIN);
    const e = await devnetRentalProvider(devnet, 'itrx').acquire({ ...request, energy: 70_000 }, NO_MAIN).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DomainError);
    expect((e as DomainError).code).toBe('VALIDATION-ERROR');
  });

  it('the market over both simulations buys from the cheaper one, and follows the price when it moves', async () => {
    devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'market-price' });
    const market = devnetRentalMarket(devnet);
    const first = await market.acquire({ receiver: await receiver(devnet), energy: 65_000, reference: 'm-1' }, NO_MAIN);
    expect(first).toMatchObject({ orderId: expect.stringMatching(/^tronsave:/) });
    devnet.configureRental({ itrx: { prices: { '1H': 20 } } });
    const second = await market.acquire({ receiver: await receiver(devnet), energy: 65_000, reference: 'm-2' }, NO_MAIN);
    expect(second).toMatchObject({ orderId: expect.stringMatching(/^itrx:/) });
    expect(await devnetRentalMarket(devnet, { maxPriceSun: 1_000_000n }).quote({ receiver: NO_MAIN.address, energy: 65_000, reference: 'm-3' })).toBeNull();
  });
});

describe('failure mapping without a provider (adapter-only: a host that is down or answers garbage)', () => {
  const request: EnergyRequest = { receiver: 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy', energy: 65_000, reference: 'ref-1' };
  const secrets = { apiKey: 'secret-key-123', apiSecret: 'secret-hmac-456' };
  const adapters = (f: typeof fetch) => [
    new TronSaveEnergyProvider({ baseUrl: 'http://x', apiKey: secrets.apiKey, fetch: f }),
    new ItrxEnergyProvider({ baseUrl: 'http://x', ...secrets, fetch: f, clock: { now: () => 0 } }),
  ];
  const replying = (status: number, body: string): typeof fetch => (async () => new Response(body, { status })) as typeof fetch;

  it('an unreachable provider is a transient SERVICE-UNAVAILABLE naming no secret', async () => {
    const down = (async () => { throw new TypeError('fetch failed'); }) as typeof fetch;
    for (const p of adapters(down)) {
      for (const call of [() => p.quote(request), () => p.canProvide(request, NO_MAIN), () => p.acquire(request, NO_MAIN), () => p.orderStatus(`${p.provider}:o1`)]) {
        const e = await call().then(() => undefined, (x: unknown) => x);
        expect(e).toMatchObject({ code: 'SERVICE-UNAVAILABLE', transient: true });
        expect((e as Error).message).not.toMatch(/secret-/);
      }
    }
  });

  it('429 and 5xx are transient; a non-JSON reply is non-transient; an id of another provider is refused', async () => {
    for (const status of [429, 500, 502]) {
      for (const p of adapters(replying(status, 'busy'))) expect(await p.quote(request).catch((x: unknown) => x)).toMatchObject({ transient: true });
    }
    for (const p of adapters(replying(200, '<html>'))) expect(await p.quote(request).catch((x: unknown) => x)).toMatchObject({ transient: false });
    for (const p of adapters(replying(200, '{}'))) {
      const e = await p.orderStatus('other:o1').catch((x: unknown) => x);
      expect(e).toBeInstanceOf(InfrastructureError);
      expect(e).toMatchObject({ transient: false });
    }
  });
});

describe('RentalMarketEnergyProvider choice (adapter-only: stub providers script every answer)', () => {
  const request: EnergyRequest = { receiver: 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy', energy: 65_000, reference: 'sweep-1' };
  /** A stub provider: its price (null = none), what acquire and findOrder do, and a log of purchases. */
  const stub = (provider: string, price: bigint | null, behave: { acquire?: () => Promise<never>; find?: () => Promise<string | null> } = {}) => {
    const bought: string[] = [];
    const quote = async (): Promise<EnergyQuote | null> => (price === null ? null : { priceSun: price, energy: 65_000, provider, durationSec: 3_600 });
    const source: RentalEnergySource & { bought: string[] } = {
      name: 'rental', provider, bought, quote, offer: quote,
      canProvide: async () => price !== null,
      findOrder: behave.find ?? (async () => null),
      acquire: behave.acquire ?? (async (r) => { bought.push(r.reference); return { kind: 'order', orderId: `${provider}:${r.reference}` }; }),
      orderStatus: async (id) => (id.startsWith(`${provider}:`) ? 'delivered' : 'failed'),
    };
    return source;
  };

  it('buys from the cheapest; equal prices go to the first configured; nothing within the cap is BIZ-ENERGY-UNAVAILABLE', async () => {
    const [a, b] = [stub('a', 3_000_000n), stub('b', 2_000_000n)];
    expect(await new RentalMarketEnergyProvider([a, b]).acquire(request, NO_MAIN)).toEqual({ kind: 'order', orderId: 'b:sweep-1' });
    const [c, d] = [stub('c', 2_000_000n), stub('d', 2_000_000n)];
    expect(await new RentalMarketEnergyProvider([c, d]).quote(request)).toMatchObject({ provider: 'c' });
    const capped = new RentalMarketEnergyProvider([stub('e', 3_000_000n)], { maxPriceSun: 2_999_999n });
    expect(await capped.canProvide(request, NO_MAIN)).toBe(false);
    expect(await capped.acquire(request, NO_MAIN).catch((x: unknown) => x)).toMatchObject({ code: 'BIZ-ENERGY-UNAVAILABLE' });
  });

  it('falls back when the cheapest declines, but never after a failure that may have bought', async () => {
    const cheap = stub('cheap', 1n, { acquire: async () => { throw declined('cheap', 'CANNOT_FULFILLED'); } });
    const dear = stub('dear', 9n);
    expect(await new RentalMarketEnergyProvider([cheap, dear]).acquire(request, NO_MAIN)).toMatchObject({ orderId: 'dear:sweep-1' });
    const lost = stub('lost', 1n, { acquire: async () => { throw new InfrastructureError('SERVICE-UNAVAILABLE', 'timed out'); } });
    const other = stub('other', 9n);
    expect(await new RentalMarketEnergyProvider([lost, other]).acquire(request, NO_MAIN).catch((x: unknown) => x)).toMatchObject({ transient: true });
    expect(other.bought).toEqual([]);
  });

  it('a reference any provider already sold is returned; a provider that cannot be asked stops the purchase', async () => {
    const seller = stub('s', 9n, { find: async () => 's:earlier' });
    const cheaper = stub('c', 1n);
    expect(await new RentalMarketEnergyProvider([cheaper, seller]).acquire(request, NO_MAIN)).toEqual({ kind: 'order', orderId: 's:earlier' });
    expect(cheaper.bought).toEqual([]);
    const mute = stub('m', 9n, { find: async () => { throw new InfrastructureError('SERVICE-UNAVAILABLE', 'down'); } });
    const c2 = stub('c2', 1n);
    expect(await new RentalMarketEnergyProvider([c2, mute]).acquire(request, NO_MAIN).catch((x: unknown) => x)).toBeInstanceOf(InfrastructureError);
    expect(c2.bought).toEqual([]);
  });

  it('asks the issuing provider for an order\'s status; an id no provider issued is a port error', async () => {
    const market = new RentalMarketEnergyProvider([stub('a', 1n), stub('b', 1n)]);
    expect(await market.orderStatus('b:x')).toBe('delivered');
    expect(await market.orderStatus('zz:x').catch((x: unknown) => x)).toMatchObject({ transient: false });
    expect(() => new RentalMarketEnergyProvider([stub('a', 1n), stub('a', 2n)])).toThrow(RangeError);
  });
});
