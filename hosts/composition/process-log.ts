import { pino, type Logger } from 'pino';
import { LOG_LEVELS, type ConfigError, type Env, type LogLevel, type ProcessRole } from './config.js';
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

/** Where a configuration error goes: a terminal (`isTTY`) or a pipe to a log collector; process.stdout fits. */
export interface ReportStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Reports a configuration error before the process exits with status 2. At a terminal, as readable lines (the
 * message, one problem a line, then what to do); elsewhere (a container's log, a pipe) as one pino JSON line with
 * the variables named, like every other line of the process.
 */
export function reportConfigError(log: Logger, error: ConfigError, stream: ReportStream = process.stdout): void {
  if (stream.isTTY === true) {
    stream.write(`${error.message}\n(fix the variable${error.problems.length === 1 ? '' : 's'} above and start again; docs/configuration.md lists them all)\n`);
    return;
  }
  log.fatal({ variables: error.problems.map((p) => p.variable) }, error.message);
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
