import type { TestProject } from 'vitest/node';
import { provisionPostgres } from './postgres.js';

/**
 * vitest globalSetup of the test run: one shared PostgreSQL per test run (DATABASE_URL, else a throwaway
 * cluster of the installed binaries), its URL provided to the suites as `inject('postgresUrl')` (empty when
 * unavailable, with `inject('postgresSkipReason')` saying why). Each suite makes a database of its own on it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const target = await provisionPostgres();
  if (target.kind === 'unavailable') {
    process.stdout.write(`SKIPPED: PostgreSQL integration suites: ${target.reason}\n`);
    project.provide('postgresUrl', '');
    project.provide('postgresSkipReason', target.reason);
    return async () => undefined;
  }
  process.stdout.write(`postgres harness: ${target.kind} at ${target.url}\n`);
  project.provide('postgresUrl', target.url);
  project.provide('postgresSkipReason', '');
  return () => target.stop();
}
