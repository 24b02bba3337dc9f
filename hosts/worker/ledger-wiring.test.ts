import { afterEach, describe, expect, it } from 'vitest';
import { RecordingMailer } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { userWithWallets } from '../../core/application/testing/index.js';
import { loadConfig } from '../composition/config.js';
import { composeContainer, type Composition } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';
import { CollectionLedgerBooker } from '../../core/application/collection-ledger-booker.js';
import { startComposedWorker } from './compose-worker.js';
import type { RunningWorker } from './index.js';
import { driveUntil } from './worker-drive.js';
import { pay, wallet } from '../../adapters/tron-devnet/testing/devnet-helpers.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';

let world: WorkerWorld | undefined;
let composition: Composition | undefined;
let worker: RunningWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  await composition?.close();
  await world?.close();
});

/**
 * A composed worker on a fresh devnet (CHAIN_CONFIRMATIONS 1, plus `env`), one user with a main and one sub-address,
 * and a payer funded with 100 TRX (and 50 USDT when `usdt`), the worker's first pass already run.
 */
async function composedBooks(env: Record<string, string>, email: string, payerName: string, usdt: boolean) {
  world = await buildWorkerWorld();
  const w = world;
  const config = loadConfig({ CHAIN: 'devnet', TRON_FULL_HOST: w.devnet.url, USDT_CONTRACT: w.devnet.usdtAddress, CHAIN_CONFIRMATIONS: '1', ...env }, { mode: 'dev' });
  const mailer = new RecordingMailer();
  composition = composeContainer(config, { clock: w.clock, mailer, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }) });
  const app = composition.container.get(TOKENS.Application);
  const user = await userWithWallets(app, (address) => mailer.lastCodeFor(address), email, 1);
  worker = startComposedWorker(composition, {}, { manual: true });
  const running = worker;
  const payer = wallet(w.devnet, payerName);
  w.devnet.fund(payer.address, 100n * TRX);
  if (usdt) w.devnet.fundToken(payer.address, 50_000_000n);
  w.devnet.mine(1);
  await running.tick();
  return { w, app, user, sub: user.subs[0]!, running, payer };
}

