import { runs } from '../../contracts-tests/support/depth.js';
import { Buffer } from 'node:buffer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createMemoryAdapters, ManualClock, MemoryAddressLock, RecordingMailer } from '../../adapters/memory/index.js';
import { AesGcmKeyCipher, NodeDnsResolver, NodeSecretHasher, OtpauthTotpGenerator, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { HttpWebhookTransport } from '../../adapters/http/index.js';
import { createDevnetChainGateway } from '../../adapters/tron/index.js';
import { startDevnet, type Devnet } from '../../adapters/tron-devnet/index.js';
import { createAssetRegistry } from '../domain/assets.js';
import type { ChainGateway } from '../ports/chain-gateway.port.js';
import { createApplication, type CoreDeps } from './index.js';
import { CollectionExecutor } from './worker/collection-executor.js';
import {
  CancelCollectionCommand, CreateCollectionCommand, FinishCollectionCommand, GetCollectionCommand, RiskCommand,
  RunExecutorCommand,
} from './testing/model/collection-commands.js';
import {
  BogusTokenCommand, CashierCollectCommand, CreateTokenCommand, DisableTokenCommand, UseTokenCommand,
} from './testing/model/cashier-commands.js';
import { GetBalancesCommand, ScanBalanceCommand, SetMinimumsCommand } from './testing/model/balance-commands.js';
import { finishCollection } from './testing/model/finish-collection.js';
import { assertInvariants, type ModelSystem } from './testing/model/model-system.js';
import {
  MODEL_PLAN_QUOTAS, UseCaseModel, type Caller, type ModelPlan, type ModelUser,
} from './testing/model/reference-model.js';
import {
  ActivatePlanCommand, AdvanceClockCommand, CreateWalletCommand, GetWalletCommand, SetQuotaCommand, type ModelCommand,
} from './testing/model/wallet-commands.js';

/*
 * Model-based test of the use-case layer: random sequences of wallet, subscription, cashier-token, payment-API and
 * collection operations by two users, on the memory adapters with a ManualClock, checked step by step against the
 * reference model in testing/model/. Key pairs come from the real tronweb gateway (pointed at an in-process
 * devnet). A collection starts only where the cached balance holds something a sweep can move (issue #24 item 5).
 * A task ends three ways: the real collection executor (the cache was written without the chain, whose addresses are
 * empty, so it fails them with BIZ-NOTHING-TO-COLLECT), the admin cancel use case, or — for DONE, which needs funded chain state too costly
 * for a hundred random runs — the repositories and the domain state machines (testing/model/finish-collection.ts).
 */

let devnet: Devnet;
let chain: ChainGateway;
let missingAddress: string;
const cipher = AesGcmKeyCipher.fromConfig(Buffer.alloc(32, 7).toString('base64'));
const hasher = new NodeSecretHasher({ cost: TEST_SCRYPT_COST });

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'use-cases-model' });
  chain = createDevnetChainGateway(devnet);
  missingAddress = (await chain.createAccount()).address;
});

afterAll(async () => {
  await devnet?.close();
});

/** How a user starts a run: their sub_address plan (null: none), and whether a main and a sub address exist. */
interface UserStart {
  readonly plan: ModelPlan | null;
  readonly withAddresses: boolean;
}

/**
 * A fresh system on fresh memory stores with two registered users. Starting some users with addresses lets short
 * sequences reach tokens and collections; the others exercise the "main required" and subscription paths.
 */
async function setup(starts: readonly UserStart[]): Promise<{ model: UseCaseModel; real: ModelSystem }> {
  const clock = new ManualClock();
  const stores = createMemoryAdapters({ clock });
  const dns = new NodeDnsResolver();
  const assets = createAssetRegistry({ usdtContract: devnet.usdtAddress });
  const deps: CoreDeps = {
    ...stores, hasher, cipher, totp: new OtpauthTotpGenerator(), mailer: new RecordingMailer(), dns, transport: new HttpWebhookTransport({ resolver: dns }),
    addressLock: new MemoryAddressLock({ clock }), chain, assets,
  };
  const app = createApplication(deps);
  const users: ModelUser[] = [];
  for (const [i, { plan }] of starts.entries()) {
    const { user_id: userId } = await app.accounts.register({ email: `user${i}@example.com`, password: 'correct horse battery staple' });
    // The developer plan carries min_collect_amounts.
    await app.subscriptions.activate(userId, { service_code: 'developer' });
    if (plan !== null) await app.subscriptions.activate(userId, { service_code: 'sub_address', plan_code: plan });
    users.push({ userId, subscription: plan === null ? null : { plan, quota: MODEL_PLAN_QUOTAS[plan] } });
  }
  const worker = { tasks: stores.tasks, commands: stores.commands, uow: stores.uow, ids: stores.ids, clock, assets };
  const model = new UseCaseModel(users, clock.now());
  // Empty addresses fail at once here: the grace for reads from a node behind (stale_reads) has its own tests.
  const executor = new CollectionExecutor({ ...stores, chain, cipher, assets, energy: {} }, { staleReadGraceMs: 0 });
  const real: ModelSystem = { app, clock, worker, executor, balances: stores.balances, missingAddress };
  for (const [i, { plan, withAddresses }] of starts.entries()) {
    if (!withAddresses) continue;
    await new CreateWalletCommand(i, 1, 'TRON', 1).run(model, real);
    if (plan !== null) await new CreateWalletCommand(i, 2, 'TRON', 1).run(model, real);
  }
  return { model, real };
}

