import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import WaitFirstSequencer from './wait-first-sequencer.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * One run of every test file: unit and contract tests on memory adapters, integration tests against real services
 * (redis-server and PostgreSQL started by the global setup, the devnet chain over HTTP, MongoDB when reachable), and
 * browser tests of the pages in a real chromium. A file's kind is in its name (`*.integration.test.ts`,
 * `*.browser.test.ts`).
 *
 * Speed (issue #39 item 9): the files share their worker processes (`isolate: false`), so a worker imports tronweb, pg
 * and the app's modules once instead of once per file (that import was 186 s of a 449 s run; the unit files of core/
 * went from 25 s to 11 s). A file must leave no module state, global or process setting behind that another file
 * could see (no vi.mock, no process.env writes, fake timers restored). Five workers on two cores: an integration file
 * spends most of its time waiting on devnet blocks, child processes or PostgreSQL (one of 59 s used 9.5 s of CPU), and
 * the other workers use that time. The two longest integration files start first, the browser files beside them, then
 * the other integration files spread through the unit files (.config/wait-first-sequencer.ts).
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
    // beside them; then the other integration files spread through the unit files (.config/wait-first-sequencer.ts).
    maxWorkers: 5,
    sequence: { sequencer: WaitFirstSequencer },
    // One project, not three (issue #39 item 9): every project had its own Vite server, which transformed a module
    // shared by unit, integration and browser files once for each, and its own workers, which a file of another
    // project could not reuse, so tronweb, pg and the app's modules were imported again in each project's workers.
    // `npm run test:unit` and `npm run test:integration` pick their files by name instead (package.json).
    isolate: false,
    include: ['{core,adapters,hosts,contracts-tests}/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    // One shared Redis per run (redis-server on a free port, else REDIS_URL, else testcontainers): inject('redisUrl').
    // One shared PostgreSQL per run (DATABASE_URL, else a throwaway cluster on a free port): inject('postgresUrl').
    // Browser files drive Debian's chromium through playwright-core (one browser per file; SKIPPED without it).
    globalSetup: ['./contracts-tests/harness/redis.global-setup.ts', './contracts-tests/harness/postgres.global-setup.ts'],
    // Timeouts catch hangs, not slowness: property runs on a loaded 2-core CI machine can take several seconds, and an
    // integration or browser test waits on devnet blocks, child processes and pages.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
