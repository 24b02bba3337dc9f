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

/** The top-level keys of REDACT_PATHS: all a flat request line can carry. */
const REQUEST_LINE_REDACT_PATHS = REDACT_PATHS.filter((path) => !path.includes('.'));
const requestLineLoggers = new WeakMap<Logger, Logger>();

/**
 * The logger of the one line per request: same destination, level and bindings, redaction of top-level keys only.
 * Wildcard paths (`*.token`) make pino pass every field of every line through the redactor, which was a fifth of the
 * request pipeline's CPU (bench/api.ts); a request line is a flat object of fixed non-secret fields, so censoring its
 * top-level keys keeps the second line of defence at no cost. Everything else still logs through the full redaction.
 */
export function requestLineLogger(logger: Logger): Logger {
  let child = requestLineLoggers.get(logger);
  if (child === undefined) {
    child = logger.child({}, { redact: { paths: REQUEST_LINE_REDACT_PATHS, censor: '[redacted]' } });
    requestLineLoggers.set(logger, child);
  }
  return child;
}