const user = fc.constantFrom(0, 1);
// Mostly the owner (so the deeper rules are reached), often enough the other user (ownership).
const caller = fc.constantFrom<Caller>('owner', 'owner', 'other');
const pick = fc.nat(40);
const plan = fc.constantFrom<ModelPlan>('starter', 'pro', 'unlimited');
const symbol = fc.constantFrom('TRX', 'USDT', 'USDT', 'DOGE');
const parallel = fc.constantFrom(1, 1, 2, 3);
const minutes = (m: number): number => m * 60_000;
// Steps around the TTLs (60, 120, 480, 1440 minutes) make expiry and sliding matter.
const step = fc.oneof(fc.constantFrom(1_000, minutes(59), minutes(60), minutes(61), minutes(119), minutes(1440)), fc.integer({ min: 1, max: minutes(90) }));

const createToken = fc.tuple(caller, pick, fc.constantFrom(60, 120, 480, 1440), parallel)
  .map(([u, p, t, n]) => new CreateTokenCommand(u, p, t, n));
const useToken = fc.tuple(pick, fc.constantFrom('session', 'balance', 'collectable', 'task' as const)).map(([p, op]) => new UseTokenCommand(p, op));
const createCollection = fc.tuple(caller, pick, symbol, parallel).map(([u, p, s, n]) => new CreateCollectionCommand(u, p, s, n));
const createSub = fc.tuple(user, parallel).map(([u, n]) => new CreateWalletCommand(u, 2, 'TRON', n));
const advance = step.map((ms) => new AdvanceClockCommand(ms));
// Small amounts meet minimums now and then; 10^30 checks that nothing passes through a JavaScript number.
const amount = fc.oneof(fc.bigInt({ min: 0n, max: 3_000_000n }), fc.constant(10n ** 30n));
const minimum = fc.bigInt({ min: 1n, max: 3_000_000n });

/** Repeated entries weigh more: tokens and collections need a few steps of set-up before they say anything. */
const commandArbs: fc.Arbitrary<ModelCommand>[] = [
  fc.tuple(user, plan).map(([u, p]) => new ActivatePlanCommand(u, p)),
  fc.tuple(user, fc.integer({ min: -1, max: 3 })).map(([u, q]) => new SetQuotaCommand(u, q)),
  fc.tuple(user, parallel).map(([u, n]) => new CreateWalletCommand(u, 1, 'TRON', n)),
  createSub, createSub,
  fc.tuple(user, fc.constantFrom(0, 1, 2, 3), fc.constantFrom('TRON', 'ETH', 'tron')).map(([u, t, n]) => new CreateWalletCommand(u, t, n, 1)),
  fc.tuple(caller, pick).map(([u, p]) => new GetWalletCommand(u, p)),
  createToken, createToken, createToken,
  fc.tuple(caller, pick).map(([u, p]) => new DisableTokenCommand(u, p)),
  useToken, useToken, useToken,
  fc.constantFrom(null, '', 'ct_not-a-token', 'dk_wrong-kind').map((v) => new BogusTokenCommand(v)),
  fc.tuple(pick, symbol).map(([p, s]) => new CashierCollectCommand(p, s)),
  fc.tuple(pick, symbol).map(([p, s]) => new CashierCollectCommand(p, s)),
  createCollection, createCollection,
  fc.tuple(pick, fc.constantFrom('done', 'failed' as const)).map(([p, r]) => new FinishCollectionCommand(p, r)),
  fc.tuple(pick, fc.constantFrom('done', 'failed' as const)).map(([p, r]) => new FinishCollectionCommand(p, r)),
  pick.map((p) => new CancelCollectionCommand(p)),
  fc.tuple(caller, pick).map(([u, p]) => new GetCollectionCommand(u, p)),
  advance, advance,
  fc.tuple(fc.constantFrom('user', 'address' as const), pick, fc.boolean()).map(([k, p, d]) => new RiskCommand(k, p, d)),
  fc.tuple(pick, amount, amount).map(([p, t, u]) => new ScanBalanceCommand(p, t, u)),
  fc.tuple(pick, amount, amount).map(([p, t, u]) => new ScanBalanceCommand(p, t, u)),
  fc.tuple(user, fc.record({ TRX: minimum, USDT: minimum }, { requiredKeys: [] })).map(([u, m]) => new SetMinimumsCommand(u, m)),
  fc.tuple(caller, pick).map(([u, p]) => new GetBalancesCommand(u, p)),
  fc.constant(new RunExecutorCommand()),
];

