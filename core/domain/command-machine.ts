import { COMMAND_STATUS, COMMAND_TYPE, type Command, type CommandStatus, type CommandType } from './model/command.js';

/** Status names of spec §2's command status enum. */
export type CommandStatusName = keyof typeof COMMAND_STATUS;

/** start: executor picks it up; succeed/fail: outcome; reject: risk control; cancel: admin. */
export type CommandEvent = 'start' | 'succeed' | 'fail' | 'reject' | 'cancel';

/** Whether the command has broadcast anything to the chain (cancelling is only allowed before). */
export interface CommandContext {
  readonly broadcast: boolean;
}

/**
 * DESIGN.md "Commands": PENDING→RUNNING→SUCCESS|FAILED; PENDING→REJECTED (risk); PENDING|RUNNING→CANCELLED (admin,
 * only before anything was broadcast). Terminal states never change. `notBroadcast` rows need `{ broadcast: false }`.
 */
export const COMMAND_TRANSITIONS = [
  { from: 'PENDING', event: 'start', requires: null, to: 'RUNNING' },
  { from: 'RUNNING', event: 'succeed', requires: null, to: 'SUCCESS' },
  { from: 'RUNNING', event: 'fail', requires: null, to: 'FAILED' },
  { from: 'PENDING', event: 'reject', requires: null, to: 'REJECTED' },
  { from: 'PENDING', event: 'cancel', requires: 'notBroadcast', to: 'CANCELLED' },
  { from: 'RUNNING', event: 'cancel', requires: 'notBroadcast', to: 'CANCELLED' },
] as const satisfies readonly { from: CommandStatusName; event: CommandEvent; requires: 'notBroadcast' | null; to: CommandStatusName }[];

const TERMINAL: ReadonlySet<CommandStatus> = new Set([
  COMMAND_STATUS.SUCCESS, COMMAND_STATUS.FAILED, COMMAND_STATUS.REJECTED, COMMAND_STATUS.CANCELLED,
]);

/** SUCCESS, FAILED, REJECTED and CANCELLED. */
export function isTerminalCommandStatus(s: CommandStatus): boolean {
  return TERMINAL.has(s);
}

/** PENDING or RUNNING: such a fund-moving command holds its address's lock (DESIGN.md). */
export function isActiveCommandStatus(s: CommandStatus): boolean {
  return s === COMMAND_STATUS.PENDING || s === COMMAND_STATUS.RUNNING;
}

/** Every type except QUERY moves funds and so takes the per-address lock; QUERY records manual refreshes. */
export function isFundMoving(type: CommandType): boolean {
  return type !== COMMAND_TYPE.QUERY;
}

const NAMES = new Map<CommandStatus, CommandStatusName>(
  Object.entries(COMMAND_STATUS).map(([name, value]) => [value, name as CommandStatusName]),
);

/** The spec's name of a command status value (`2` → `RUNNING`). */
export function commandStatusName(s: CommandStatus): CommandStatusName {
  const name = NAMES.get(s);
  if (name === undefined) throw new RangeError(`unknown command status ${String(s)}`);
  return name;
}

/**
 * The next status, or null when refused. A cancel without a context is refused: whether something was broadcast
 * must be known, never assumed, or a cancelled command could still move funds.
 */
export function commandTransition(from: CommandStatus, event: CommandEvent, ctx?: CommandContext): CommandStatus | null {
  const fromName = commandStatusName(from);
  const row = COMMAND_TRANSITIONS.find((r) => r.from === fromName && r.event === event);
  if (row === undefined) return null;
  if (row.requires === 'notBroadcast' && ctx?.broadcast !== false) return null;
  return COMMAND_STATUS[row.to];
}

/**
 * The command workflow's step table (withdrawals and staking commands, command-executor.ts): PENDING runs risk
 * control again (it completes without a transaction: `start`); RUNNING sends the command's one transaction, which
 * completes it at the depth its executor is configured with (a withdrawal: on acceptance by default, spec §6).
 * Neither runs after money moved, so a failure there may end the command FAILED (or REJECTED by risk control).
 */
export const COMMAND_STEPS = {
  PENDING: { step: 'risk-check', completedBy: 'start', mustFinish: false, completion: 'accepted', awaits: null },
  RUNNING: { step: 'transaction', completedBy: 'succeed', mustFinish: false, completion: 'depth', awaits: null },
} as const satisfies Partial<Record<CommandStatusName, {
  step: string; completedBy: CommandEvent; mustFinish: boolean; completion: 'depth' | 'accepted'; awaits: null;
}>>;

/**
 * The step a PENDING withdrawal runs instead of `risk-check` while its approval is awaited (issue #26; the status
 * stays PENDING, the spec's): risk control again, then one request to the approver. An approval completes it like
 * risk-check (`start`, with the approval saved in the same write); a denial or the deadline ends it REJECTED. Nothing
 * is sent before (RUNNING is reached only through this step's completion), so it may fail.
 */
export const COMMAND_APPROVAL_STEP = {
  step: 'approval', completedBy: 'start', mustFinish: false, completion: 'accepted', awaits: null,
} as const satisfies { step: string; completedBy: CommandEvent; mustFinish: boolean; completion: 'accepted'; awaits: null };

/**
 * The one change set that ends a command: SUCCESS or FAILED from RUNNING (a PENDING command starts first, since the
 * machine ends only RUNNING ones), stamped and with its lease released; null when it is terminal already. Every
 * workflow ends its command with this, committed once with the rest of its unit of work.
 */
export function finishedCommand(command: Command, ok: boolean, errorCode: string | null, lastError: string | null, now: number): Command | null {
  const running = command.status === COMMAND_STATUS.PENDING ? commandTransition(command.status, 'start') : command.status;
  if (running === null) return null;
  const status = commandTransition(running, ok ? 'succeed' : 'fail');
  if (status === null) return null;
  return {
    ...command, status, errorCode, lastError, startedAt: command.startedAt ?? now, finishedAt: now, lease: null, version: command.version + 1,
  };
}

