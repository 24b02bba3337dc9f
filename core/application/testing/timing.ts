/**
 * Test support for the timing tests (a known e-mail must take as long as an unknown one): the medians of two
 * operations timed in turn, `pairs` times each after one warm-up of each. Timed in turn, a machine busy with other test
 * files slows both alike; timed one batch after the other, a burst of load on one batch alone once put a ratio far
 * outside its bounds.
 */
export async function medianPair(first: () => Promise<unknown>, second: () => Promise<unknown>, pairs = 9): Promise<{ first: number; second: number }> {
  const timed = async (run: () => Promise<unknown>): Promise<number> => {
    const started = performance.now();
    await run();
    return performance.now() - started;
  };
  await timed(first);
  await timed(second);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < pairs; i++) {
    a.push(await timed(first));
    b.push(await timed(second));
  }
  const median = (times: number[]): number => times.sort((x, y) => x - y)[Math.floor(times.length / 2)]!;
  return { first: median(a), second: median(b) };
}