/** Issue #36: the composed worker's scanner books what it confirms in the store's ledger, which the API reads. */
describe('the composed worker keeps the books', { timeout: 60_000 }, () => {
  it('a USDT deposit to a sub-address, once confirmed, is one transaction: external in -> the sub-address', async () => {
    const { w, app, user, sub, running, payer } = await composedBooks({}, 'books@example.com', 'ledger-payer', true);
    pay.usdt(w.devnet, payer.key, sub, 7_250_000n);
    const confirmed = async () => (await app.deposits.list(user.userId, { status: 'confirmed' })).items.length === 1;
    await driveUntil(w, [{ runDue: () => running.tick() }], confirmed, { maxRounds: 60 });
    const deposit = (await app.deposits.list(user.userId, {})).items[0]!;
    const { items } = await app.ledger.listEntries(user.userId, {});
    expect(items.map((e) => [e.account.kind, e.account.address ?? null, e.account.asset_symbol, e.amount, e.cause.id, e.cause.txid]))
      .toEqual([['external_in', null, 'USDT', '-7250000', deposit.deposit_id, deposit.txid], ['custodial', sub, 'USDT', '7250000', deposit.deposit_id, deposit.txid]]);
    // More passes book nothing again.
    for (let round = 0; round < 3; round++) {
      w.devnet.mine(1);
      await running.tick();
    }
    expect((await app.ledger.listEntries(user.userId, {})).items).toEqual(items);
    expect((await app.ledger.balances(user.userId, {})).totals).toEqual([{ asset_symbol: 'USDT', balance: '7250000', staked: '0', unstaking: '0' }]);
  });

  it('a sweep this worker finishes is booked once: the asset sub -> main and its fees, balances equal to the chain\'s', async () => {
    const { w, app, user, sub, running, payer } = await composedBooks({ ENERGY_BURN: '1' }, 'sweeps@example.com', 'ledger-sweep-payer', true);
    pay.trx(w.devnet, payer.key, user.main, 50_000_000);
    pay.usdt(w.devnet, payer.key, sub, 7_250_000n);
    const confirmed = async () => (await app.deposits.list(user.userId, { status: 'confirmed' })).items.length === 2;
    await driveUntil(w, [{ runDue: () => running.tick() }], confirmed, { maxRounds: 60 });
    const task = await app.collections.create(user.userId, { address: sub, asset_symbol: 'USDT' });
    const booked = async () => (await app.ledger.listEntries(user.userId, { kind: 'collection' })).items.length > 0;
    await driveUntil(w, [{ runDue: () => running.tick() }], booked, { maxRounds: 120 });
    const view = await app.collections.get(user.userId, task.task_no);
    const entries = (await app.ledger.listEntries(user.userId, { kind: 'collection' })).items;
    expect(new Set(entries.map((e) => e.cause.id))).toEqual(new Set([task.task_no]));
    const sums = new Map<string, bigint>();
    for (const e of entries) sums.set(e.account.asset_symbol, (sums.get(e.account.asset_symbol) ?? 0n) + BigInt(e.amount));
    expect([...sums.values()].every((v) => v === 0n)).toBe(true);
    expect(entries.find((e) => e.account.kind === 'custodial' && e.account.address === user.main && e.account.asset_symbol === 'USDT')?.amount).toBe('7250000');
    // More passes book nothing again; the books agree with the chain for both addresses.
    for (let round = 0; round < 3; round++) {
      w.devnet.mine(1);
      await running.tick();
    }
    expect((await app.ledger.listEntries(user.userId, { kind: 'collection' })).items).toEqual(entries);
    const balances = (await app.ledger.balances(user.userId, {})).items;
    const bookedOf = (address: string, asset: string) => balances.find((b) => b.address === address && b.asset_symbol === asset)?.balance ?? '0';
    for (const address of [sub, user.main]) {
      expect({ address, trx: bookedOf(address, 'TRX'), usdt: bookedOf(address, 'USDT') }, JSON.stringify(view))
        .toEqual({ address, trx: String(await w.gateway.getTrxBalance(address)), usdt: String(await w.gateway.getTokenBalance(address, w.devnet.usdtAddress)) });
    }
  });

  it('a rented sweep books its rental once: the provider\'s prepaid account pays fee_energy_rental; the costs, the statement and the reconciliation agree', async () => {
    const { w, app, user, sub, running, payer } = await composedBooks({ ENERGY_PROVIDER: 'tronsave' }, 'rentals@example.com', 'ledger-rental-payer', true);
    const start = w.clock.now();
    pay.trx(w.devnet, payer.key, user.main, 50_000_000);
    pay.usdt(w.devnet, payer.key, sub, 7_250_000n);
    const confirmed = async () => (await app.deposits.list(user.userId, { status: 'confirmed' })).items.length === 2;
    await driveUntil(w, [{ runDue: () => running.tick() }], confirmed, { maxRounds: 60 });
    const task = await app.collections.create(user.userId, { address: sub, asset_symbol: 'USDT' });
    const booked = async () => (await app.ledger.listEntries(user.userId, { kind: 'collection' })).items.length > 0;
    await driveUntil(w, [{ runDue: () => running.tick() }], booked, { maxRounds: 120 });
    const stores = composition!.container.get(TOKENS.Stores);
    const done = (await stores.tasks.get(task.task_no))!;
    expect({ path: done.energyPath, provider: done.plan?.provider, rental: done.cost?.rentalSun }).toEqual({ path: 'rental', provider: 'tronsave', rental: done.plan?.sourceSun });
    const price = done.plan!.sourceSun;
    expect(price).toBeGreaterThan(0n);
    // Booked again by a second booker (another worker, or a catch-up after a crash): nothing more is written.
    const booker = new CollectionLedgerBooker({ tasks: stores.tasks, chain: w.gateway, ledger: stores.ledger, ids: stores.ids });
    expect(await booker.book(task.task_no)).toBe('already-booked');
    expect((await booker.catchUp(start, 100)).booked).toBe(0);
    for (let round = 0; round < 3; round++) {
      w.devnet.mine(1);
      await running.tick();
    }
    const prepaid = (await app.ledger.listEntries(user.userId, { account_kind: 'provider_prepaid' })).items;
    expect(prepaid.map((e) => [e.kind, e.cause.id, e.account.holder, e.account.address, e.amount])).toEqual([['collection', task.task_no, 'tronsave', undefined, String(-price)]]);
    const rentals = (await app.ledger.listEntries(user.userId, { account_kind: 'fee_energy_rental' })).items;
    expect(rentals.map((e) => [e.transaction_id, e.amount])).toEqual([[prepaid[0]!.transaction_id, String(price)]]);
    // GET /collections/{taskNo}/costs reads the rental from the books; the statement counts it in costs and, paid off
    // chain, in received as `prepaid`; the reconciliation never looks at the provider's account.
    expect((await app.collections.costs(user.userId, task.task_no)).cost.rental_sun).toBe(String(price));
    const statement = await app.ledger.statement(user.userId, { from: new Date(start).toISOString(), asset_symbol: 'TRX' });
    const line = statement.assets[0]!;
    expect(line.prepaid).toBe(String(price));
    expect(BigInt(line.closing)).toBe(BigInt(line.opening) + BigInt(line.received) - BigInt(line.costs) - BigInt(line.sent));
    const totals = (await app.ledger.balances(user.userId, {})).totals;
    expect(totals.find((t) => t.asset_symbol === 'TRX')?.balance).toBe(line.closing);
    expect((await app.ledger.reconciliation(user.userId, {})).summary).toEqual({ matched: 4, explained: 0, unsettled: 0, discrepancy: 0 });
  });

  it('a withdrawal this worker finishes is booked once: the amount main -> outside and its fee, the balance equal to the chain\'s', async () => {
    const { w, app, user, running, payer } = await composedBooks({}, 'payouts@example.com', 'ledger-payout-payer', false);
    pay.trx(w.devnet, payer.key, user.main, 50_000_000);
    const confirmed = async () => (await app.deposits.list(user.userId, { status: 'confirmed' })).items.length === 1;
    await driveUntil(w, [{ runDue: () => running.tick() }], confirmed, { maxRounds: 60 });
    const outside = (await w.gateway.createAccount()).address;
    const accepted = await app.transfers.create(user.userId, { from_address: user.main, to_address: outside, asset_symbol: 'TRX', amount: '12000000' });
    const booked = async () => (await app.ledger.listEntries(user.userId, { kind: 'withdrawal' })).items.length > 0;
    await driveUntil(w, [{ runDue: () => running.tick() }], booked, { maxRounds: 60 });
    const entries = (await app.ledger.listEntries(user.userId, { kind: 'withdrawal' })).items;
    expect(new Set(entries.map((e) => e.cause.id))).toEqual(new Set([accepted.command_no]));
    expect(entries.find((e) => e.account.kind === 'external_out')?.amount).toBe('12000000');
    for (let round = 0; round < 3; round++) {
      w.devnet.mine(1);
      await running.tick();
    }
    expect((await app.ledger.listEntries(user.userId, { kind: 'withdrawal' })).items).toEqual(entries);
    const balances = (await app.ledger.balances(user.userId, {})).items;
    expect(balances.find((b) => b.address === user.main && b.asset_symbol === 'TRX')?.balance).toBe(String(await w.gateway.getTrxBalance(user.main)));
  });

  it('a refund of a paid request is booked as a refund, shown under the payment and in the statement; the books still match the chain', async () => {
    const { w, app, user, sub, running, payer } = await composedBooks({}, 'refunds@example.com', 'ledger-refund-payer', false);
    const start = w.clock.now();
    const token = await app.cashierTokens.create(user.userId, { address: sub, amount: '5000000', asset_symbol: 'TRX' });
    pay.trx(w.devnet, payer.key, sub, 5_000_000);
    // Paid: the worker forwards it to the main address by itself; the refund goes out from there.
    const forwarded = async () => (await app.ledger.listEntries(user.userId, { kind: 'collection' })).items.length > 0;
    await driveUntil(w, [{ runDue: () => running.tick() }], forwarded, { maxRounds: 120 });
    const accepted = await app.transfers.create(user.userId, {
      from_address: user.main, to_address: payer.address, asset_symbol: 'TRX', amount: '2000000', refund_of: token.token_no,
    });
    const booked = async () => (await app.ledger.listEntries(user.userId, { kind: 'refund' })).items.length > 0;
    await driveUntil(w, [{ runDue: () => running.tick() }], booked, { maxRounds: 60 });
    const entries = (await app.ledger.listEntries(user.userId, { kind: 'refund' })).items;
    expect(new Set(entries.map((e) => e.cause.id))).toEqual(new Set([accepted.command_no]));
    expect(entries.find((e) => e.account.kind === 'external_out')?.amount).toBe('2000000');
    expect((await app.ledger.listEntries(user.userId, { kind: 'withdrawal' })).items).toEqual([]);
    expect((await app.cashierTokens.get(user.userId, token.token_no)).payment?.refunds).toEqual([
      { command_no: accepted.command_no, amount: '2000000', status: 3, requested_at: expect.any(String) },
    ]);
    const statement = await app.ledger.statement(user.userId, { from: new Date(start).toISOString(), asset_symbol: 'TRX' });
    const all = (await app.ledger.listEntries(user.userId, { per_page: '100' })).items;
    const fees = all.filter((e) => e.account.kind.startsWith('fee_')).reduce((sum, e) => sum + BigInt(e.amount), 0n);
    expect(statement.assets).toEqual([{
      asset_symbol: 'TRX', opening: '0', received: '5000000', costs: String(fees), sent: '2000000', refunded: '2000000', closing: String(3_000_000n - fees),
      prepaid: '0',
    }]);
    // The books equal the chain: the reconciliation finds nothing.
    expect((await app.ledger.reconciliation(user.userId, {})).summary).toEqual({ matched: 4, explained: 0, unsettled: 0, discrepancy: 0 });
  });
});
