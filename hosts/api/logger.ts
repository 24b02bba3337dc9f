import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Paths censored wherever they appear in a log object. The host never logs headers or bodies, so these are a second
 * line of defence: if someone adds `req` or `body` to a log call, bearer tokens, passwords and secrets stay out.
 */
export const REDACT_PATHS = [
  'authorization', '*.authorization', 'headers.authorization', 'req.headers.authorization', 'req.headers.cookie',
  'password', '*.password', 'token', '*.token', 'session_token', '*.session_token',
  'webhook_secret', '*.webhook_secret', '*.config.webhook_secret', 'privateKey', '*.privateKey',
];

/** The structured request logger of the API host (JSON lines). `destination` lets tests capture the lines. */
export function createApiLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  return pino({ level: options.level ?? 'info', base: { service: 'custody-api' }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    options.destination ?? pino.destination({ dest: 1, sync: false }));
}
