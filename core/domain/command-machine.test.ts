import { runs } from '../../contracts-tests/support/depth.js';
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
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

  it('model-based: random event sequences never leave a terminal state or reach an unlisted one', () => {
    interface Model { status: CommandStatus; broadcast: boolean }
    interface Real { status: CommandStatus }
    class Fire implements fc.Command<Model, Real> {
      constructor(readonly event: CommandEvent, readonly ctx: CommandContext | undefined) {}
      check(): boolean { return true; }
      run(model: Model, real: Real): void {
        const before = real.status;
        const next = commandTransition(before, this.event, this.ctx);
        expect(next).toBe(designTarget(model.status, this.event, this.ctx));
        if (next !== null) real.status = next;
        if (isTerminalCommandStatus(before)) expect(real.status).toBe(before);
        if (this.ctx?.broadcast === true) model.broadcast = true;
        // Once a command is known to have broadcast, it never ends up CANCELLED by a later cancel with that knowledge.
        if (before !== CANCELLED && real.status === CANCELLED) expect(this.ctx?.broadcast).toBe(false);
        model.status = real.status;
      }
      toString(): string { return `${this.event}(${JSON.stringify(this.ctx)})`; }
    }
    const cmd = fc.tuple(fc.constantFrom(...EVENTS), fc.constantFrom(...CONTEXTS)).map(([e, c]) => new Fire(e, c));
    fc.assert(fc.property(fc.commands([cmd], { maxCommands: 30 }), (cmds) => {
      const model: Model = { status: PENDING, broadcast: false };
      fc.modelRun(() => ({ model, real: { status: PENDING } }), cmds);
      expect(STATUSES).toContain(model.status);
    }), { numRuns: runs(200) });
  });
});
