import type { SerializedError } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one plain closing line, `vitest: N passed, N failed, N skipped`, that any CI log reader understands.
 * `failed` counts failed tests plus failures no test owns (a file that did not load, a throwing beforeAll/afterAll,
 * an unhandled error), so the line never reads "0 failed" on a red run.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      const suitesFailed = [...module.children.allSuites()].some((suite) => suite.state() === 'failed' && suite.errors().length > 0);
      if (failedHere === 0 && (module.state() === 'failed' || module.errors().length > 0 || suitesFailed)) failedHere = 1;
      failed += failedHere;
    }
    process.stdout.write(`\nvitest: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
