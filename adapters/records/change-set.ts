import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { ChangeSet } from '../../core/ports/unit-of-work.port.js';

/**
 * The check every durable store's unit of work makes before its first write: a command, task, event or deposit key
 * repeated inside one change set (for new deposits, also a transfer) is a ConcurrencyConflict (two writes of one row
 * cannot both win). Returns the change set's parts with absent lists as empty ones, and whether there is anything to
 * write.
 */
export function distinctChanges(
  changes: ChangeSet,
): Required<Omit<ChangeSet, 'velocity'>> & { readonly velocity: ChangeSet['velocity']; readonly empty: boolean } {
  const { newCommands = [], newTasks = [], commands = [], tasks = [], events = [], newDeposits = [], deposits = [], payments = [] } = changes;
  assertDistinct('command', [...commands, ...newCommands].map((c) => c.commandNo));
  assertDistinct('collection task', [...tasks, ...newTasks].map((t) => t.taskNo));
  assertDistinct('webhook event', events.map((e) => e.eventId));
  assertDistinct('deposit', [...deposits, ...newDeposits].map((d) => d.depositId));
  assertDistinct('deposit', newDeposits.map((d) => `${d.networkCode}\u0000${d.transferId}`));
  assertDistinct('cashier token', payments.map((p) => p.tokenNo));
  const empty = newCommands.length + newTasks.length + commands.length + tasks.length + events.length + newDeposits.length
    + deposits.length + payments.length === 0;
  return { newCommands, newTasks, commands, tasks, events, newDeposits, deposits, payments, velocity: changes.velocity, empty };
}

function assertDistinct(entity: string, keys: readonly string[]): void {
  if (new Set(keys).size !== keys.length) throw new ConcurrencyConflict(entity, keys.find((key, i) => keys.indexOf(key) !== i)!);
}
