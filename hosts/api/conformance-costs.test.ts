import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTION_STATUS, type CollectionTask } from '../../core/domain/model/collection-task.js';
import type { SweepCost } from '../../core/domain/sweep-cost.js';
import type { SweepPlan } from '../../core/domain/sweep-plan.js';
import { TOKENS } from '../composition/tokens.js';
import { startComposedWorker } from '../worker/compose-worker.js';
import { startHarness, type ApiHarness } from './test-harness.js';
import {
  cacheCollectable, expectAnswersDocumented, expectDocumented, fails, ok, userWithWallets, withInlineResponses,
} from './api-test-fixtures.js';

/**
 * The extension route GET /collections/{taskNo}/costs (issue #10, docs/decisions.md 53) over real HTTP: what a
 * collection cost from its receipts, owner-scoped like the task, SUN as integer strings, documented in OpenAPI.
 */
const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });
const ZERO_COST = {
  total_sun: '0', bandwidth_burned_sun: '0', energy_burned_sun: '0', activation_sun: '0', rental_sun: '0', lent_sun: '0',
  returned_sun: '0', txids: [],
};

const PLAN: SweepPlan = {
  path: 'rental', provider: 'tronsave', energy: 64_285, activate: true, subNeedsSun: 0n, fundSun: 1n, sourceSun: 2_900_000n,
  estimatedCostSun: 4_000_000n,
  options: [
    { path: 'self', provider: null, costSun: 1_100_000n, refusal: 'the main address cannot delegate enough energy' },
    { path: 'rental', provider: 'tronsave', costSun: 4_000_000n, refusal: null },
    { path: 'burn', provider: null, costSun: 7_528_500n, refusal: 'burning TRX for energy is disabled (ENERGY_BURN)' },
  ],
};
const COST: SweepCost = {
  bandwidthSun: 345_000n, energySun: 0n, activationSun: 1_000_000n, rentalSun: 2_900_000n, lentSun: 1n, returnedSun: 0n,
  txids: ['a'.repeat(64), 'b'.repeat(64)],
};

