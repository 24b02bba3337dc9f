/**
 * Staking commands through the command executor on the devnet: a STAKE lands and is SUCCESS once confirmed (no
 * webhook: spec §6 has none for staking); an UNSTAKE the chain refuses ends FAILED with the node's reason.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CommandExecutor } from '../../core/application/worker/command-executor.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function ended(w: WorkerWorld, commandNo: string): Promise<boolean> {
  const c = await w.stores.commands.get(commandNo);
  return c !== null && c.status !== COMMAND_STATUS.PENDING && c.status !== COMMAND_STATUS.RUNNING;
}

describe('staking commands on the devnet', { timeout: 60_000 }, () => {
  it('STAKE: RUNNING until the freeze is in a block, then SUCCESS; the stake shows on chain; no event', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const address = await w.addSub();
    w.devnet.fund(address, 500n * TRX);
    const command = await w.stake(address, 'STAKE', 'ENERGY', 200n * TRX);
    const executor = new CommandExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets });
    expect((await executor.runDue()).map((o) => [o.outcome, o.sent])).toEqual([['advanced', true]]);
    expect((await w.stores.commands.get(command.commandNo))!.status).toBe(COMMAND_STATUS.RUNNING);
    await driveUntil(w, [executor], () => ended(w, command.commandNo));
    const done = (await w.stores.commands.get(command.commandNo))!;
    expect({ status: done.status, error: done.lastError }).toEqual({ status: COMMAND_STATUS.SUCCESS, error: null });
    expect((await w.gateway.getResources(address)).energy.stakedSun).toBe(200n * TRX);
    expect(await w.stores.outbox.listUndispatched(100)).toEqual([]);
    expect(await w.stores.commands.findActiveByAddress(address)).toBeNull();
  });

  it('UNSTAKE of more than is staked: FAILED with the chain error, the lock released', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const address = await w.addSub();
    w.devnet.fund(address, 50n * TRX);
    const command = await w.stake(address, 'UNSTAKE', 'ENERGY', 10n * TRX);
    const executor = new CommandExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets });
    await driveUntil(w, [executor], () => ended(w, command.commandNo));
    const failed = (await w.stores.commands.get(command.commandNo))!;
    expect(failed.status).toBe(COMMAND_STATUS.FAILED);
    expect(failed.errorCode).toMatch(/^(CHAIN-BROADCAST-FAILED|CHAIN-TRANSACTION-FAILED|VALIDATION-ERROR)$/);
    expect(failed.lastError).toBeTruthy();
    expect(await w.stores.commands.findActiveByAddress(address)).toBeNull();
  });
});
