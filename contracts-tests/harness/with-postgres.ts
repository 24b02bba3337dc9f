import { describe, inject, it } from 'vitest';
import { announceSkipped } from '../support/skipped.js';

declare module 'vitest' {
  /** Values the test run's globalSetup (postgres.global-setup.ts) provides. */
  export interface ProvidedContext {
    /** Superuser URL of the run's shared PostgreSQL server; empty when none could be found. */
    postgresUrl: string;
    /** Why there is no shared PostgreSQL; empty when there is one. */
    postgresSkipReason: string;
  }
}

/**
 * Declares `suite` around `body(serverUrl)` when the run's shared PostgreSQL is available. Otherwise prints a line
 * starting with `SKIPPED:` naming the suite and the reason, and declares the suite skipped, so it never passes
 * silently. In CI it is always available (.ci/run installs Debian's postgresql).
 */
export function describeWithPostgres(suite: string, body: (serverUrl: string) => void): void {
  const url = inject('postgresUrl');
  if (typeof url === 'string' && url !== '') {
    describe(suite, () => body(url));
    return;
  }
  const reason = inject('postgresSkipReason') || 'no PostgreSQL provided (the globalSetup of the test run did not run)';
  announceSkipped(suite, reason);
  describe.skip(suite, () => {
    it.skip(`needs PostgreSQL: ${reason}`, () => undefined);
  });
}
