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

/** The rows of the command workflow's step table. */
export type CommandStepKey = 'pending' | 'awaiting-approval' | 'withdrawal' | 'staking';

/** One row of COMMAND_STEPS. */
export interface CommandStepRow {
  /** The command status the step runs in (the spec's; awaiting an approval is PENDING too). */
  readonly status: CommandStatusName;
  /** Which commands of that status run it: by their approval (asked: awaited, or decided by a person) and by type. */
  readonly approval: 'asked' | 'not-asked' | 'any';
  readonly type: 'withdrawal' | 'staking' | 'any';
  readonly step: string;
  /** The event of COMMAND_TRANSITIONS that completing the step fires. */
  readonly completedBy: 'start' | 'succeed';
  /**
   * The failure route: where a failure the step decides (its own refusal) ends the command. REJECTED: a rule refused
   * the request before anything was sent; FAILED: it was tried. An error or the chain's evidence always ends it FAILED.
   */
  readonly failsAs: 'REJECTED' | 'FAILED';
  /** The step runs after money moved: it never fails (no command step does; a funded withdrawal's own steps may). */
  readonly mustFinish: boolean;
  /** When the step's transaction completes it: at the executor's configured depth, or once a node accepted it. */
  readonly completion: 'depth' | 'accepted';
}

/**
 * The command workflow's step table (withdrawals and staking commands, command-executor.ts): a PENDING command runs
 * risk control and the withdrawal policy again (`pending`; it completes without a transaction: `start`), or, while a
 * withdrawal's approval is awaited (issue #26) or once a person decided it, the approval step (risk control again,
 * then one request to the approver; an approval completes it like `pending`). A RUNNING command sends its one
 * transaction, which completes it at the depth its executor is configured with (a withdrawal: on acceptance by
 * default, spec §6). Nothing is sent before RUNNING, so the PENDING steps' refusals end the command REJECTED; a
 * RUNNING step that fails ends it FAILED. A funded withdrawal's RUNNING steps are COLLECTION_STEPS rows
 * (withdrawal-funding.ts).
 */
export const COMMAND_STEPS = {
  pending: {
    status: 'PENDING', approval: 'not-asked', type: 'any', step: 'risk-check', completedBy: 'start', failsAs: 'REJECTED', mustFinish: false, completion: 'accepted',
  },
  'awaiting-approval': {
    status: 'PENDING', approval: 'asked', type: 'any', step: 'approval', completedBy: 'start', failsAs: 'REJECTED', mustFinish: false, completion: 'accepted',
  },
  withdrawal: {
    status: 'RUNNING', approval: 'any', type: 'withdrawal', step: 'withdrawal', completedBy: 'succeed', failsAs: 'FAILED', mustFinish: false, completion: 'depth',
  },
  staking: {
    status: 'RUNNING', approval: 'any', type: 'staking', step: 'staking', completedBy: 'succeed', failsAs: 'FAILED', mustFinish: false, completion: 'depth',
  },
} as const satisfies Record<CommandStepKey, CommandStepRow>;

/**
 * The row a command runs now, read from COMMAND_STEPS (the one whose status, approval and type match); null when none
 * does (a terminal command). Staking means any executed type but WITHDRAWAL. Two matching rows are a broken table.
 */
export function commandStepOf(command: Pick<Command, 'status' | 'type' | 'approval'>): CommandStepKey | null {
  const status = commandStatusName(command.status);
  const approval = command.approval?.state === 'awaiting' || command.approval?.decidedBy != null ? 'asked' : 'not-asked';
  const type = command.type === COMMAND_TYPE.WITHDRAWAL ? 'withdrawal' : 'staking';
  const rows: readonly [CommandStepKey, CommandStepRow][] = Object.entries(COMMAND_STEPS) as [CommandStepKey, CommandStepRow][];
  const found = rows.filter(([, row]) => row.status === status && (row.approval === 'any' || row.approval === approval) && (row.type === 'any' || row.type === type));
  if (found.length > 1) throw new RangeError(`COMMAND_STEPS: ${found.map(([key]) => key).join(' and ')} both run a ${status} command`);
  return found[0]?.[0] ?? null;
}

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