describe('GET /collections/{taskNo}/costs (extension)', () => {
  let h: ApiHarness;
  let u: Awaited<ReturnType<typeof userWithWallets>>;

  beforeAll(async () => {
    h = await startHarness();
    u = await userWithWallets(h, 'pro');
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  const costs = (taskNo: string, token = u.apiToken) => h.call('GET', `/api/collections/${encodeURIComponent(taskNo)}/costs`, { token });
  const collect = async (address: string, asset_symbol: 'USDT' | 'TRX'): Promise<string> => {
    await cacheCollectable(h, address);
    return ok(await h.call('POST', '/api/collections', { token: u.apiToken, headers: key(), body: { address, asset_symbol } }), 201).task_no;
  };
  /** Rewrites a stored task as the worker would (optimistic version bump), to show states no chain run is needed for. */
  const seed = async (taskNo: string, change: Partial<CollectionTask>): Promise<void> => {
    const tasks = h.container.get(TOKENS.Stores).tasks;
    const task = (await tasks.get(taskNo))!;
    await tasks.update({ ...task, ...change, version: task.version + 1 });
  };

  it('a task with no receipt yet answers zeros, no plan and final false; the task itself keeps exactly the spec fields', async () => {
    const taskNo = await collect(u.sub, 'USDT');
    const data = ok(await costs(taskNo));
    expectDocumented(h, 'GET', '/api/collections/:taskNo/costs', data);
    expect(data).toEqual({
      task_no: taskNo, asset_symbol: 'USDT', energy_path: null, provider: null, final: false, cost: ZERO_COST, estimate: null,
    });
    const task = ok(await h.call('GET', `/api/collections/${taskNo}`, { token: u.apiToken }));
    expect(Object.keys(task).sort()).toEqual(['command_no', 'error_code', 'finished_at', 'last_error', 'started_at', 'status', 'task_no']);
  });

  it('the owner sees the recorded cost and the plan\'s estimate, every amount an integer string in SUN', async () => {
    const sub = ok(await h.call('POST', '/api/wallets', { token: u.apiToken, body: { network_code: 'TRON', address_type: 2 } }), 201).address;
    const taskNo = await collect(sub, 'USDT');
    await seed(taskNo, { status: COLLECTION_STATUS.COLLECTING, energyPath: 'rental', plan: PLAN, cost: COST });
    const running = ok(await costs(taskNo));
    expect(running).toEqual({
      task_no: taskNo, asset_symbol: 'USDT', energy_path: 'rental', provider: 'tronsave', final: false,
      cost: {
        total_sun: '4245000', bandwidth_burned_sun: '345000', energy_burned_sun: '0', activation_sun: '1000000',
        rental_sun: '2900000', lent_sun: '1', returned_sun: '0', txids: COST.txids,
      },
      estimate: {
        total_sun: '4000000',
        options: [
          { path: 'self', provider: null, cost_sun: '1100000', refusal: 'the main address cannot delegate enough energy' },
          { path: 'rental', provider: 'tronsave', cost_sun: '4000000', refusal: null },
          { path: 'burn', provider: null, cost_sun: '7528500', refusal: 'burning TRX for energy is disabled (ENERGY_BURN)' },
        ],
      },
    });
    const amounts = [...Object.entries(running.cost), ['estimate', running.estimate.total_sun], ...running.estimate.options.map((o: { cost_sun: string }) => ['option', o.cost_sun])]
      .filter(([name]) => name !== 'txids');
    for (const [name, value] of amounts) expect({ name, value }).toEqual({ name, value: expect.stringMatching(/^(0|[1-9][0-9]*)$/) });
    // Amounts beyond 2^53 stay exact: strings, never JSON numbers.
    await seed(taskNo, { status: COLLECTION_STATUS.DONE, finishedAt: h.clock.now(), cost: { ...COST, bandwidthSun: 2n ** 64n } });
    const done = ok(await costs(taskNo));
    expect(done.final).toBe(true);
    expect(done.cost.bandwidth_burned_sun).toBe('18446744073709551616');
    expect(done.cost.total_sun).toBe(String(2n ** 64n + 3_900_000n));
  });

  it('final waits for a failed task\'s reclaim: false while it is pending, true once it is done', async () => {
    const sub = ok(await h.call('POST', '/api/wallets', { token: u.apiToken, body: { network_code: 'TRON', address_type: 2 } }), 201).address;
    const taskNo = await collect(sub, 'USDT');
    const reclaim = { status: 'pending' as const, steps: [], nextRunAt: h.clock.now(), lease: null, finishedAt: null };
    await seed(taskNo, { status: COLLECTION_STATUS.FAILED, finishedAt: h.clock.now(), errorCode: 'BIZ-ENERGY-TIMEOUT', reclaim, plan: { ...PLAN, path: 'self', provider: null } });
    const failed = ok(await costs(taskNo));
    expect({ final: failed.final, energy_path: failed.energy_path, provider: failed.provider }).toEqual({ final: false, energy_path: 'self', provider: null });
    await seed(taskNo, { reclaim: { ...reclaim, status: 'done', finishedAt: h.clock.now() } });
    expect(ok(await costs(taskNo)).final).toBe(true);
  });

  it('once the task is booked in the ledger (issue #36), its chain fees and its rental are the books\', in the same shape', async () => {
    const sub = ok(await h.call('POST', '/api/wallets', { token: u.apiToken, body: { network_code: 'TRON', address_type: 2 } }), 201).address;
    const taskNo = await collect(sub, 'USDT');
    const finishedAt = h.clock.now();
    await seed(taskNo, { status: COLLECTION_STATUS.DONE, finishedAt, energyPath: 'rental', plan: PLAN, cost: COST, sweptAmount: 5n, sweepTxHash: 'b'.repeat(64) });
    const recorded = ok(await costs(taskNo));
    expect(recorded.cost).toMatchObject({ total_sun: '4245000', bandwidth_burned_sun: '345000', energy_burned_sun: '0', activation_sun: '1000000' });
    // The booking's fees differ from the record here on purpose, to show which one the answer reads.
    const main = (await h.container.get(TOKENS.Stores).tasks.get(taskNo))!.mainAddress;
    await h.container.get(TOKENS.Stores).ledger.post({
      transactionId: randomUUID(), userId: u.userId, occurredAt: finishedAt, reverses: null, cause: { type: 'collection', id: taskNo, txid: 'b'.repeat(64) },
      lines: [
        { account: { kind: 'custodial', networkCode: 'TRON', assetSymbol: 'USDT', address: sub }, amount: -5n },
        { account: { kind: 'custodial', networkCode: 'TRON', assetSymbol: 'USDT', address: main }, amount: 5n },
        { account: { kind: 'custodial', networkCode: 'TRON', assetSymbol: 'TRX', address: main }, amount: -1_500_000n },
        { account: { kind: 'fee_bandwidth', networkCode: 'TRON', assetSymbol: 'TRX', address: null }, amount: 300_000n },
        { account: { kind: 'fee_trx_burned', networkCode: 'TRON', assetSymbol: 'TRX', address: null }, amount: 1_200_000n },
        // The rental, paid off chain from the provider's prepaid balance (issue #36).
        { account: { kind: 'provider_prepaid', networkCode: 'TRON', assetSymbol: 'TRX', address: 'tronsave' }, amount: -2_800_000n },
        { account: { kind: 'fee_energy_rental', networkCode: 'TRON', assetSymbol: 'TRX', address: null }, amount: 2_800_000n },
      ],
    });
    const booked = ok(await costs(taskNo));
    expectDocumented(h, 'GET', '/api/collections/:taskNo/costs', booked);
    expect(booked).toEqual({
      ...recorded,
      cost: { ...recorded.cost, total_sun: '4300000', bandwidth_burned_sun: '300000', energy_burned_sun: '200000', activation_sun: '1000000', rental_sun: '2800000' },
    });
  });

  it('another tenant\'s task answers exactly like an unknown one: 404 BIZ-COLLECTION-TASK-NOT-FOUND, as the task route does', async () => {
    const taskNo = (await h.container.get(TOKENS.Stores).tasks.findLatestByAddress(u.sub))!.taskNo;
    const other = await userWithWallets(h);
    const foreign = await costs(taskNo, other.apiToken);
    fails(foreign, 404, 'BIZ-COLLECTION-TASK-NOT-FOUND');
    const unknown = await costs('K-no-such-task', other.apiToken);
    fails(unknown, 404, 'BIZ-COLLECTION-TASK-NOT-FOUND');
    expect(foreign.text).toBe(unknown.text);
    fails(await costs('K-no-such-task'), 404, 'BIZ-COLLECTION-TASK-NOT-FOUND');
    fails(await h.call('GET', `/api/collections/${taskNo}`, { token: other.apiToken }), 404, 'BIZ-COLLECTION-TASK-NOT-FOUND');
  });

  it('takes the same credentials as GET /collections/{taskNo}: a Developer API Token only', async () => {
    const taskNo = (await h.container.get(TOKENS.Stores).tasks.findLatestByAddress(u.sub))!.taskNo;
    const outcome = async (path: string, token?: string) => {
      const res = await h.call('GET', path, token === undefined ? {} : { token });
      return { status: res.status, code: res.json?.code };
    };
    for (const token of [undefined, u.session, h.adminToken, 'dk_not-a-token', u.apiToken]) {
      const task = await outcome(`/api/collections/${taskNo}`, token);
      expect({ token, ...(await outcome(`/api/collections/${taskNo}/costs`, token)) }).toEqual({ token, ...task });
    }
    expect((await outcome(`/api/collections/${taskNo}/costs`, u.apiToken)).code).toBe('OK');
    expect((await outcome(`/api/collections/${taskNo}/costs`)).status).toBe(401);
    expect((await outcome(`/api/collections/${taskNo}/costs`, u.session)).status).toBe(403);
  });

  it('counts against the caller\'s GET limit of 60 a minute, shared with the other reads; 429 with Retry-After', async () => {
    h.clock.advance(61_000);
    const user = await userWithWallets(h);
    await cacheCollectable(h, user.sub);
    const taskNo = ok(await h.call('POST', '/api/collections', { token: user.apiToken, headers: key(), body: { address: user.sub, asset_symbol: 'TRX' } }), 201).task_no;
    const first = await h.call('GET', `/api/collections/${taskNo}/costs`, { token: user.apiToken });
    expect(first.headers.get('x-ratelimit-limit')).toBe('60');
    const left = Number(first.headers.get('x-ratelimit-remaining'));
    const task = await h.call('GET', `/api/collections/${taskNo}`, { token: user.apiToken });
    expect(Number(task.headers.get('x-ratelimit-remaining'))).toBe(left - 1);
    for (let i = 0; i < left - 1; i++) ok(await h.call('GET', `/api/collections/${taskNo}/costs`, { token: user.apiToken }));
    const limited = await h.call('GET', `/api/collections/${taskNo}/costs`, { token: user.apiToken });
    fails(limited, 429, 'RATE-LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    h.clock.advance(61_000);
  });

  it('is in /openapi.json under the Collection tag with its 404 and 429', async () => {
    const res = await h.call('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    const op = withInlineResponses(res.json as unknown as { paths: Record<string, Record<string, any>> }).paths['/api/collections/{taskNo}/costs']!['get'];
    expect(op.tags).toEqual(['Collection']);
    expect(op.responses['404'].content['application/json'].schema.properties.code.enum).toEqual(['BIZ-COLLECTION-TASK-NOT-FOUND']);
    expect(op.responses).toHaveProperty('429');
    expect(op['x-rate-limit']).toEqual({ bucket: 'get', per_minute: 60 });
  });
});

/**
 * The route over a real sweep: the API and the composed worker on one container, the devnet mining a block per
 * round. The answer is the task's recorded cost, to the SUN, and turns final once the task is DONE.
 */
describe('GET /collections/{taskNo}/costs after a real sweep', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  async function sweep(asset: 'USDT' | 'TRX'): Promise<{ data: any; task: CollectionTask }> {
    const u = await userWithWallets(h);
    h.devnet.fund(u.main, 100_000_000);
    if (asset === 'USDT') h.devnet.fundToken(u.sub, 5_000_000n);
    else h.devnet.fund(u.sub, 5_000_000);
    // The deposit in the cached balance, as the scanner would have it a block later (a collection needs it there).
    ok(await h.call('POST', `/api/wallets/${u.sub}/balances/refresh`, { token: u.apiToken, body: { force: true } }));
    const composition = { container: h.container, adminToken: h.adminToken, ephemeralKey: false, close: async () => {} };
    const worker = startComposedWorker(composition, {}, { manual: true, collection: { confirmations: 1, burnEnabled: true } });
    try {
      const taskNo = ok(await h.call('POST', '/api/collections', { token: u.apiToken, headers: key(), body: { address: u.sub, asset_symbol: asset } }), 201).task_no;
      const tasks = h.container.get(TOKENS.Stores).tasks;
      for (let round = 0; round < 60 && (await tasks.get(taskNo))!.finishedAt === null; round++) {
        await worker.tick();
        h.devnet.mine(1);
        h.clock.advance(3_000);
      }
      const task = (await tasks.get(taskNo))!;
      expect({ status: task.status, error: task.lastError }).toEqual({ status: COLLECTION_STATUS.DONE, error: null });
      return { data: ok(await h.call('GET', `/api/collections/${taskNo}/costs`, { token: u.apiToken })), task };
    } finally {
      await worker.stop();
    }
  }

  it('a USDT sweep that burns for its energy: the recorded receipts, the plan\'s options, final', async () => {
    const { data, task } = await sweep('USDT');
    const cost = task.cost!;
    expect(data).toEqual({
      task_no: task.taskNo, asset_symbol: 'USDT', energy_path: 'burn', provider: null, final: true,
      cost: {
        total_sun: String(cost.bandwidthSun + cost.energySun + cost.activationSun + cost.rentalSun),
        bandwidth_burned_sun: String(cost.bandwidthSun), energy_burned_sun: String(cost.energySun),
        activation_sun: String(cost.activationSun), rental_sun: '0', lent_sun: String(cost.lentSun),
        returned_sun: String(cost.returnedSun), txids: [...cost.txids],
      },
      estimate: {
        total_sun: String(task.plan!.estimatedCostSun),
        options: task.plan!.options.map((o) => ({ path: o.path, provider: o.provider, cost_sun: String(o.costSun), refusal: o.refusal })),
      },
    });
    expect(BigInt(data.cost.energy_burned_sun)).toBeGreaterThan(0n);
    expect(data.cost.txids).toContain(task.sweepTxHash);
  });

  it('a TRX sweep has no plan: estimate null, energy_path null', async () => {
    const { data, task } = await sweep('TRX');
    expect(data).toMatchObject({ task_no: task.taskNo, asset_symbol: 'TRX', energy_path: null, provider: null, final: true, estimate: null });
    expect(data.cost.total_sun).toBe(String((task.cost?.bandwidthSun ?? 0n) + (task.cost?.activationSun ?? 0n)));
  });
});
