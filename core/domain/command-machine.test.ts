import { describe, it, expect } from 'vitest';
import { COMMAND_STATUS, COMMAND_TYPE, type CommandStatus } from './model/command.js';
import {
  commandStatusName, commandTransition, COMMAND_TRANSITIONS, isActiveCommandStatus, isFundMoving, isTerminalCommandStatus,
  type CommandContext, type CommandEvent,
} from './command-machine.js';

const { PENDING, RUNNING, SUCCESS, FAILED, REJECTED, CANCELLED } = COMMAND_STATUS;

/** DESIGN.md "Commands", copied by hand: [from, event, needs nothing broadcast, to]. */
const DESIGN_TABLE: readonly [CommandStatus, CommandEvent, boolean, CommandStatus][] = [
  [PENDING, 'start', false, RUNNING],
  [RUNNING, 'succeed', false, SUCCESS],
  [RUNNING, 'fail', false, FAILED],
  [PENDING, 'reject', false, REJECTED],
  [PENDING, 'cancel', true, CANCELLED],
  [RUNNING, 'cancel', true, CANCELLED],
];

const STATUSES = Object.values(COMMAND_STATUS);
const EVENTS: CommandEvent[] = ['start', 'succeed', 'fail', 'reject', 'cancel'];
const CONTEXTS: (CommandContext | undefined)[] = [undefined, { broadcast: false }, { broadcast: true }];

function designTarget(from: CommandStatus, event: CommandEvent, ctx: CommandContext | undefined): CommandStatus | null {
  const row = DESIGN_TABLE.find(([f, e]) => f === from && e === event);
  if (row === undefined) return null;
  return row[2] && ctx?.broadcast !== false ? null : row[3];
}

describe('command state machine', () => {
  const cases = STATUSES.flatMap((from) => EVENTS.flatMap((event) => CONTEXTS.map((ctx) => [from, event, ctx] as const)));
  it.each(cases)('%i on %s with %j matches DESIGN.md', (from, event, ctx) => {
    expect(commandTransition(from, event, ctx)).toBe(designTarget(from, event, ctx));
  });

  it('has one row per DESIGN.md transition', () => {
    expect(COMMAND_TRANSITIONS).toHaveLength(DESIGN_TABLE.length);
    expect(cases).toHaveLength(6 * 5 * 3);
  });

  it('cancels only before anything was broadcast, and never without knowing', () => {
    expect(commandTransition(RUNNING, 'cancel', { broadcast: false })).toBe(CANCELLED);
    expect(commandTransition(RUNNING, 'cancel', { broadcast: true })).toBeNull();
    expect(commandTransition(PENDING, 'cancel')).toBeNull();
  });

  it('classifies terminal and active statuses', () => {
    expect(STATUSES.filter(isTerminalCommandStatus)).toEqual([SUCCESS, FAILED, REJECTED, CANCELLED]);
    expect(STATUSES.filter(isActiveCommandStatus)).toEqual([PENDING, RUNNING]);
    for (const s of STATUSES) expect(isTerminalCommandStatus(s)).toBe(!isActiveCommandStatus(s));
  });

  it('treats every type except QUERY as fund-moving', () => {
    expect(Object.values(COMMAND_TYPE).filter(isFundMoving)).toEqual([2, 3, 4, 5, 6, 7, 8]);
  });

  it('names statuses as the spec does', () => {
    expect(STATUSES.map(commandStatusName)).toEqual(Object.keys(COMMAND_STATUS));
  });
});
