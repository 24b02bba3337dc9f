import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import WaitFirstSequencer from './wait-first-sequencer.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Three projects: fast unit/contract tests on memory adapters, integration tests against real services
 * (redis-server started by the harness, the devnet chain over HTTP, MongoDB when reachable), and browser tests of the
 * payer page in a real chromium.
 *
 * Speed (issue #39 item 9): the files of all three projects share their worker processes (`isolate: false`), so a worker
 * imports tronweb, pg and the app's modules once instead of once per file (that import was 186 s of a 449 s run; the
 * unit project alone went from 25 s to 11 s on core/). A file must leave no module state, global or process setting
 * behind that another file could see (no vi.mock, no process.env writes, fake timers restored). Five workers on two
 * cores: an integration file spends most of its time waiting on devnet blocks, child processes or PostgreSQL (one of
 * 59 s used 9.5 s of CPU), and the other workers use that time. The two longest integration files start first, the
 * browser files beside them, then the other integration files, the unit files last (.config/wait-first-sequencer.ts).
 * Property and crash tests scale with TEST_DEPTH (contracts-tests/support/depth.ts; `npm run test:deep` for full depth).
 */
export default defineConfig({
  root,
  test: {
    pool: 'forks',
    reporters: ['default', './.config/summary-reporter.ts', ...(process.env['TEST_CPU_PROFILE'] ? ['./.config/cpu-profile-reporter.ts'] : [])],
    // `TEST_CPU_PROFILE=<dir>`: each file's CPU time, for finding the slow files (scripts/cpu-profile.mjs sums them).
    setupFiles: process.env['TEST_CPU_PROFILE'] ? ['./.config/cpu-profile.setup.ts'] : [],
    // Five workers: the two longest integration files start first and mostly wait, three workers run the browser files
    // beside them; then the other integration files, and the unit files last (.config/wait-first-sequencer.ts).
    maxWorkers: 5,
    sequence: { sequencer: WaitFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          isolate: false,
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
          isolate: false,
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
          // Shared workers too: each file starts the `npm start` stack in-process, and importing it once per worker
          // instead of once per file took the browser files from 108 to 96 CPU-seconds.
          isolate: false,
          include: ['**/*.browser.test.ts'],
          exclude: ['**/node_modules/**'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
