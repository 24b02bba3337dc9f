import { pino, type Logger } from 'pino';

/** The one line the API writes per request: a fixed set of non-secret fields (never headers, bodies or the query). */
export interface RequestLine {
  readonly reqId: string;
  readonly method: string;
  readonly path: string;
  /** The matched route pattern; absent when nothing matched. */
  readonly route?: string | undefined;
  readonly status: number;
  /** The catalogue code of a failure. */
  readonly code?: string | undefined;
  /** The caller: a user id, `cashier:<tokenNo>` or the auth kind. */
  readonly user?: string | number | undefined;
  readonly ms: number;
}

interface Destination {
  write(chunk: string): unknown;
}

/** Batches of request lines above this many characters are written at once instead of at the end of the turn. */
const FLUSH_AT = 16_384;

const S = pino.symbols as unknown as Record<string, symbol>;

/**
 * Writes request lines byte for byte as the logger's own `info(line, 'request')` would (`{"level":30,"time":…,` the
 * logger's bindings, the fields, `"msg":"request"}`), but serialized by hand and handed to the logger's destination once
 * per event-loop turn. Through pino each line cost ~3 µs of serialization and an asynchronous write of its own, the
 * largest item of the request pipeline after the socket (bench/api.ts); here a line is one template string, and a turn
 * serving many requests makes one write. Lines of a turn reach the destination in that turn's check phase (before any
 * client can have read the answer over a socket), at 16 KiB, and on process exit.
 */
export class RequestLog {
  private pending = '';
  private scheduled = false;

  private constructor(
    private readonly logger: Logger,
    private readonly destination: Destination,
    /** `{"level":30` */
    private readonly head: string,
    /** `,"service":"custody-api"`: the logger's bindings, serialized by pino. */
    private readonly bindings: string,
    /** `}\n` */
    private readonly end: string,
  ) {}

  private static readonly byLogger = new WeakMap<Logger, RequestLog | null>();
  private static readonly unflushed = new Set<RequestLog>();

  /**
   * The writer of a logger, or null when the logger is configured in a way the hand serialization would not reproduce
   * (custom level or log formatters, another message key, a nested key, a mixin, serializers of these fields): the
   * caller then logs through pino.
   */
  static of(logger: Logger): RequestLog | null {
    let log = RequestLog.byLogger.get(logger);
    if (log === undefined) {
      log = RequestLog.create(logger);
      RequestLog.byLogger.set(logger, log);
    }
    return log;
  }

  private static create(logger: Logger): RequestLog | null {
    const l = logger as unknown as Record<symbol, unknown>;
    const formatters = l[S['formattersSym']!] as { log?: unknown; level?: (label: string, n: number) => unknown } | undefined;
    const serializers = (l[S['serializersSym']!] ?? {}) as Record<string, unknown>;
    const stream = l[S['streamSym']!] as Destination | undefined;
    const cache = l[S['lsCacheSym']!] as Record<number, string> | undefined;
    const info = logger.levels.values['info'];
    const fieldsSerialized = ['reqId', 'method', 'path', 'route', 'status', 'code', 'user', 'ms', 'msg'].some((k) => k in serializers);
    if (stream === undefined || typeof stream.write !== 'function' || cache === undefined || info === undefined) return null;
    if (formatters?.log !== undefined || l[S['mixinSym']!] !== undefined || l[S['messageKeySym']!] !== 'msg'
      || (l[S['nestedKeySym']!] ?? null) !== null || fieldsSerialized) return null;
    const head = cache[info];
    // The default level formatter gives {"level":<number>}; a custom one is detected by its output.
    if (head !== '{"level":' + String(info) || JSON.stringify(formatters?.level?.('info', info)) !== `{"level":${info}}`) return null;
    return new RequestLog(logger, stream, head, String(l[S['chindingsSym']!] ?? ''), String(l[S['endSym']!] ?? '}\n'));
  }

  /** Appends one request line (dropped when the logger's level is above info). */
  write(line: RequestLine): void {
    if (!this.logger.isLevelEnabled('info')) return;
    const time = (this.logger as unknown as Record<symbol, () => string>)[S['timeSym']!]!();
    let text = `${this.head}${time}${this.bindings},"reqId":${JSON.stringify(line.reqId)},"method":${JSON.stringify(line.method)}`
      + `,"path":${JSON.stringify(line.path)}`;
    if (line.route !== undefined) text += `,"route":${JSON.stringify(line.route)}`;
    text += `,"status":${line.status}`;
    if (line.code !== undefined) text += `,"code":${JSON.stringify(line.code)}`;
    if (line.user !== undefined) text += `,"user":${JSON.stringify(line.user)}`;
    text += `,"ms":${Number.isFinite(line.ms) ? line.ms : null},"msg":"request"${this.end}`;
    this.pending += text;
    if (this.pending.length >= FLUSH_AT) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      RequestLog.unflushed.add(this);
      setImmediate(this.flush);
    }
  }

  /** Hands the pending lines to the destination. */
  readonly flush = (): void => {
    this.scheduled = false;
    RequestLog.unflushed.delete(this);
    if (this.pending === '') return;
    const chunk = this.pending;
    this.pending = '';
    this.destination.write(chunk);
  };

  static {
    // A process that exits between a write and its turn's end still hands its lines over (pino flushes its own
    // destination on exit after this).
    process.once('exit', () => {
      for (const log of [...RequestLog.unflushed]) log.flush();
    });
  }
}

/** Writes one request line through the logger: batched by hand when its configuration allows, else through pino. */
export function logRequestLine(logger: Logger, line: RequestLine): void {
  const log = RequestLog.of(logger);
  if (log !== null) log.write(line);
  else logger.info(line, 'request');
}
