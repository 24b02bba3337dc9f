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

/**
 * Rounds until `done()` holds or `maxRounds` passed; returns the rounds used (blocks mined). Errors thrown by an
 * executor (an injected crash) are handed to `onError` and the round goes on, as a supervisor restarting it would.
 */
export async function driveUntil(
  world: { readonly devnet: Devnet; readonly clock: ManualClock },
  runners: readonly Runnable[],
  done: () => Promise<boolean>,
  options: { readonly maxRounds?: number; readonly onError?: (error: unknown) => void } = {},
): Promise<number> {
  const maxRounds = options.maxRounds ?? 400;
  for (let round = 0; round < maxRounds; round++) {
    for (const runner of runners) {
      try {
        await runner.runDue();
      } catch (error) {
        if (options.onError === undefined) throw error;
        options.onError(error);
      }
    }
    if (await done()) return round;
    world.devnet.mine(1);
    world.clock.advance(BLOCK_MS);
  }
  throw new Error(`not done after ${maxRounds} rounds`);
}
