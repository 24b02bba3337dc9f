import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Three projects: fast unit/contract tests on memory adapters, integration tests against real services
 * (redis-server started by the harness, the devnet chain over HTTP, MongoDB when reachable), and browser tests of the
 * payer page in a real chromium.
 */
export default defineConfig({
  root,
  test: {
    pool: 'forks',
    reporters: ['default', './.config/summary-reporter.ts'],
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['core/**/*.test.ts', 'adapters/**/*.test.ts', 'hosts/**/*.test.ts', 'contracts-tests/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: ['**/*.integration.test.ts', '**/*.browser.test.ts', '**/node_modules/**'],
          // Timeouts catch hangs, not slowness: property runs on a loaded 2-core CI machine can take several seconds.
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['**/*.integration.test.ts'],
          exclude: ['**/node_modules/**'],
          // One shared Redis per run (redis-server on a free port, else REDIS_URL, else testcontainers): inject('redisUrl').
          // One shared PostgreSQL per run (DATABASE_URL, else a throwaway cluster on a free port): inject('postgresUrl').
          globalSetup: ['./contracts-tests/harness/redis.global-setup.ts', './contracts-tests/harness/postgres.global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          // Pages in Debian's chromium through playwright-core (one browser per file); a loud SKIPPED line without it.
          include: ['**/*.browser.test.ts'],
          exclude: ['**/node_modules/**'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
