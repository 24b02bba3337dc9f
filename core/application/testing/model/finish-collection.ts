import { Buffer } from 'node:buffer';
import { collectionTransition, type CollectionEvent } from '../../../domain/collection-machine.js';
import { commandTransition } from '../../../domain/command-machine.js';
import { COLLECTION_STATUS, type CollectionStatus, type CollectionTask } from '../../../domain/model/collection-task.js';
import type { Command } from '../../../domain/model/command.js';
import type { ResolvedDeps } from '../../deps.js';
import { collectionEvent } from '../../webhook-events.js';

/** The ports a collection worker writes through. */
export type FinishDeps = Pick<ResolvedDeps, 'tasks' | 'commands' | 'uow' | 'ids' | 'clock' | 'assets'>;

/** The events that move a task forward, in the order they are tried (spec §3 triggers). */
const FORWARD: readonly CollectionEvent[] = ['start', 'step-completed', 'threshold-met'];

/**
 * Ends a PENDING collection the way the executor will (no public use case finishes a task yet): walks the spec §3
 * machine to DONE (TRC20 on the rental path, so the undelegation step is skipped) or takes the unrecoverable-error
 * row to FAILED, moves the command PENDING → RUNNING → SUCCESS|FAILED, and writes task, command and the
 * collection.* event in one unit of work — which is what releases the address lock.
 * Throws when the task or its command is missing, or when the machine refuses a step.
 */
export async function finishCollection(deps: FinishDeps, taskNo: string, outcome: 'done' | 'failed'): Promise<CollectionTask> {
  const task = await deps.tasks.get(taskNo);
  if (task === null) throw new RangeError(`task ${taskNo} missing`);
  const command = await deps.commands.get(task.commandNo);
  if (command === null) throw new RangeError(`command ${task.commandNo} missing`);
  const asset = deps.assets.find(task.networkCode, task.assetSymbol);
  if (asset === null) throw new RangeError(`asset ${task.assetSymbol} unknown`);
  const ctx = { assetKind: asset.kind, energyPath: asset.kind === 'trc20' ? 'rental' as const : null };
  const status = outcome === 'failed' ? failedStatus(task.status, ctx) : walkToDone(task.status, ctx);
  const running = commandTransition(command.status, 'start');
  const final = running === null ? null : commandTransition(running, outcome === 'done' ? 'succeed' : 'fail');
  if (final === null) throw new RangeError(`command ${command.commandNo} cannot finish from ${command.status}`);
  const now = deps.clock.now();
  const done = outcome === 'done';
  const finished: CollectionTask = {
    ...task, status, energyPath: ctx.energyPath, sweptAmount: done ? 0n : null,
    sweepTxHash: done ? Buffer.from(deps.ids.randomBytes(32)).toString('hex') : null,
    errorCode: done ? null : 'CHAIN-TRANSACTION-FAILED', lastError: done ? null : 'sweep failed in the model test',
    finishedAt: now, lease: null, version: task.version + 1,
  };
  const finishedCommand: Command = {
    ...command, status: final, startedAt: command.startedAt ?? now, finishedAt: now,
    errorCode: finished.errorCode, lastError: finished.lastError, version: command.version + 1,
  };
  await deps.uow.commit({
    commands: [finishedCommand], tasks: [finished], events: [collectionEvent(finished, deps.ids.uuid(), now)],
  });
  return finished;
}

function failedStatus(from: CollectionStatus, ctx: Parameters<typeof collectionTransition>[2]): CollectionStatus {
  const to = collectionTransition(from, 'unrecoverable-error', ctx);
  if (to === null) throw new RangeError(`no failure from status ${from}`);
  return to;
}

function walkToDone(from: CollectionStatus, ctx: Parameters<typeof collectionTransition>[2]): CollectionStatus {
  let status = from;
  // The longest flow (TRC20) has 7 steps; more means the machine loops.
  for (let i = 0; i < 10 && status !== COLLECTION_STATUS.DONE; i += 1) {
    const next = FORWARD.map((event) => collectionTransition(status, event, ctx)).find((s) => s !== null);
    if (next === undefined || next === null) throw new RangeError(`the machine is stuck at status ${status}`);
    status = next;
  }
  if (status !== COLLECTION_STATUS.DONE) throw new RangeError('the machine never reaches DONE');
  return status;
}
