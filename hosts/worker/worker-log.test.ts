/**
 * Issue #34: the worker's log says why a workflow failed (its error code and message), not only its status number,
 * and a finished one keeps its one-line `finished` report.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { reportEnds, startWorker, type RunningWorker, type WorkerLog } from './index.js';
import { buildWorkerWorld, type WorkerWorld } from './worker-test-fixture.js';

let world: WorkerWorld | undefined;
let worker: RunningWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  await world?.close();
  worker = undefined;
  world = undefined;
});

/** Every line the worker logs, with its level. */
function recordingLog(): WorkerLog & { lines: { level: string; fields: Record<string, unknown>; message: string }[] } {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const at = (level: string) => (fields: object, message: string) => { lines.push({ level, fields: fields as Record<string, unknown>, message }); };
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

describe('the worker log of a finished workflow', { timeout: 60_000 }, () => {
  it('a failed collection: a warn line with the error code and message; nothing sent', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n, seed: 'worker-log' });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 1_000_000n);
    w.devnet.mine(1);
    // A task made without the API's energy check (as before issue #34): no energy source, it fails at PENDING.
    const task = await w.collect(sub, 'USDT');
    const log = recordingLog();
    worker = startWorker({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: {} }, { manual: true });
    // What the worker's loop does with each tick's report.
    for (let i = 0; i < 5 && (await w.stores.tasks.get(task.taskNo))!.finishedAt === null; i++) reportEnds(await worker.tick(), log);
    expect((await w.stores.tasks.get(task.taskNo))!).toMatchObject({ status: COLLECTION_STATUS.FAILED, steps: [] });
    const line = log.lines.find((l) => l.fields['key'] === task.taskNo);
    expect(line).toMatchObject({
      level: 'warn', fields: { workflow: 'collection', status: COLLECTION_STATUS.FAILED, error_code: 'BIZ-ENERGY-UNAVAILABLE' },
    });
    expect(line!.message).toMatch(/^collection failed: BIZ-ENERGY-UNAVAILABLE: no energy source for \d+ energy: burn: burning TRX for energy is disabled \(ENERGY_BURN\)\. To sweep, /);
    // No self-delegation and no rental were configured here: the reasons name neither.
    expect(line!.message).not.toMatch(/self: |rental: /);
  });
});
