import { afterEach, describe, expect, it } from 'vitest';
import { RecordingMailer } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { userWithWallets } from '../../core/application/testing/index.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { loadConfig } from '../composition/config.js';
import { composeContainer, type Composition } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';
import { startComposedWorker } from './compose-worker.js';
import type { RunningWorker } from './index.js';
import { driveUntil } from './worker-drive.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';

let world: WorkerWorld | undefined;
let composition: Composition | undefined;
let worker: RunningWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  await composition?.close();
  await world?.close();
  worker = undefined;
  composition = undefined;
  world = undefined;
});

/**
 * A USDT collection on a composed worker whose main address has no stake and no rental desk: only ENERGY_BURN can
 * pay the energy. Returns the task's final status and error code.
 */
async function collectWithoutStake(energyBurn: string): Promise<{ status: number; errorCode: string | null }> {
  world = await buildWorkerWorld({ stakeTrx: 0n });
  const w = world;
  const config = loadConfig({
    CHAIN: 'devnet', TRON_FULL_HOST: w.devnet.url, USDT_CONTRACT: w.devnet.usdtAddress, ENERGY_PROVIDER: 'self',
    ENERGY_BURN: energyBurn, CHAIN_CONFIRMATIONS: '1',
  }, { mode: 'dev' });
  const mailer = new RecordingMailer();
  composition = composeContainer(config, { clock: w.clock, mailer, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }) });
  const app = composition.container.get(TOKENS.Application);
  const user = await userWithWallets(app, (email) => mailer.lastCodeFor(email), 'burner@example.com', 1);
  w.devnet.fund(user.main, 100n * TRX);
  w.devnet.fundToken(user.subs[0]!, 5_000_000n);
  w.devnet.mine(1);
  // The deposit in the cached balance (the scanner's work a block later): a collection needs it there.
  await app.wallets.refresh(user.userId, user.subs[0]!, { force: true });
  const task = await app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'USDT' }).catch(async (error: unknown) => {
    // Refused before any task (issue #34): nothing was made.
    expect((await app.commands.list(user.userId, {})).items.filter((c) => c.type === 3)).toEqual([]);
    throw error;
  });
  worker = startComposedWorker(composition, {}, { manual: true });
  const running = worker;
  const finished = async (): Promise<boolean> => [COLLECTION_STATUS.DONE, COLLECTION_STATUS.FAILED]
    .includes((await app.collections.get(user.userId, task.task_no)).status as never);
  await driveUntil(w, [{ runDue: () => running.tick() }], finished);
  const view = await app.collections.get(user.userId, task.task_no);
  return { status: view.status as number, errorCode: (view as { error_code?: string | null }).error_code ?? null };
}

describe('startComposedWorker: ENERGY_BURN', { timeout: 60_000 }, () => {
  it('off (default): with no stake and no rental the collection is refused before any task, naming only self-delegation and burning, and the fix', async () => {
    const refusal = await collectWithoutStake('false').then(() => null, (error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'BIZ-ENERGY-UNAVAILABLE' });
    const message = (refusal as Error).message;
    expect(message).toMatch(/^no energy source for \d+ energy: self: the main address cannot delegate enough energy; burn: burning TRX for energy is disabled \(ENERGY_BURN\)\. To sweep, /);
    expect(message).toMatch(/stake about \d+ TRX for energy on the main address T\w+ \(POST \/wallets\/T\w+\/stake with resource ENERGY\)/);
    expect(message).toContain('or configure an energy rental provider (ENERGY_PROVIDER=rental');
    expect(message).toMatch(/or set ENERGY_BURN=true \(this sweep would burn about \d+ TRX for its energy\)$/);
    expect(message).not.toMatch(/rental:|rental quote|price cap/);
  });

  it('on: the same collection pays its energy by burning TRX and reaches DONE', async () => {
    expect(await collectWithoutStake('true')).toEqual({ status: COLLECTION_STATUS.DONE, errorCode: null });
  });
});

describe('startComposedWorker: BALANCE_SCAN_START', { timeout: 60_000 }, () => {
  it('a bad start height stops the worker at start, naming the variable; a block number is accepted', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const config = loadConfig({ CHAIN: 'devnet', TRON_FULL_HOST: w.devnet.url, USDT_CONTRACT: w.devnet.usdtAddress }, { mode: 'dev' });
    composition = composeContainer(config, { clock: w.clock, mailer: new RecordingMailer(), hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }) });
    expect(() => startComposedWorker(composition!, { BALANCE_SCAN_START: 'yesterday' }, { manual: true })).toThrow(/BALANCE_SCAN_START/);
    worker = startComposedWorker(composition, { BALANCE_SCAN_START: '1' }, { manual: true });
    await worker.tick();
  });

  it('FORWARD_RETRY_S: a bad value stops the worker at start, naming the variable (issue #34)', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const config = loadConfig({ CHAIN: 'devnet', TRON_FULL_HOST: w.devnet.url, USDT_CONTRACT: w.devnet.usdtAddress }, { mode: 'dev' });
    composition = composeContainer(config, { clock: w.clock, mailer: new RecordingMailer(), hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }) });
    for (const bad of ['soon', '0', '-1', '601']) {
      expect(() => startComposedWorker(composition!, { FORWARD_RETRY_S: bad }, { manual: true })).toThrow(/FORWARD_RETRY_S/);
    }
  });
});
