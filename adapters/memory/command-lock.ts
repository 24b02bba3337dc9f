import { COMMAND_STATUS, COMMAND_TYPE, type Command } from '../../core/domain/model/command.js';

/** Fund-moving commands hold the per-address lock (DESIGN.md "Commands"); QUERY commands never lock. */
export function isFundMovingCommand(command: Pick<Command, 'type'>): boolean {
  return command.type !== COMMAND_TYPE.QUERY;
}

/** Whether the command currently holds its address's lock: fund-moving, on an address, PENDING or RUNNING. */
export function holdsAddressLock(command: Command): boolean {
  return (
    command.address !== null &&
    isFundMovingCommand(command) &&
    (command.status === COMMAND_STATUS.PENDING || command.status === COMMAND_STATUS.RUNNING)
  );
}

/** The command holding the lock of `address` among `commands`, or undefined. */
export function findLockHolder(commands: Iterable<Command>, address: string): Command | undefined {
  for (const command of commands) {
    if (command.address === address && holdsAddressLock(command)) return command;
  }
  return undefined;
}
