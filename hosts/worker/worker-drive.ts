/**
 * Drives executors against the devnet deterministically for tests and the bench: each round every executor runs
 * what is due, then the chain mines one block and the ManualClock moves by one block interval.
 */
import type { ManualClock } from '../../adapters/memory/index.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';

/** Anything with a runDue() (the collection and withdrawal executors). */
export interface Runnable {
  runDue(maxStages?: number): Promise<unknown>;
}

/** TRON's block interval: what one round moves both clocks by. */
export const BLOCK_MS = 3_000;

/** Options of driveUntil. */
export interface DriveOptions {
  readonly maxRounds?: number;
  /** Worker passes per block (default 1); more lets a worker look at a transaction still in the pool. */
  readonly ticksPerBlock?: number;
  /** Runners of one pass run concurrently (interleaving at every await) instead of one after another. */
  readonly concurrent?: boolean;
  readonly onError?: (error: unknown) => void;
}

async function runAll(runners: readonly Runnable[], options: DriveOptions): Promise<void> {
  const guarded = async (runner: Runnable): Promise<void> => {
    try {
      await runner.runDue();
    } catch (error) {
      if (options.onError === undefined) throw error;
      options.onError(error);
    }
  };
  if (options.concurrent === true) await Promise.all(runners.map(guarded));
  else for (const runner of runners) await guarded(runner);
}

/**
 * Rounds until `done()` holds or `maxRounds` passed; returns the rounds used (blocks mined). Errors thrown by an
 * executor (an injected crash) are handed to `onError` and the round goes on, as a supervisor restarting it would.
 */
export async function driveUntil(
  world: { readonly devnet: Devnet; readonly clock: ManualClock },
  runners: readonly Runnable[],
  done: () => Promise<boolean>,
  options: DriveOptions = {},
): Promise<number> {
  const maxRounds = options.maxRounds ?? 400;
  const ticks = options.ticksPerBlock ?? 1;
  for (let round = 0; round < maxRounds; round++) {
    for (let tick = 0; tick < ticks; tick++) {
      if (tick > 0) world.clock.advance(Math.floor(BLOCK_MS / ticks));
      await runAll(runners, options);
    }
    if (await done()) return round;
    world.devnet.mine(1);
    world.clock.advance(BLOCK_MS - (ticks - 1) * Math.floor(BLOCK_MS / ticks));
  }
  throw new Error(`not done after ${maxRounds} rounds`);
}
