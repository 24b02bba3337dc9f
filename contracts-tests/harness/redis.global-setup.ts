import type { TestProject } from 'vitest/node';
import { provisionRedis } from './redis.js';

/**
 * vitest globalSetup of the test run: one shared Redis per test run, its URL provided to the suites as
 * `inject('redisUrl')` (empty when unavailable, with `inject('redisSkipReason')` saying why).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const target = await provisionRedis();
  if (target.kind === 'unavailable') {
    process.stdout.write(`SKIPPED: Redis integration suites: ${target.reason}\n`);
    project.provide('redisUrl', '');
    project.provide('redisSkipReason', target.reason);
    return async () => undefined;
  }
  process.stdout.write(`redis harness: ${target.kind} at ${target.url}\n`);
  project.provide('redisUrl', target.url);
  project.provide('redisSkipReason', '');
  return () => target.stop();
}
