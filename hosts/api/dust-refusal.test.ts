import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { TOKENS } from '../composition/tokens.js';
import { startComposedWorker } from '../worker/compose-worker.js';
import { expectAnswersDocumented, expectDocumented, fails, ok, userWithWallets } from './api-test-fixtures.js';
import { startHarness, type ApiHarness } from './test-harness.js';

type User = Awaited<ReturnType<typeof userWithWallets>>;

/**
 * Issue #24 item 5 over real HTTP: a balance a sweep cannot move is refused with 422 BIZ-AMOUNT-BELOW-MINIMUM on
 * POST /collections and POST /cashier/collect before any task exists, and GET /cashier/collectable offers it as 0.
 * Every answer is checked against the OpenAPI document (expectAnswersDocumented), the new 422 included.
 */
describe('dust is never offered (issue #24 item 5)', () => {
  let h: ApiHarness;
  const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });
  const create = (u: User, asset_symbol: string) =>
    h.call('POST', '/api/collections', { token: u.apiToken, headers: key(), body: { address: u.sub, asset_symbol } });
  const collect = (ct: string, asset_symbol: string) => h.call('POST', '/api/cashier/collect', { token: ct, headers: key(), body: { asset_symbol } });
  const collections = async (u: User): Promise<number> => ok(await h.call('GET', '/api/commands?type=3', { token: u.apiToken })).pagination.total;
  const refresh = async (u: User): Promise<void> => {
    ok(await h.call('POST', `/api/wallets/${u.sub}/balances/refresh`, { token: u.apiToken, body: { force: true } }));
  };
  const offered = async (ct: string): Promise<string[][]> => {
    const data = ok(await h.call('GET', '/api/cashier/collectable', { token: ct }));
    expectDocumented(h, 'GET', '/api/cashier/collectable', data);
    return data.items.map((i: Record<string, string>) => [i['symbol'], i['balance_available'], i['balance_collectable']]);
  };

  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('no USDT, 1 SUN and 99,999 SUN of TRX: 422 on both routes with a message that says why; nothing is made; 0.1 TRX is taken', async () => {
    const u = await userWithWallets(h);
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: u.apiToken, body: { address: u.sub } }), 201).token as string;
    h.devnet.fund(u.sub, 1);
    await refresh(u);
    for (const asset of ['USDT', 'TRX']) {
      const refused = await create(u, asset);
      fails(refused, 422, 'BIZ-AMOUNT-BELOW-MINIMUM');
      expect(refused.json.message).toMatch(asset === 'TRX' ? /at least 100000 after fees and the address holds 1\b/ : /holds no USDT/);
      fails(await collect(ct, asset), 422, 'BIZ-AMOUNT-BELOW-MINIMUM');
    }
    expect(await offered(ct)).toEqual([['TRX', '1', '0'], ['USDT', '0', '0']]);
    h.devnet.fund(u.sub, 99_998);
    await refresh(u);
    fails(await create(u, 'TRX'), 422, 'BIZ-AMOUNT-BELOW-MINIMUM');
    fails(await collect(ct, 'TRX'), 422, 'BIZ-AMOUNT-BELOW-MINIMUM');
    expect(await collections(u)).toBe(0);
    expect(ok(await h.call('GET', '/api/cashier/task', { token: ct }))).toBeNull();

    h.devnet.fund(u.sub, 1);
    await refresh(u);
    expect(await offered(ct)).toEqual([['TRX', '100000', '100000'], ['USDT', '0', '0']]);
    expect(ok(await collect(ct, 'TRX'), 201).status).toBe(1);
    expect(await collections(u)).toBe(1);
  });

  it('0.2 TRX on a sub-address whose free bandwidth is spent (the transfer would burn 0.3 TRX) is refused on both routes; once it is back, taken', async () => {
    const u = await userWithWallets(h);
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: u.apiToken, body: { address: u.sub } }), 201).token as string;
    // The sub-address spends most of its 600 free bytes on two transfers of its own, keeping 199,999 SUN.
    h.devnet.fund(u.sub, 1_000_000);
    h.devnet.mine(1);
    const chain = h.container.get(TOKENS.Chain);
    const wallet = (await h.container.get(TOKENS.Stores).wallets.findByAddress(u.sub))!;
    const key = new TextDecoder().decode(await h.container.get(TOKENS.Cipher).decrypt(wallet.encryptedKey, u.sub));
    const away = (await chain.createAccount()).address;
    h.devnet.fund(away, 1);
    h.devnet.mine(1);
    for (const amountSun of [800_000n, 1n]) {
      await chain.broadcast(await chain.prepare({ address: u.sub, privateKey: async () => key }, { kind: 'transfer-trx', to: away, amountSun }));
      h.devnet.mine(1);
    }
    expect((await chain.getResources(u.sub)).bandwidth.freeAvailable).toBeLessThan(300);
    await refresh(u);
    // The cache alone would offer it: 199,999 SUN clears 0.1 TRX with the fee at its least.
    expect(await offered(ct)).toEqual([['TRX', '199999', '199999'], ['USDT', '0', '0']]);
    const refused = await create(u, 'TRX');
    fails(refused, 422, 'BIZ-AMOUNT-BELOW-MINIMUM');
    expect(refused.json.message).toMatch(/no free bandwidth/);
    fails(await collect(ct, 'TRX'), 422, 'BIZ-AMOUNT-BELOW-MINIMUM');
    expect(await collections(u)).toBe(0);
    // A day later the free bytes are back: the transfer burns nothing, and the collection is taken.
    h.devnet.advance(24 * 3_600_000);
    h.devnet.mine(1);
    expect(ok(await collect(ct, 'TRX'), 201).status).toBe(1);
    expect(await collections(u)).toBe(1);
  });

  it('the spec\'s GET /cashier/balance keeps exactly its fields; only the extension route carries balance_collectable', async () => {
    const u = await userWithWallets(h);
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: u.apiToken, body: { address: u.sub } }), 201).token as string;
    const balance = ok(await h.call('GET', '/api/cashier/balance', { token: ct }));
    expect(balance.items.map((i: object) => Object.keys(i).sort())).toEqual([
      ['balance_available', 'balance_locked', 'balance_updated_at', 'symbol'], ['balance_available', 'balance_locked', 'balance_updated_at', 'symbol'],
    ]);
    const collectable = ok(await h.call('GET', '/api/cashier/collectable', { token: ct }));
    expect(collectable.items.map((i: Record<string, unknown>) => { const { balance_collectable: _offered, ...spec } = i; return spec; })).toEqual(balance.items);
  });

  it('after a real sweep on the devnet, the 1 SUN its activation funding left is refused with 422: no task, command or event', async () => {
    const u = await userWithWallets(h);
    h.devnet.fund(u.main, 21_000_000_000);
    h.devnet.fundToken(u.sub, 5_000_000n);
    await refresh(u);
    const composition = { container: h.container, adminToken: h.adminToken, ephemeralKey: false, close: async () => {} };
    const worker = startComposedWorker(composition, {}, { manual: true, collection: { confirmations: 1 } });
    const tasks = h.container.get(TOKENS.Stores).tasks;
    const until = async (done: () => Promise<boolean>): Promise<void> => {
      for (let round = 0; round < 60 && !(await done()); round++) {
        await worker.tick();
        h.devnet.mine(1);
        h.clock.advance(3_000);
      }
    };
    const deliveries = async (): Promise<string[]> =>
      ok(await h.call('GET', '/api/webhooks/deliveries', { token: u.session })).items.map((d: { event_type: string }) => d.event_type);
    try {
      // The main address stakes for energy, so that the sweep delegates it (the path that activates the sub-address with 1 SUN).
      const stake = ok(await h.call('POST', `/api/wallets/${u.main}/stake`, {
        token: u.session, headers: key(), body: { resource: 'ENERGY', amount: '20000000000' },
      }), 201);
      const commandStatus = async (): Promise<number> => ok(await h.call('GET', `/api/commands/${stake.command_no}`, { token: u.apiToken })).status;
      await until(async () => (await commandStatus()) >= 3);
      expect(await commandStatus()).toBe(3);
      const sweep = ok(await create(u, 'USDT'), 201);
      await until(async () => (await tasks.get(sweep.task_no))!.finishedAt !== null);
      expect((await tasks.get(sweep.task_no))!).toMatchObject({ status: COLLECTION_STATUS.DONE, energyPath: 'self' });
      await worker.tick();
      expect(await deliveries()).toEqual(['collection.completed']);

      // What the sweep left: the 1 SUN that activated the sub-address (its recovery is not worth a transaction).
      await refresh(u);
      const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: u.apiToken, body: { address: u.sub } }), 201).token as string;
      expect(await offered(ct)).toEqual([['TRX', '1', '0'], ['USDT', '0', '0']]);
      for (const asset of ['TRX', 'USDT']) {
        fails(await create(u, asset), 422, 'BIZ-AMOUNT-BELOW-MINIMUM');
        fails(await collect(ct, asset), 422, 'BIZ-AMOUNT-BELOW-MINIMUM');
      }

      // Nothing was made: the one collection is the sweep, the address is free, and no event waits or went out.
      expect(await collections(u)).toBe(1);
      expect((await tasks.findLatestByAddress(u.sub))!.taskNo).toBe(sweep.task_no);
      expect(ok(await h.call('GET', '/api/cashier/task', { token: ct }))).toBeNull();
      expect(await h.container.get(TOKENS.Stores).outbox.listUndispatched(100)).toEqual([]);
      await worker.tick();
      expect(await deliveries()).toEqual(['collection.completed']);
    } finally {
      await worker.stop();
    }
  });
});
