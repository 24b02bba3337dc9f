import { describe, it } from 'vitest';

/** A test body as vitest takes it. */
type TestBody = () => unknown;

/**
 * Prints the loud line of a skip: `SKIPPED: <what>: <reason>`. Every test or suite of this repository that can be
 * skipped prints one (skipped.test.ts checks the test files), so a run that skips says what it did not check and why,
 * and never passes silently.
 */
export function announceSkipped(what: string, reason: string): void {
  console.warn(`SKIPPED: ${what}: ${reason}`);
}

/**
 * `describe(title, body)` when `reason` is null. Otherwise the SKIPPED line naming the suite and the reason, and the
 * suite declared skipped with one skipped test that carries the reason (the reporter counts it as skipped).
 */
export function describeUnless(reason: string | null, title: string, body: () => void): void {
  if (reason === null) {
    describe(title, body);
    return;
  }
  announceSkipped(title, reason);
  describe.skip(title, () => {
    it.skip(`skipped: ${reason}`, () => undefined);
  });
}

/**
 * A test declarer for one suite: `itUnless(reason, suite)(title, fn, timeout)` is `it(title, fn, timeout)` when
 * `reason` is null, and otherwise a skipped test whose SKIPPED line names `suite › title` and the reason. For
 * capability switches of contract suites: the capability a subject lacks is the reason.
 */
export function itUnless(reason: string | null, suite: string): (title: string, fn: TestBody, timeout?: number) => void {
  return (title, fn, timeout) => {
    if (reason === null) {
      it(title, fn, timeout);
      return;
    }
    announceSkipped(`${suite} › ${title}`, reason);
    it.skip(title, fn, timeout);
  };
}