describe('use cases against a reference model (fc.commands)', () => {
  it('random sequences by two users keep quota, one main per network, the address lock, token states and ownership', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.record({ plan: fc.option(plan, { freq: 4 }), withAddresses: fc.boolean() }), { minLength: 2, maxLength: 2 }),
      fc.commands(commandArbs, { maxCommands: 50, size: 'max' }),
      async (starts, cmds) => {
        await fc.asyncModelRun(() => setup(starts), cmds);
      },
    ), { numRuns: runs(50) });
  }, 60_000); // a few seconds when green; shrinking a failure takes longer

  it('the invariant check sees a second active collection written behind the use cases (it can fail)', async () => {
    const { model, real } = await setup([{ plan: 'starter', withAddresses: false }, { plan: null, withAddresses: false }]);
    await new CreateWalletCommand(0, 1, 'TRON', 1).run(model, real);
    await new CreateWalletCommand(0, 2, 'TRON', 1).run(model, real);
    await new ScanBalanceCommand(1, 5_000_000n, 0n).run(model, real);
    await new CreateCollectionCommand('owner', 1, 'TRX', 1).run(model, real);
    // The model forgets the task: the real address lock no longer matches it.
    model.tasks.pop();
    await expect(assertInvariants(model, real)).rejects.toThrow(/PENDING collection commands|address lock/);
  });

  it('the real executor fails a collection of an empty address and frees it (BIZ-NOTHING-TO-COLLECT)', async () => {
    const { model, real } = await setup([{ plan: 'pro', withAddresses: true }, { plan: null, withAddresses: false }]);
    // The cache says what the chain does not hold (a stale snapshot): the task is made, and the worker fails it.
    await new ScanBalanceCommand(1, 100_000n, 9n).run(model, real);
    await new CreateCollectionCommand('owner', 1, 'USDT', 1).run(model, real);
    await new RunExecutorCommand().run(model, real);
    expect(model.tasks.map((t) => [t.status, t.commandStatus])).toEqual([['failed', 4]]);
    await new CreateCollectionCommand('owner', 1, 'TRX', 1).run(model, real);
    expect(model.tasks.map((t) => t.status)).toEqual(['failed', 'pending']);
  });

  it('a pending collection holds the cached balance of its asset as balance_locked until it finishes', async () => {
    const { model, real } = await setup([{ plan: 'starter', withAddresses: true }, { plan: null, withAddresses: false }]);
    const { userId, address } = model.wallets[1]!;
    const lines = async (): Promise<string[][]> => (await real.app.wallets.balances(userId, address)).items
      .map((i) => [i.symbol, i.balance_available, i.balance_locked]);
    await new ScanBalanceCommand(1, 5_000_000n, 7n).run(model, real);
    await new CreateCollectionCommand('owner', 1, 'TRX', 1).run(model, real);
    expect(await lines()).toEqual([['TRX', '0', '5000000'], ['USDT', '7', '0']]);
    await new FinishCollectionCommand(0, 'failed').run(model, real);
    expect(await lines()).toEqual([['TRX', '5000000', '0'], ['USDT', '7', '0']]);
  });

  it('finishing a task releases the address: a new collection starts, the finished one is terminal', async () => {
    const { model, real } = await setup([{ plan: 'starter', withAddresses: false }, { plan: null, withAddresses: false }]);
    await new CreateWalletCommand(0, 1, 'TRON', 1).run(model, real);
    await new CreateWalletCommand(0, 2, 'TRON', 1).run(model, real);
    await new ScanBalanceCommand(1, 5_000_000n, 5_000_000n).run(model, real);
    await new CreateCollectionCommand('owner', 1, 'USDT', 1).run(model, real);
    await new CreateCollectionCommand('owner', 1, 'TRX', 2).run(model, real);
    expect(model.tasks).toHaveLength(1);
    await new FinishCollectionCommand(0, 'done').run(model, real);
    await expect(finishCollection(real.worker, model.tasks[0]!.taskNo, 'failed')).rejects.toThrow();
    await new CreateCollectionCommand('owner', 1, 'TRX', 3).run(model, real);
    expect(model.tasks.map((t) => t.status)).toEqual(['done', 'pending']);
  });
});
