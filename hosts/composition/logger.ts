import { pino, type Logger } from 'pino';
import { REDACT_PATHS } from '../api/logger.js';
import type { HostConfig } from './config.js';

/** The service name every log line carries: the worker's own lines say so (`custody-worker`). */
export function serviceName(role: HostConfig['role']): string {
  return role === 'worker' ? 'custody-worker' : 'custody-api';
}

/** The process logger: pino JSON lines at LOG_LEVEL with the service name and the API's redaction paths. */
export function createServiceLogger(config: Pick<HostConfig, 'role' | 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: serviceName(config.role) }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    pino.destination({ dest: 1, sync: false }));
}
