/**
 * `npm start`: the whole service in one process on the embedded defaults (see startDev). Ctrl-C (SIGINT) or SIGTERM
 * shuts down gracefully; a second signal exits at once.
 */
import { ConfigError } from '../composition/config.js';
import { startDev } from './start-dev.js';

const dev = await startDev().catch((error: unknown) => {
  process.stderr.write(error instanceof ConfigError ? `${error.message}\n` : `npm start failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});

let stopping = false;
const shutdown = (signal: NodeJS.Signals): void => {
  if (stopping) process.exit(1);
  stopping = true;
  process.stdout.write(`\n${signal}: shutting down (again to force)\n`);
  dev.stop().then(() => process.exit(0), (error: unknown) => {
    process.stderr.write(`shutdown failed: ${(error as Error).message}\n`);
    process.exit(1);
  });
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
