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
