import { pino, type Logger } from 'pino';
import { LOG_LEVELS, type Env, type LogLevel, type ProcessRole } from './config.js';
import { serviceName } from './logger.js';

/**
 * The logger of a process's own lifecycle lines (listening, signals, configuration errors, fatal failures): pino JSON
 * like every other line, with the service name, written synchronously so that a line logged just before
 * process.exit is never lost. LOG_LEVEL applies when valid (an invalid one is reported by the configuration).
 */
export function processLogger(role: ProcessRole, env: Env): Logger {
  const given = env['LOG_LEVEL']?.trim() as LogLevel | undefined;
  const level = given !== undefined && (LOG_LEVELS as readonly string[]).includes(given) ? given : 'info';
  return pino({ level, base: { service: serviceName(role) } }, pino.destination({ dest: 1, sync: true }));
}

/** What a process does on SIGINT/SIGTERM, for stopOnSignals. */
export interface StopOnSignals {
  /** What the first signal starts, for the log line (`stopping the worker`). */
  readonly action: string;
  /** Resolves true when everything in flight finished before the deadline. */
  stop(deadlineMs: number): Promise<boolean>;
  readonly deadlineMs: number;
  /** Where work cut short at the deadline goes, for the warning (`leases hand it to another worker`). */
  readonly leftover: string;
  /** Flushes the process's asynchronous log, then calls back. */
  flush(done: () => void): void;
}

/**
 * SIGINT/SIGTERM stop the process: the first runs `stop` within its deadline and exits 0 (1 when work was cut short or
 * the stop failed) after flushing the asynchronous log, so the last lines are not lost; a second signal exits at once.
 */
export function stopOnSignals(log: Logger, options: StopOnSignals): void {
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal }, `${signal}: ${options.action} (again to force)`);
    options.stop(options.deadlineMs).then((finished) => {
      if (!finished) log.warn({ deadlineMs: options.deadlineMs }, `work still in flight at the stop deadline; exiting (${options.leftover})`);
      options.flush(() => process.exit(finished ? 0 : 1));
    }, (error: unknown) => {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    });
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
