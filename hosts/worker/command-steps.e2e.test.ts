/**
 * The command step table's failure route on the devnet: COMMAND_STEPS' failsAs routes the refusals a step decides
 * (risk control blocking a PENDING withdrawal ends it REJECTED), while an error the same step raises ends the command
 * FAILED with withdrawal.failed, as it did before the table: the route is the step's, never the error code's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CommandExecutor } from '../../core/application/worker/command-executor.js';
import { DomainError } from '../../core/domain/errors.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import type { RiskPolicy } from '../../core/ports/risk-policy.port.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('the command step table\'s failure route on the devnet', { timeout: 60_000 }, () => {
  it('a PENDING step\'s own refusal ends it REJECTED; an error raised in that step ends it FAILED with withdrawal.failed', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const from = await w.addSub();
    const to = (await w.gateway.createAccount()).address;
    w.devnet.fund(from, 20n * TRX);
    const refused = await w.withdraw(from, to, 'TRX', TRX);
    const erring = await w.withdraw(await w.addSub(), to, 'TRX', TRX);
    // Risk control refuses the first (a decision of the step) and cannot be read for the second (an error it raises).
    const risk: RiskPolicy = Object.assign(Object.create(w.stores.risk) as RiskPolicy, {
      check: async (subject: Parameters<RiskPolicy['check']>[0]) => {
        if (subject.address !== from) throw new DomainError('VALIDATION-ERROR', { message: 'risk list unreadable (injected)' });
        return { blocked: true as const, reason: 'sanctioned' };
      },
    });
    const executor = new CommandExecutor({ ...w.stores, risk, chain: w.gateway, cipher: w.cipher, assets: w.assets });
    const ended = async (commandNo: string) => {
      const c = (await w.stores.commands.get(commandNo))!;
      return c.status !== COMMAND_STATUS.PENDING && c.status !== COMMAND_STATUS.RUNNING;
    };
    await driveUntil(w, [executor], async () => (await ended(refused.commandNo)) && ended(erring.commandNo), { maxRounds: 20 });
    const events = await w.stores.outbox.listUndispatched(1_000);
    const outcome = async (commandNo: string) => {
      const c = (await w.stores.commands.get(commandNo))!;
      return { status: c.status, code: c.errorCode, tx: c.transaction, events: events.filter((e) => e.payload['command_no'] === commandNo).map((e) => e.eventType) };
    };
    expect(await outcome(refused.commandNo)).toEqual({ status: COMMAND_STATUS.REJECTED, code: 'RISK-REVIEW-BLOCKED', tx: null, events: [] });
    expect(await outcome(erring.commandNo)).toEqual({ status: COMMAND_STATUS.FAILED, code: 'VALIDATION-ERROR', tx: null, events: ['withdrawal.failed'] });
  });
});
