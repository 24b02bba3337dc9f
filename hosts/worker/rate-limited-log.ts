import type { WorkerLog } from './index.js';

/** What a repeated failure is keyed by: the message, the workflow or subject it names, and the error's message. */
function keyOf(fields: object, message: string): string {
  const f = fields as { workflow?: unknown; taskNo?: unknown; commandNo?: unknown; err?: unknown };
  const err = f.err instanceof Error ? f.err.message : String(f.err ?? '');
  return `${message}\u0000${String(f.workflow ?? f.taskNo ?? f.commandNo ?? '')}\u0000${err}`;
}

/** An error as one flat field set: its class, code and message, never the stack (a stack every 3 s buries the log). */
function flatError(error: unknown): object {
  if (!(error instanceof Error)) return { error: String(error) };
  const code = (error as { code?: unknown }).code;
  return { error: error.message, errorType: error.name, ...(typeof code === 'string' ? { errorCode: code } : {}) };
}

/**
 * A worker log whose error lines are rate-limited: the first of a kind (same message, workflow or subject, and error
 * message) is written as one line without a stack; repeats within `windowMs` are counted and reported once, as
 * `repeated`, with the next line of that kind after the window. A loop failing every 3 s (a node or store down) thus
 * writes one line a minute instead of a stack trace per tick. Info and warn lines pass through unchanged.
 */
export function rateLimitedErrors(log: WorkerLog, options: { readonly windowMs?: number; readonly now?: () => number } = {}): WorkerLog {
  const windowMs = options.windowMs ?? 60_000;
  const now = options.now ?? Date.now;
  const seen = new Map<string, { until: number; suppressed: number }>();
  return {
    info: (fields, message) => log.info(fields, message),
    warn: (fields, message) => log.warn(fields, message),
    error(fields, message) {
      const key = keyOf(fields, message);
      const at = now();
      const entry = seen.get(key);
      if (entry !== undefined && at < entry.until) {
        entry.suppressed += 1;
        return;
      }
      if (seen.size > 1_000) seen.clear();
      seen.set(key, { until: at + windowMs, suppressed: 0 });
      const { err, ...rest } = fields as { err?: unknown };
      log.error({
        ...rest, ...(err === undefined ? {} : flatError(err)),
        ...(entry !== undefined && entry.suppressed > 0 ? { repeated: entry.suppressed } : {}),
      }, message);
    },
  };
}
