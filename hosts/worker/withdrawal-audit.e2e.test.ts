/**
 * Withdrawal outcomes in the account's audit trail (issue #35 item 8): the worker that ends a withdrawal records
 * withdrawal.completed, withdrawal.failed or withdrawal.rejected with the system as actor, in the same atomic scope as
 * the command's end and its outbox event; the chain still verifies.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CommandExecutor } from '../../core/application/worker/command-executor.js';
import { verifyAuditChain } from '../../core/domain/audit-chain.js';
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

describe('withdrawal outcomes are audited by the worker', { timeout: 60_000 }, () => {
  it('SUCCESS, FAILED and a risk REJECTED each leave one system entry naming the command; the chain verifies', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const [good, poor, blockedFrom] = [await w.addSub(), await w.addSub(), await w.addSub()];
    const to = (await w.gateway.createAccount()).address;
    const sanctioned = (await w.gateway.createAccount()).address;
    w.devnet.fund(good, 20n * TRX);
    w.devnet.fund(poor, 2n * TRX);
    w.devnet.fund(blockedFrom, 20n * TRX);
    const completed = await w.withdraw(good, to, 'TRX', 3n * TRX);
    const failed = await w.withdraw(poor, to, 'TRX', 5n * TRX);
    const rejected = await w.withdraw(blockedFrom, sanctioned, 'TRX', TRX);
    await w.stores.risk.deny({ kind: 'address', value: sanctioned, reason: 'sanctioned' });
    const executor = new CommandExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets });
    await driveUntil(w, [executor], async () =>
      (await ended(w, completed.commandNo)) && (await ended(w, failed.commandNo)) && (await ended(w, rejected.commandNo)));

    const entries = await w.stores.auditLog.readChain(w.userId, 0, 1_000);
    const outcomes = entries.filter((e) => e.action.startsWith('withdrawal.'));
    const txid = (await w.stores.commands.get(completed.commandNo))!.transaction!.txid;
    expect(outcomes.map((e) => [e.action, e.actor, e.detail['command_no'], e.detail['error_code'], e.detail['txid']]).sort()).toEqual([
      ['withdrawal.completed', { kind: 'system', id: null }, completed.commandNo, null, txid],
      ['withdrawal.failed', { kind: 'system', id: null }, failed.commandNo, 'BIZ-INSUFFICIENT-BALANCE', null],
      ['withdrawal.rejected', { kind: 'system', id: null }, rejected.commandNo, 'RISK-REVIEW-BLOCKED', null],
    ].sort());
    expect(outcomes.find((e) => e.action === 'withdrawal.completed')!.detail).toMatchObject({ asset_symbol: 'TRX', amount: String(3n * TRX), to_address: to });
    expect(verifyAuditChain(w.userId, entries).ok).toBe(true);
  });

  it('staking outcomes (issue #35 item 8): a STAKE SUCCESS and an UNSTAKE FAILED each leave one system entry; requests risk control refuses at once are audited', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const [staker, blocked] = [await w.addSub(), await w.addSub()];
    w.devnet.fund(staker, 300n * TRX);
    w.devnet.fund(blocked, 20n * TRX);
    const stake = await w.stake(staker, 'STAKE', 'ENERGY', 100n * TRX);
    const executor = new CommandExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets });
    await driveUntil(w, [executor], () => ended(w, stake.commandNo));
    const unstake = await w.stake(staker, 'UNSTAKE', 'BANDWIDTH', 10n * TRX);
    await driveUntil(w, [executor], () => ended(w, unstake.commandNo));
    // Refused by risk control when asked: recorded REJECTED, and audited with it.
    await w.stores.risk.deny({ kind: 'address', value: blocked, reason: 'sanctioned' });
    const to = (await w.gateway.createAccount()).address;
    await expect(w.withdraw(blocked, to, 'TRX', TRX)).rejects.toMatchObject({ code: 'RISK-REVIEW-BLOCKED' });
    await expect(w.stake(blocked, 'STAKE', 'ENERGY', 5n * TRX)).rejects.toMatchObject({ code: 'RISK-REVIEW-BLOCKED' });

    const entries = await w.stores.auditLog.readChain(w.userId, 0, 1_000);
    const txid = (await w.stores.commands.get(stake.commandNo))!.transaction!.txid;
    const staking = entries.filter((e) => e.action.startsWith('staking.'));
    expect(staking.map((e) => [e.action, e.actor.kind, e.detail['type'], e.detail['error_code'] === null ? null : 'error', e.detail['txid'] ?? null])).toEqual([
      ['staking.completed', 'system', 'stake', null, txid],
      ['staking.failed', 'system', 'unstake', 'error', null],
      ['staking.rejected', 'user', 'stake', 'error', null],
    ]);
    expect(staking[0]!.detail).toMatchObject({ command_no: stake.commandNo, address: staker, amount: String(100n * TRX) });
    const refused = entries.filter((e) => e.action === 'withdrawal.refused');
    expect(refused.map((e) => [e.detail['rule'], e.detail['from_address'], e.detail['to_address'], e.detail['amount']])).toEqual([['RISK-REVIEW-BLOCKED', blocked, to, String(TRX)]]);
    expect(refused[0]!.detail['command_no']).toMatch(/./);
    expect(verifyAuditChain(w.userId, entries).ok).toBe(true);
  });
});
