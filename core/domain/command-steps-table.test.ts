/**
 * The command workflow's step table against the spec's transition table (COMMAND_TRANSITIONS) and the commands the
 * executor claims: every executed command that is PENDING or RUNNING, whatever its approval, runs exactly one row of
 * its own status and no terminal one runs any; completing each row's step moves the command along the machine to
 * SUCCESS; and a step routes its refusals to REJECTED exactly where the machine allows a rejection (nothing was sent
 * before RUNNING). The executor's behaviour per column is covered by the worker's e2e tests (withdrawal, approval,
 * staking, stale reads).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { COMMAND_STATUS, COMMAND_TYPE, type CommandStatus, type CommandType } from './model/command.js';
import type { ApprovalState, CommandApproval } from './model/withdrawal-policy.js';
import { COMMAND_STEPS, commandStatusName, commandStepOf, commandTransition, isActiveCommandStatus } from './command-machine.js';

const EXECUTED: readonly CommandType[] = [
  COMMAND_TYPE.WITHDRAWAL, COMMAND_TYPE.STAKE, COMMAND_TYPE.UNSTAKE, COMMAND_TYPE.WITHDRAW_UNSTAKED, COMMAND_TYPE.VOTE, COMMAND_TYPE.WITHDRAW_REWARD,
];
const STATES: readonly ApprovalState[] = ['awaiting', 'approved', 'denied', 'expired', 'cancelled'];
const approvalOf = (state: ApprovalState, decidedBy: string | null): CommandApproval => ({
  state, deadline: 0, attempts: 0, lastAttemptAt: null, lastRefusal: null, decidedAt: null, decidedBy: decidedBy as never,
});
const APPROVALS: readonly (CommandApproval | null | undefined)[] = [
  undefined, null, ...STATES.flatMap((state) => [approvalOf(state, null), approvalOf(state, 'member-1')]),
];
const commands = fc.record({
  status: fc.constantFrom(...Object.values(COMMAND_STATUS)),
  type: fc.constantFrom(...EXECUTED),
  approval: fc.constantFrom(...APPROVALS),
});

describe('command step table', () => {
  it('an executed command runs exactly one row of its own status while PENDING or RUNNING, and none once terminal', () => {
    fc.assert(fc.property(commands, (command) => {
      const key = commandStepOf(command);
      if (!isActiveCommandStatus(command.status)) return key === null;
      return key !== null && COMMAND_STEPS[key].status === commandStatusName(command.status);
    }), { numRuns: 400 });
  });

  it('completing each row\'s step moves the command on the machine, and the steps from PENDING end in SUCCESS', () => {
    for (const type of EXECUTED) {
      for (const approval of APPROVALS) {
        let status: CommandStatus = COMMAND_STATUS.PENDING;
        const walked: string[] = [];
        for (let key = commandStepOf({ status, type, approval }); key !== null; key = commandStepOf({ status, type, approval })) {
          expect(walked, `${key} twice for ${type} ${JSON.stringify(approval)}`).not.toContain(key);
          walked.push(key);
          const next = commandTransition(status, COMMAND_STEPS[key].completedBy);
          expect(next, `${key} for ${type}`).not.toBeNull();
          status = next!;
        }
        expect(commandStatusName(status), `${walked.join(' → ')} for ${type} ${JSON.stringify(approval)}`).toBe('SUCCESS');
      }
    }
  });

  it('a step routes its refusals to REJECTED exactly where the machine accepts a rejection', () => {
    for (const [key, row] of Object.entries(COMMAND_STEPS)) {
      const rejectable = commandTransition(COMMAND_STATUS[row.status], 'reject') !== null;
      expect(row.failsAs, key).toBe(rejectable ? 'REJECTED' : 'FAILED');
    }
  });
});
