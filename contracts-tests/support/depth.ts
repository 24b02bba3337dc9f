/**
 * How hard the randomized tests search, from ONE variable: TEST_DEPTH scales every property test's runs (fast-check
 * `numRuns`, through `runs`) and the crash tests' batches (through `scaled`).
 *
 * - unset: `npm test` depth, QUICK_DEPTH (a quarter of the full counts; a count of 10 or less is never cut);
 * - `TEST_DEPTH=1`: the full counts written in the tests (`npm run test:deep`);
 * - `TEST_DEPTH=4` (any number above 1): deeper, four times the full counts.
 *
 * Seeds stay printed by the crash tests whatever the depth, so a failure found deep repeats at any depth.
 */
export const QUICK_DEPTH = 0.25;

/** The run's depth: TEST_DEPTH as a positive number, or QUICK_DEPTH when it is unset or empty. */
export const TEST_DEPTH: number = parseDepth(process.env['TEST_DEPTH']);

export function parseDepth(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return QUICK_DEPTH;
  const depth = Number(raw);
  if (!Number.isFinite(depth) || depth <= 0) throw new Error(`TEST_DEPTH must be a positive number (1 = full depth), got ${JSON.stringify(raw)}`);
  return depth;
}

/**
 * fast-check runs for a property written with `full` runs: `full` times the depth, rounded, but never below
 * min(full, 10), so small counts (a handful of expensive runs) stay as written.
 */
export function runs(full: number, depth: number = TEST_DEPTH): number {
  return Math.max(Math.min(full, 10), Math.round(full * depth));
}

/** A crash test's batch size written as `full` at full depth: scaled like `runs`, never below `floor`. */
export function scaled(full: number, floor: number, depth: number = TEST_DEPTH): number {
  return Math.max(Math.min(full, floor), Math.round(full * depth));
}
